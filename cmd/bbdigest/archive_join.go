package main

// "archive join SUMMARY...": checks that the --summary files of the shards
// of one run cover its input exactly once, in order, all complete, and
// prints their combined summary.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// maxMissing is how many more shards than summaries join counts as
// missing one by one, and maxMissingListed how many it names.
const (
	maxMissing       = 1 << 16
	maxMissingListed = 20
)

// exitCoverage is the exit code of archive join when the summaries do not
// cover the input exactly once, or one is incomplete.
const exitCoverage = 3

// shardSummary is a --summary file, read back. Every member the summary
// writes is required (readShardSummary checks that the file holds
// exactly the members of this struct, spelled as here): those that are
// optional are omitempty, and the pairs accepted/rejected (rehash) and
// ok/failed (verify) are pointers, one pair present.
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

	path     string // the file it was read from
	index    int64  // Shard.Index, or 0 without Shard
	count    int64  // Shard.Count, or 1 without Shard
	accepted int64  // Accepted, or OK for verify
	rejected int64  // Rejected, or Failed for verify
}

// archiveJoin runs "bbdigest archive join SUMMARY...".
func (c *cli) archiveJoin(args []string) int {
	fs := c.flagSet("archive join")
	paths, code := c.parse(fs, args, -1)
	if code >= 0 {
		return code
	}
	if len(paths) == 0 {
		return c.usageError(fs.Name(), "no SUMMARY given")
	}
	var sums []*shardSummary
	for _, p := range paths {
		s, err := readShardSummary(p)
		if err != nil {
			c.errorf("%s: %v", fileField(p), err)
			return exitUsage
		}
		sums = append(sums, s)
	}
	if problems := coverage(sums); len(problems) > 0 {
		for _, p := range problems {
			c.errorf("%s", p)
		}
		return exitCoverage
	}
	out, failed := joined(sums)
	if code := c.write(out); code != exitOK {
		return code
	}
	if failed > 0 {
		return exitRejected
	}
	return exitOK
}

// readShardSummary reads a --summary file of rehash or verify. It takes
// the file exactly as rehash and verify write it: every member there,
// spelled as they spell it, none repeated, none other (canonicalized, it
// equals its struct marshaled and canonicalized).
func readShardSummary(path string) (*shardSummary, error) {
	b, _, err := readBounded(path, summaryKind)
	if err != nil {
		return nil, fmt.Errorf("%s", ioMessage(err))
	}
	s := &shardSummary{path: path, count: 1}
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
	if s.Shard != nil {
		s.index, s.count = s.Shard.Index, s.Shard.Count
	}
	if verify {
		s.accepted, s.rejected = *s.OK, *s.Failed
	} else {
		s.accepted, s.rejected = *s.Accepted, *s.Rejected
	}
	return s, nil
}

// countProblem returns why the counts and bounds of s cannot be those of
// a run, or "".
func countProblem(s *shardSummary) string {
	in := s.Inputs[0]
	r := in.Range
	switch {
	case s.MaxRecord < 1:
		return fmt.Sprintf("max_record %d", s.MaxRecord)
	case in.Compression != "none" && in.Compression != "gzip" && in.Compression != "zstd":
		return "compression " + quote(in.Compression)
	case s.Records < 0 || s.accepted < 0 || s.rejected < 0 || in.Lines < 0 || s.Output.Bytes < 0:
		return fmt.Sprintf("a negative count: %s, %s, %d + %d outcomes, %s", plural(in.Lines, "line", "lines"), plural(s.Records, "record", "records"), s.accepted, s.rejected, plural(s.Output.Bytes, "output byte", "output bytes"))
	case r.Start < 0 || r.End < r.Start || in.Size != nil && *in.Size < r.End:
		return fmt.Sprintf("the range [%d, %d) of an input of %s", r.Start, r.End, sizeText(in.Size))
	case in.FirstLine < 1 || in.FirstLine > math.MaxInt64-in.Lines:
		return fmt.Sprintf("first line %d, and %s", in.FirstLine, plural(in.Lines, "line", "lines"))
	case in.Lines != s.Records || s.rejected > s.Records || s.accepted != s.Records-s.rejected:
		return fmt.Sprintf("its counts do not add up: %s, %s, %d + %d outcomes", plural(in.Lines, "line", "lines"), plural(s.Records, "record", "records"), s.accepted, s.rejected)
	}
	var classes int64
	for name, n := range s.Classes {
		if n < 1 || n > s.rejected-classes {
			return fmt.Sprintf("its classes do not add up to the %s %s: %s %d", plural(s.rejected, "record", "records"), map[bool]string{true: "failed", false: "rejected"}[*s.Command == "verify"], quote(name), n)
		}
		classes += n
	}
	if classes != s.rejected {
		return fmt.Sprintf("its classes add up to %d, not to the %s %s", classes, plural(s.rejected, "record", "records"), map[bool]string{true: "failed", false: "rejected"}[*s.Command == "verify"])
	}
	return ""
}

