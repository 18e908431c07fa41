package archive

// The summary of a run of Rehash or Verify: the outcomes counted, as one
// line of text (String) or one JSON object (MarshalJSON).

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/diag"
)

// Summary is what a run of Rehash or Verify did, or, from Join, the runs
// of the shards of one run together. Its JSON form (MarshalJSON) is what
// the bbdigest command writes with --json and --summary, and what
// ReadSummary and ParseSummary read back.
type Summary struct {
	Command   string // "rehash" or "verify"
	Profile   string // the profile's name: "strict" or "rfc8785"
	MaxRecord int64  // the bound on a line's size in bytes
	Shard     Shard  // the shard answered; zero: the whole input
	Shards    int64  // from Join: the number of shards joined; else 0

	Inputs  []InputSummary
	Records int64            // the lines answered
	OK      int64            // accepted (Rehash), verified (Verify)
	Failed  int64            // rejected (Rehash), not verified (Verify)
	Classes map[string]int64 // the records that failed, by class

	Output   OutputSummary // the result lines written
	Outputs  []ShardOutput // from Join: those of each shard, for Output
	Complete bool          // every line of every input was answered

	name string // as ParseSummary was given it, for Join's problems
}

// ShardOutput is the output of one shard, in a Summary from Join.
type ShardOutput struct {
	Index int64
	OutputSummary
}

// InputSummary is what a run read of one input.
type InputSummary struct {
	Name        string
	Compression string // "none", "gzip" or "zstd"
	Size        int64  // bytes of JSON Lines (decompressed); -1: unknown
	Start, End  int64  // the bytes answered, [Start, End)
	// The SHA-256 of the stream's bytes [0, Start) and [0, End); zero
	// with Options.NoInputSHA256.
	StartSHA256, EndSHA256 hashing.Digest
	FirstLine              int64 // the number of the first line answered
	Lines                  int64 // the lines answered
}

// emptySHA256 is the SHA-256 of no bytes: that of [0, 0).
var emptySHA256 = hashing.Digest(sha256.Sum256(nil))

// OutputSummary is what a run wrote: the bytes of its result lines and
// their SHA-256.
type OutputSummary struct {
	Bytes  int64
	SHA256 hashing.Digest
}

func (s *Summary) init(command string, p canon.Profile) {
	s.Command, s.Profile = command, p.Name()
	s.Classes = make(map[string]int64)
}

// addInput starts the summary of an input, which the pointer returned
// updates until the next addInput.
func (s *Summary) addInput(name string) *InputSummary {
	s.Inputs = append(s.Inputs, InputSummary{Name: name, Compression: "none", Size: -1, FirstLine: 1, StartSHA256: emptySHA256, EndSHA256: emptySHA256})
	return &s.Inputs[len(s.Inputs)-1]
}

// accept counts a record accepted or verified.
func (s *Summary) accept() {
	s.Records++
	s.OK++
}

// fail counts a record rejected or not verified, with its class.
func (s *Summary) fail(class string) {
	s.Records++
	s.Failed++
	s.Classes[class]++
}

// outcomeNames returns the names of the two outcomes, as the summary
// writes them.
func (s *Summary) outcomeNames() (ok, failed string) {
	if s.Command == "verify" {
		return "ok", "failed"
	}
	return "accepted", "rejected"
}

// sortedClasses returns the class names counted, in order.
func (s *Summary) sortedClasses() []string {
	names := make([]string, 0, len(s.Classes))
	for name := range s.Classes {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// String returns the summary as one line of text, without a newline:
//
//	12 records, 9 accepted, 3 rejected (duplicate-name 1, syntax 2)
//
// with "; incomplete" after it when the run did not answer every line,
// and "ok" and "failed" for "accepted" and "rejected" from Verify.
func (s *Summary) String() string {
	okName, failedName := s.outcomeNames()
	b := []byte(diag.Plural(s.Records, "record", "records"))
	b = append(b, ", "...)
	b = strconv.AppendInt(b, s.OK, 10)
	b = append(b, ' ')
	b = append(b, okName...)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, s.Failed, 10)
	b = append(b, ' ')
	b = append(b, failedName...)
	if len(s.Classes) > 0 {
		b = append(b, " ("...)
		for i, name := range s.sortedClasses() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, name...)
			b = append(b, ' ')
			b = strconv.AppendInt(b, s.Classes[name], 10)
		}
		b = append(b, ')')
	}
	if !s.Complete {
		b = append(b, "; incomplete"...)
	}
	return string(b)
}

