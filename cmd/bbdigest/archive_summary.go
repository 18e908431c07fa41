package main

// The summary of "archive rehash|verify": the outcomes counted, written
// on stderr as one line of text, or with --json as one JSON object.

import (
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// archiveSummary is what a run of rehash or verify did.
type archiveSummary struct {
	command   string // "rehash" or "verify"
	profile   string
	maxRecord int64 // the bound on a record's size in bytes
	shard     shardSpec
	inputs    []*inputSummary
	records   int64
	ok        int64 // accepted (rehash), verified (verify)
	failed    int64 // rejected (rehash), not verified (verify)
	classes   map[string]int64
	output    outputSummary
	complete  bool // every line of every input was answered

	// Set by archive join only.
	shards  int64         // the number of shards joined
	outputs []shardOutput // their outputs, in index order, for output
}

// shardOutput is the output of one shard, in a joined summary.
type shardOutput struct {
	index int64
	outputSummary
}

// inputSummary is what a run read of one input.
type inputSummary struct {
	name        string
	compression string // "none", "gzip" or "zstd"
	size        int64  // bytes of JSON Lines (decompressed); -1: unknown
	start, end  int64  // the bytes answered, [start, end)
	// The SHA-256 of the stream's bytes [0, start) and [0, end).
	startSHA256, endSHA256 hashing.Digest
	firstLine              int64
	lines                  int64
}

// emptySHA256 is the SHA-256 of no bytes: that of [0, 0).
var emptySHA256 = hashing.Digest(sha256.Sum256(nil))

// outputSummary is what a run wrote.
type outputSummary struct {
	bytes  int64
	sha256 hashing.Digest
}

func (s *archiveSummary) init(command string, p canon.Profile) {
	s.command, s.profile = command, p.Name()
	s.classes = make(map[string]int64)
}

// addInput starts the summary of an input.
func (s *archiveSummary) addInput(name string) *inputSummary {
	in := &inputSummary{name: name, compression: "none", size: -1, firstLine: 1, startSHA256: emptySHA256, endSHA256: emptySHA256}
	s.inputs = append(s.inputs, in)
	return in
}

// accept counts a record accepted or verified.
func (s *archiveSummary) accept() {
	s.records++
	s.ok++
}

// fail counts a record rejected or not verified, with its class.
func (s *archiveSummary) fail(class string) {
	s.records++
	s.failed++
	s.classes[class]++
}

// exitCode is exitOK when every record was accepted (verified), else
// exitRejected.
func (s *archiveSummary) exitCode() int {
	if s.failed > 0 {
		return exitRejected
	}
	return exitOK
}

// outcomeNames returns the names of the two outcomes, as the summary
// writes them.
func (s *archiveSummary) outcomeNames() (ok, failed string) {
	if s.command == "verify" {
		return "ok", "failed"
	}
	return "accepted", "rejected"
}

// sortedClasses returns the class names counted, in order.
func (s *archiveSummary) sortedClasses() []string {
	names := make([]string, 0, len(s.classes))
	for name := range s.classes {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// appendText appends the summary as one line of text:
//
//	bbdigest: summary: 12 records, 9 accepted, 3 rejected (duplicate-name 1, syntax 2)
func (s *archiveSummary) appendText(b []byte) []byte {
	okName, failedName := s.outcomeNames()
	b = append(b, "bbdigest: summary: "...)
	b = append(b, plural(s.records, "record", "records")...)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, s.ok, 10)
	b = append(b, ' ')
	b = append(b, okName...)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, s.failed, 10)
	b = append(b, ' ')
	b = append(b, failedName...)
	if len(s.classes) > 0 {
		b = append(b, " ("...)
		for i, name := range s.sortedClasses() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, name...)
			b = append(b, ' ')
			b = strconv.AppendInt(b, s.classes[name], 10)
		}
		b = append(b, ')')
	}
	if !s.complete {
		b = append(b, "; incomplete"...)
	}
	return append(b, '\n')
}

