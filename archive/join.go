package archive

// Join: checks that the summaries of the shards of one run (the --summary
// files of the bbdigest command) cover its input exactly once, in order,
// all complete, and combines them.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/boundedread"
	"github.com/bbdigest/bbdigest/internal/diag"
)

// maxMissing is how many more shards than summaries join counts as
// missing one by one, and maxMissingListed how many it names.
const (
	maxMissing       = 1 << 16
	maxMissingListed = 20
)

// shardSummary is a summary file, read back. Every member the summary
// writes is required (ParseSummary checks that the file holds exactly
// the members of this struct, spelled as here): those that are optional
// are omitempty, and the pairs accepted/rejected (rehash) and ok/failed
// (verify) are pointers, one pair present.
type shardSummary struct {
	Command   *string `json:"command"`
	Profile   *string `json:"profile"`
	MaxRecord int64   `json:"max_record"`
	Shard     *struct {
		Index int64 `json:"index"`
		Count int64 `json:"count"`
	} `json:"shard,omitempty"`
	Inputs []struct {
		Name        *string `json:"name"`
		Compression string  `json:"compression"`
		Size        *int64  `json:"size,omitempty"`
		Range       *struct {
			Start       int64          `json:"start"`
			End         int64          `json:"end"`
			StartSHA256 hashing.Digest `json:"start_sha256"`
			EndSHA256   hashing.Digest `json:"end_sha256"`
		} `json:"range"`
		FirstLine int64 `json:"first_line"`
		Lines     int64 `json:"lines"`
	} `json:"inputs"`
	Records  int64            `json:"records"`
	Accepted *int64           `json:"accepted,omitempty"`
	Rejected *int64           `json:"rejected,omitempty"`
	OK       *int64           `json:"ok,omitempty"`
	Failed   *int64           `json:"failed,omitempty"`
	Classes  map[string]int64 `json:"classes"`
	Output   *struct {
		Bytes  int64          `json:"bytes"`
		SHA256 hashing.Digest `json:"sha256"`
	} `json:"output"`
	Complete *bool `json:"complete"`
}

// summaryKind is a summary file, which describes one run over one input
// in a few hundred bytes.
var summaryKind = boundedread.Kind{What: "a summary", Limit: 64 << 10}

// ReadSummary reads the summary file at path (of at most 64 KiB) for
// Join, as ParseSummary reads data. A failure to read it is a *FileError,
// as are the problems ParseSummary finds.
func ReadSummary(path string) (*Summary, error) {
	b, _, err := boundedread.ReadFile(path, summaryKind)
	if err != nil {
		return nil, &FileError{Name: path, Err: err}
	}
	return ParseSummary(path, b)
}

// ParseSummary reads data as the summary of a run of Rehash or Verify
// over one input (a shard's, for Join), called name in the errors and in
// Join's problems. It takes the summary exactly as MarshalJSON writes it:
// every member there, spelled as it spells it, none repeated, none other
// (canonicalized, it equals its struct marshaled and canonicalized). A
// problem is a *FileError.
func ParseSummary(name string, data []byte) (*Summary, error) {
	s, err := parseShardSummary(data)
	if err != nil {
		return nil, &FileError{Name: name, Err: err}
	}
	in := s.Inputs[0]
	sum := &Summary{Command: *s.Command, Profile: *s.Profile, MaxRecord: s.MaxRecord, Records: s.Records, Classes: s.Classes,
		Output: OutputSummary{Bytes: s.Output.Bytes, SHA256: s.Output.SHA256}, Complete: *s.Complete, name: name}
	if s.Shard != nil {
		sum.Shard = Shard{Index: s.Shard.Index, Count: s.Shard.Count}
	}
	if sum.Command == "verify" {
		sum.OK, sum.Failed = *s.OK, *s.Failed
	} else {
		sum.OK, sum.Failed = *s.Accepted, *s.Rejected
	}
	is := InputSummary{Name: *in.Name, Compression: in.Compression, Size: -1, Start: in.Range.Start, End: in.Range.End,
		StartSHA256: in.Range.StartSHA256, EndSHA256: in.Range.EndSHA256, FirstLine: in.FirstLine, Lines: in.Lines}
	if in.Size != nil {
		is.Size = *in.Size
	}
	sum.Inputs = []InputSummary{is}
	return sum, nil
}