// coverage returns the reasons, if any, why sums are not the summaries of
// the shards of one run that cover its input exactly once, in order, all
// complete.
func coverage(sums []*shardSummary) []string {
	var problems []string
	add := func(s *shardSummary, format string, args ...any) {
		problems = append(problems, fileField(s.path)+": "+fmt.Sprintf(format, args...))
	}
	first := sums[0]
	in0 := first.Inputs[0]
	if first.count > int64(len(sums))+maxMissing {
		// Do not make room for a count that may be anything.
		return []string{fmt.Sprintf("%s, for %s", plural(len(sums), "summary", "summaries"), plural(first.count, "shard", "shards"))}
	}
	byIndex := make([]*shardSummary, first.count)
	for _, s := range sums {
		in := s.Inputs[0]
		switch {
		case *s.Command != *first.Command || *s.Profile != *first.Profile || s.MaxRecord != first.MaxRecord:
			add(s, "archive %s --profile %s --max-record %d, where %s has archive %s --profile %s --max-record %d", *s.Command, *s.Profile, s.MaxRecord, fileField(first.path), *first.Command, *first.Profile, first.MaxRecord)
			continue
		case *in.Name != *in0.Name || in.Compression != in0.Compression || !sameSize(in.Size, in0.Size):
			add(s, "the input %s, where %s has %s", describeInput(s), fileField(first.path), describeInput(first))
			continue
		case s.count != first.count:
			add(s, "shard %d of %d, where %s is a shard of %d", s.index, s.count, fileField(first.path), first.count)
			continue
		case byIndex[s.index] != nil:
			add(s, "shard %d of %d again (also %s)", s.index, s.count, fileField(byIndex[s.index].path))
			continue
		}
		byIndex[s.index] = s
		if !*s.Complete {
			add(s, "shard %d of %d is incomplete: its run stopped on an error", s.index, s.count)
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
				problems = append(problems, fmt.Sprintf("shard %d of %d is missing", i, first.count))
			}
			gap = true
			continue
		}
		in := s.Inputs[0]
		if !gap && (in.Range.Start != end || in.FirstLine != line) {
			add(s, "shard %d of %d starts at byte %d, line %d, where the shards before it end at byte %d, line %d", i, first.count, in.Range.Start, in.FirstLine, end, line)
		} else if !gap && in.Range.StartSHA256 != read {
			add(s, "shard %d of %d read other bytes before its range than the shards before it: the SHA-256 of the input's bytes [0, %d) is %s there, %s for the shards before it (the input differs between the runs)", i, first.count, end, in.Range.StartSHA256, read)
		}
		end, line, gap = in.Range.End, in.FirstLine+in.Lines, false
		read = in.Range.EndSHA256
	}
	if missing > maxMissingListed {
		problems = append(problems, fmt.Sprintf("and %s of %d missing", plural(missing-maxMissingListed, "more shard is", "more shards are"), first.count))
	}
	if len(problems) == 0 && (in0.Size == nil || end != *in0.Size) {
		add(byIndex[len(byIndex)-1], "the last shard ends at byte %d, before the end of the input (%s)", end, sizeText(in0.Size))
	}
	return problems
}

func sameSize(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// sizeText returns the size *n as "N bytes", or "an unknown size".
func sizeText(n *int64) string {
	if n == nil {
		return "an unknown size"
	}
	return plural(*n, "byte", "bytes")
}

// describeInput names the input of a summary: name, compression, size.
func describeInput(s *shardSummary) string {
	in := s.Inputs[0]
	return quote(*in.Name) + " (" + in.Compression + ", " + sizeText(in.Size) + ")"
}

// joined returns the combined summary of the shards sums, which cover
// their input (coverage found no problem), and the count of records
// rejected or not verified: the summary of an unsharded run, with
// "shards":N for "shard", and in place of "output" the shards' outputs,
// whose SHA-256 digests do not combine into that of their concatenation:
//
//	"outputs":[{"index":0,"bytes":…,"sha256":"sha256:…"},…]
func joined(sums []*shardSummary) ([]byte, int64) {
	sums = slices.Clone(sums)
	slices.SortFunc(sums, func(a, b *shardSummary) int { return cmp.Compare(a.index, b.index) })
	total := archiveSummary{command: *sums[0].Command, profile: *sums[0].Profile, maxRecord: sums[0].MaxRecord, classes: map[string]int64{},
		shards: int64(len(sums)), outputs: []shardOutput{}, complete: true}
	in0 := sums[0].Inputs[0]
	in := &inputSummary{name: *in0.Name, compression: in0.Compression, size: *in0.Size, end: *in0.Size, firstLine: 1,
		startSHA256: emptySHA256, endSHA256: sums[len(sums)-1].Inputs[0].Range.EndSHA256}
	total.inputs = []*inputSummary{in}
	for _, s := range sums {
		in.lines += s.Inputs[0].Lines
		total.records += s.Records
		total.ok += s.accepted
		total.failed += s.rejected
		for k, v := range s.Classes {
			total.classes[k] += v
		}
		total.outputs = append(total.outputs, shardOutput{s.index, outputSummary{s.Output.Bytes, s.Output.SHA256}})
	}
	return total.appendJSON(nil), total.failed
}