// MarshalJSON returns the summary as one JSON object, on one line, its
// strings escaped as the bbdigest command escapes all it writes (see
// ReadSummary):
//
//	{"command":"rehash","profile":"strict","max_record":16777216,
//	 "shard":{"index":0,"count":8},
//	 "inputs":[{"name":"a.jsonl","compression":"none","size":4000,
//	            "range":{"start":0,"end":4000,
//	                     "start_sha256":"sha256:…","end_sha256":"sha256:…"},
//	            "first_line":1,"lines":12}],
//	 "records":12,"accepted":9,"rejected":3,
//	 "classes":{"duplicate-name":1,"syntax":2},
//	 "output":{"bytes":900,"sha256":"sha256:…"},"complete":true}
//
// verify writes "ok" and "failed" for "accepted" and "rejected"; shard is
// there only for a Shard; a Summary from Join has "shards":N instead, and
// "outputs", the shards' outputs, for "output". start_sha256 and end_sha256 are
// the SHA-256 of the input's bytes (decompressed) before start and before
// end: for a whole input, end_sha256 is the digest of all of it.
func (s *Summary) MarshalJSON() ([]byte, error) {
	return s.appendJSON(nil), nil
}

// appendJSON appends the summary as MarshalJSON returns it.
func (s *Summary) appendJSON(b []byte) []byte {
	okName, failedName := s.outcomeNames()
	b = append(b, `{"command":`...)
	b = diag.AppendJSONString(b, s.Command)
	b = append(b, `,"profile":`...)
	b = diag.AppendJSONString(b, s.Profile)
	b = append(b, `,"max_record":`...)
	b = strconv.AppendInt(b, s.MaxRecord, 10)
	if s.Shard.Count > 0 {
		b = append(b, `,"shard":{"index":`...)
		b = strconv.AppendInt(b, s.Shard.Index, 10)
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, s.Shard.Count, 10)
		b = append(b, '}')
	}
	if s.Shards > 0 {
		b = append(b, `,"shards":`...)
		b = strconv.AppendInt(b, s.Shards, 10)
	}
	b = append(b, `,"inputs":[`...)
	for i, in := range s.Inputs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = diag.AppendJSONString(b, in.Name)
		b = append(b, `,"compression":"`...)
		b = append(b, in.Compression...)
		b = append(b, '"')
		if in.Size >= 0 {
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, in.Size, 10)
		}
		b = append(b, `,"range":{"start":`...)
		b = strconv.AppendInt(b, in.Start, 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, in.End, 10)
		b = append(b, `,"start_sha256":"`...)
		b = in.StartSHA256.AppendTo(b)
		b = append(b, `","end_sha256":"`...)
		b = in.EndSHA256.AppendTo(b)
		b = append(b, `"},"first_line":`...)
		b = strconv.AppendInt(b, in.FirstLine, 10)
		b = append(b, `,"lines":`...)
		b = strconv.AppendInt(b, in.Lines, 10)
		b = append(b, '}')
	}
	b = append(b, `],"records":`...)
	b = strconv.AppendInt(b, s.Records, 10)
	b = append(b, `,"`...)
	b = append(b, okName...)
	b = append(b, `":`...)
	b = strconv.AppendInt(b, s.OK, 10)
	b = append(b, `,"`...)
	b = append(b, failedName...)
	b = append(b, `":`...)
	b = strconv.AppendInt(b, s.Failed, 10)
	b = append(b, `,"classes":{`...)
	for i, name := range s.sortedClasses() {
		if i > 0 {
			b = append(b, ',')
		}
		b = diag.AppendJSONString(b, name)
		b = append(b, ':')
		b = strconv.AppendInt(b, s.Classes[name], 10)
	}
	b = append(b, '}')
	if s.Outputs == nil {
		b = append(b, `,"output":`...)
		b = s.Output.appendJSON(b, -1)
	} else {
		b = append(b, `,"outputs":[`...)
		for i, o := range s.Outputs {
			if i > 0 {
				b = append(b, ',')
			}
			b = o.appendJSON(b, o.Index)
		}
		b = append(b, ']')
	}
	b = append(b, `,"complete":`...)
	b = strconv.AppendBool(b, s.Complete)
	return append(b, '}')
}

// appendJSON appends {"bytes":N,"sha256":"sha256:…"}, after "index"
// when index >= 0.
func (o OutputSummary) appendJSON(b []byte, index int64) []byte {
	b = append(b, '{')
	if index >= 0 {
		b = append(b, `"index":`...)
		b = strconv.AppendInt(b, index, 10)
		b = append(b, ',')
	}
	b = append(b, `"bytes":`...)
	b = strconv.AppendInt(b, o.Bytes, 10)
	b = append(b, `,"sha256":"`...)
	b = o.SHA256.AppendTo(b)
	return append(b, `"}`...)
}

// WriteFile writes the summary (MarshalJSON and a newline) to the file at
// path, as the bbdigest command writes --summary FILE: through a
// temporary file beside it, fsynced and renamed over it once written, so
// that a reader of path sees the old file or the new one, never a part.
func (s *Summary) WriteFile(path string) error {
	return writeFileAtomic(path, append(s.appendJSON(nil), '\n'))
}

// writeFileAtomic writes b to the file at path through a temporary file
// beside it, fsynced and renamed over it once written: a reader of path
// sees the old file or the new one, never a part.
func writeFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes it 0600
	}
	if err == nil {
		err = f.Sync() // on disk before it replaces path
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