// parseShardSummary reads data as ParseSummary does, into a shardSummary.
func parseShardSummary(b []byte) (*shardSummary, error) {
	s := new(shardSummary)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("not a summary of archive rehash or verify: %v", err)
	}
	verify := s.Command != nil && *s.Command == "verify"
	switch {
	case s.Command == nil || *s.Command != "rehash" && !verify,
		s.Profile == nil, s.Output == nil, s.Complete == nil,
		verify && (s.OK == nil || s.Failed == nil || s.Accepted != nil || s.Rejected != nil),
		!verify && (s.Accepted == nil || s.Rejected == nil || s.OK != nil || s.Failed != nil):
		return nil, fmt.Errorf("not a summary of archive rehash or verify")
	case len(s.Inputs) != 1 || s.Inputs[0].Name == nil || s.Inputs[0].Range == nil:
		return nil, fmt.Errorf("not the summary of a run over one input")
	case s.Shard != nil && (s.Shard.Count < 1 || s.Shard.Index < 0 || s.Shard.Index >= s.Shard.Count):
		return nil, fmt.Errorf("shard %d of %d", s.Shard.Index, s.Shard.Count)
	case s.Inputs[0].Size != nil && *s.Inputs[0].Size < 0:
		return nil, fmt.Errorf("not a summary of archive rehash or verify: size %d", *s.Inputs[0].Size)
	}
	got, err := canon.Canonicalize(b, canon.Strict)
	if err != nil {
		return nil, fmt.Errorf("not a summary of archive rehash or verify: %v", err)
	}
	back, err := json.Marshal(s)
	if err == nil {
		back, err = canon.Canonicalize(back, canon.Strict)
	}
	if err != nil || !bytes.Equal(got, back) {
		return nil, fmt.Errorf("not a summary of archive rehash or verify as they write it: a member is missing, repeated, unknown, spelled otherwise or of another type")
	}
	return s, nil
}

// Join checks that sums are the summaries of the shards of one run that
// cover its input exactly once, in order, all complete (each read by
// ParseSummary or ReadSummary), and returns their combined summary: the
// summary of an unsharded run, with Shards N for Shard, and in place of
// Output the shards' outputs (Outputs), whose SHA-256 digests do not
// combine into that of their concatenation:
//
//	"shards":8, … "outputs":[{"index":0,"bytes":…,"sha256":"sha256:…"},…]
//
// When they do not cover it, the error is a *CoverageError that lists
// every problem found.
func Join(sums []*Summary) (*Summary, error) {
	if len(sums) == 0 {
		return nil, &CoverageError{Problems: []string{"no summary"}}
	}
	for _, s := range sums {
		if len(s.Inputs) != 1 {
			return nil, &CoverageError{Problems: []string{diag.FileField(s.name) + ": not the summary of a run over one input"}}
		}
	}
	if problems := coverage(sums); len(problems) > 0 {
		return nil, &CoverageError{Problems: problems}
	}
	return joined(sums), nil
}

// shardOf returns the index and the count of the shard of s: 0 of 1 for
// a run over the whole input.
func shardOf(s *Summary) (index, count int64) {
	if s.Shard.Count == 0 {
		return 0, 1
	}
	return s.Shard.Index, s.Shard.Count
}

// countProblem returns why the counts and bounds of s cannot be those of
// a run, or "".
func countProblem(s *Summary) string {
	in := s.Inputs[0]
	switch {
	case s.MaxRecord < 1:
		return fmt.Sprintf("max_record %d", s.MaxRecord)
	case in.Compression != "none" && in.Compression != "gzip" && in.Compression != "zstd":
		return "compression " + quote(in.Compression)
	case s.Records < 0 || s.OK < 0 || s.Failed < 0 || in.Lines < 0 || s.Output.Bytes < 0:
		return fmt.Sprintf("a negative count: %s, %s, %d + %d outcomes, %s", diag.Plural(in.Lines, "line", "lines"), diag.Plural(s.Records, "record", "records"), s.OK, s.Failed, diag.Plural(s.Output.Bytes, "output byte", "output bytes"))
	case in.Start < 0 || in.End < in.Start || in.Size >= 0 && in.Size < in.End:
		return fmt.Sprintf("the range [%d, %d) of an input of %s", in.Start, in.End, sizeText(in.Size))
	case in.FirstLine < 1 || in.FirstLine > math.MaxInt64-in.Lines:
		return fmt.Sprintf("first line %d, and %s", in.FirstLine, diag.Plural(in.Lines, "line", "lines"))
	case in.Lines != s.Records || s.Failed > s.Records || s.OK != s.Records-s.Failed:
		return fmt.Sprintf("its counts do not add up: %s, %s, %d + %d outcomes", diag.Plural(in.Lines, "line", "lines"), diag.Plural(s.Records, "record", "records"), s.OK, s.Failed)
	}
	var classes int64
	for name, n := range s.Classes {
		if n < 1 || n > s.Failed-classes {
			return fmt.Sprintf("its classes do not add up to the %s %s: %s %d", diag.Plural(s.Failed, "record", "records"), map[bool]string{true: "failed", false: "rejected"}[s.Command == "verify"], quote(name), n)
		}
		classes += n
	}
	if classes != s.Failed {
		return fmt.Sprintf("its classes add up to %d, not to the %s %s", classes, diag.Plural(s.Failed, "record", "records"), map[bool]string{true: "failed", false: "rejected"}[s.Command == "verify"])
	}
	return ""
}