// appendJSON appends the summary as one JSON object, on one line:
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
// there only for --shard and --shards. start_sha256 and end_sha256 are
// the SHA-256 of the input's bytes (decompressed) before start and before
// end: for a whole input, end_sha256 is the digest of all of it.
func (s *archiveSummary) appendJSON(b []byte) []byte {
	okName, failedName := s.outcomeNames()
	b = append(b, `{"command":`...)
	b = appendJSONString(b, s.command)
	b = append(b, `,"profile":`...)
	b = appendJSONString(b, s.profile)
	b = append(b, `,"max_record":`...)
	b = strconv.AppendInt(b, s.maxRecord, 10)
	if s.shard.count > 0 {
		b = append(b, `,"shard":{"index":`...)
		b = strconv.AppendInt(b, s.shard.index, 10)
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, s.shard.count, 10)
		b = append(b, '}')
	}
	if s.shards > 0 {
		b = append(b, `,"shards":`...)
		b = strconv.AppendInt(b, s.shards, 10)
	}
	b = append(b, `,"inputs":[`...)
	for i, in := range s.inputs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendJSONString(b, in.name)
		b = append(b, `,"compression":"`...)
		b = append(b, in.compression...)
		b = append(b, '"')
		if in.size >= 0 {
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, in.size, 10)
		}
		b = append(b, `,"range":{"start":`...)
		b = strconv.AppendInt(b, in.start, 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, in.end, 10)
		b = append(b, `,"start_sha256":"`...)
		b = in.startSHA256.AppendTo(b)
		b = append(b, `","end_sha256":"`...)
		b = in.endSHA256.AppendTo(b)
		b = append(b, `"},"first_line":`...)
		b = strconv.AppendInt(b, in.firstLine, 10)
		b = append(b, `,"lines":`...)
		b = strconv.AppendInt(b, in.lines, 10)
		b = append(b, '}')
	}
	b = append(b, `],"records":`...)
	b = strconv.AppendInt(b, s.records, 10)
	b = append(b, `,"`...)
	b = append(b, okName...)
	b = append(b, `":`...)
	b = strconv.AppendInt(b, s.ok, 10)
	b = append(b, `,"`...)
	b = append(b, failedName...)
	b = append(b, `":`...)
	b = strconv.AppendInt(b, s.failed, 10)
	b = append(b, `,"classes":{`...)
	for i, name := range s.sortedClasses() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, name)
		b = append(b, ':')
		b = strconv.AppendInt(b, s.classes[name], 10)
	}
	b = append(b, '}')
	if s.outputs == nil {
		b = append(b, `,"output":`...)
		b = s.output.appendJSON(b, -1)
	} else {
		b = append(b, `,"outputs":[`...)
		for i, o := range s.outputs {
			if i > 0 {
				b = append(b, ',')
			}
			b = o.appendJSON(b, o.index)
		}
		b = append(b, ']')
	}
	b = append(b, `,"complete":`...)
	b = strconv.AppendBool(b, s.complete)
	return append(b, "}\n"...)
}

// appendJSON appends {"bytes":N,"sha256":"sha256:…"}, after "index"
// when index >= 0.
func (o outputSummary) appendJSON(b []byte, index int64) []byte {
	b = append(b, '{')
	if index >= 0 {
		b = append(b, `"index":`...)
		b = strconv.AppendInt(b, index, 10)
		b = append(b, ',')
	}
	b = append(b, `"bytes":`...)
	b = strconv.AppendInt(b, o.bytes, 10)
	b = append(b, `,"sha256":"`...)
	b = o.sha256.AppendTo(b)
	return append(b, `"}`...)
}

// writeSummary writes the summary on stderr.
func (a *archiveRun) writeSummary() {
	if a.jsonSum {
		a.c.stderr.Write(a.sum.appendJSON(nil))
		return
	}
	io.WriteString(a.c.stderr, string(a.sum.appendText(nil)))
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