// coverage returns the reasons, if any, why sums are not the summaries of
// the shards of one run that cover its input exactly once, in order, all
// complete.
func coverage(sums []*Summary) []string {
	var problems []string
	add := func(s *Summary, format string, args ...any) {
		problems = append(problems, diag.FileField(s.name)+": "+fmt.Sprintf(format, args...))
	}
	first := sums[0]
	in0 := first.Inputs[0]
	_, count := shardOf(first)
	if count > int64(len(sums))+maxMissing {
		// Do not make room for a count that may be anything.
		return []string{fmt.Sprintf("%s, for %s", diag.Plural(len(sums), "summary", "summaries"), diag.Plural(count, "shard", "shards"))}
	}
	byIndex := make([]*Summary, count)
	for _, s := range sums {
		in := s.Inputs[0]
		index, n := shardOf(s)
		switch {
		case s.Command != first.Command || s.Profile != first.Profile || s.MaxRecord != first.MaxRecord:
			add(s, "archive %s --profile %s --max-record %d, where %s has archive %s --profile %s --max-record %d", s.Command, s.Profile, s.MaxRecord, diag.FileField(first.name), first.Command, first.Profile, first.MaxRecord)
			continue
		case in.Name != in0.Name || in.Compression != in0.Compression || in.Size != in0.Size:
			add(s, "the input %s, where %s has %s", describeInput(s), diag.FileField(first.name), describeInput(first))
			continue
		case n != count:
			add(s, "shard %d of %d, where %s is a shard of %d", index, n, diag.FileField(first.name), count)
			continue
		case byIndex[index] != nil:
			add(s, "shard %d of %d again (also %s)", index, n, diag.FileField(byIndex[index].name))
			continue
		}
		byIndex[index] = s
		if !s.Complete {
			add(s, "shard %d of %d is incomplete: its run stopped on an error", index, n)
		}
		if p := countProblem(s); p != "" {
			add(s, "%s", p)
		}
	}
	if len(problems) > 0 {
		return problems
	}
	// Every shard once: now the ranges must follow one another.
	var end, line int64 = 0, 1
	read := emptySHA256 // the SHA-256 of the input's bytes [0, end)
	missing, gap := 0, false
	for i, s := range byIndex {
		if s == nil {
			if missing++; missing <= maxMissingListed {
				problems = append(problems, fmt.Sprintf("shard %d of %d is missing", i, count))
			}
			gap = true
			continue
		}
		in := s.Inputs[0]
		if !gap && (in.Start != end || in.FirstLine != line) {
			add(s, "shard %d of %d starts at byte %d, line %d, where the shards before it end at byte %d, line %d", i, count, in.Start, in.FirstLine, end, line)
		} else if !gap && in.StartSHA256 != read {
			add(s, "shard %d of %d read other bytes before its range than the shards before it: the SHA-256 of the input's bytes [0, %d) is %s there, %s for the shards before it (the input differs between the runs)", i, count, end, in.StartSHA256, read)
		}
		end, line, gap = in.End, in.FirstLine+in.Lines, false
		read = in.EndSHA256
	}
	if missing > maxMissingListed {
		problems = append(problems, fmt.Sprintf("and %s of %d missing", diag.Plural(missing-maxMissingListed, "more shard is", "more shards are"), count))
	}
	if len(problems) == 0 && (in0.Size < 0 || end != in0.Size) {
		add(byIndex[len(byIndex)-1], "the last shard ends at byte %d, before the end of the input (%s)", end, sizeText(in0.Size))
	}
	return problems
}

// sizeText returns the size n as "N bytes", or "an unknown size" for a
// negative n.
func sizeText(n int64) string {
	if n < 0 {
		return "an unknown size"
	}
	return diag.Plural(n, "byte", "bytes")
}

// describeInput names the input of a summary: name, compression, size.
func describeInput(s *Summary) string {
	in := s.Inputs[0]
	return quote(in.Name) + " (" + in.Compression + ", " + sizeText(in.Size) + ")"
}

// joined returns the combined summary of the shards sums, which cover
// their input (coverage found no problem).
func joined(sums []*Summary) *Summary {
	sums = slices.Clone(sums)
	slices.SortFunc(sums, func(a, b *Summary) int { return cmp.Compare(a.Shard.Index, b.Shard.Index) })
	total := &Summary{Command: sums[0].Command, Profile: sums[0].Profile, MaxRecord: sums[0].MaxRecord, Classes: map[string]int64{},
		Shards: int64(len(sums)), Outputs: []ShardOutput{}, Complete: true}
	in0 := sums[0].Inputs[0]
	in := InputSummary{Name: in0.Name, Compression: in0.Compression, Size: in0.Size, End: in0.Size, FirstLine: 1,
		StartSHA256: emptySHA256, EndSHA256: sums[len(sums)-1].Inputs[0].EndSHA256}
	for _, s := range sums {
		in.Lines += s.Inputs[0].Lines
		total.Records += s.Records
		total.OK += s.OK
		total.Failed += s.Failed
		for k, v := range s.Classes {
			total.Classes[k] += v
		}
		total.Outputs = append(total.Outputs, ShardOutput{s.Shard.Index, s.Output})
	}
	total.Inputs = []InputSummary{in}
	return total
}
