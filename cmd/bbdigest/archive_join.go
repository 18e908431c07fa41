package main

// "archive join SUMMARY...": checks that the --summary files of the shards
// of one run cover its input exactly once, in order, all complete, and
// prints their combined summary.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"

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

// shardSummary is a --summary file, read back.
type shardSummary struct {
	Command *string `json:"command"`
	Profile *string `json:"profile"`
	Shard   *struct {
		Index int64 `json:"index"`
		Count int64 `json:"count"`
	} `json:"shard"`
	Inputs []struct {
		Name        *string `json:"name"`
		Compression string  `json:"compression"`
		Size        *int64  `json:"size"`
		Range       *struct {
			Start int64 `json:"start"`
			End   int64 `json:"end"`
		} `json:"range"`
		FirstLine int64 `json:"first_line"`
		Lines     int64 `json:"lines"`
	} `json:"inputs"`
	Records  int64            `json:"records"`
	Accepted int64            `json:"accepted"`
	Rejected int64            `json:"rejected"`
	OK       int64            `json:"ok"`
	Failed   int64            `json:"failed"`
	Classes  map[string]int64 `json:"classes"`
	Output   *struct {
		Bytes  int64          `json:"bytes"`
		SHA256 hashing.Digest `json:"sha256"`
	} `json:"output"`
	Complete *bool `json:"complete"`

	path  string // the file it was read from
	index int64  // Shard.Index, or 0 without Shard
	count int64  // Shard.Count, or 1 without Shard
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

// readShardSummary reads a --summary file of rehash or verify.
func readShardSummary(path string) (*shardSummary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s", ioMessage(err))
	}
	s := &shardSummary{path: path, count: 1}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("not a summary of archive rehash or verify: %v", err)
	}
	switch {
	case s.Command == nil || *s.Command != "rehash" && *s.Command != "verify",
		s.Profile == nil, s.Output == nil, s.Complete == nil:
		return nil, fmt.Errorf("not a summary of archive rehash or verify")
	case len(s.Inputs) != 1 || s.Inputs[0].Name == nil || s.Inputs[0].Range == nil:
		return nil, fmt.Errorf("not the summary of a run over one input")
	case s.Shard != nil && (s.Shard.Count < 1 || s.Shard.Index < 0 || s.Shard.Index >= s.Shard.Count):
		return nil, fmt.Errorf("shard %d of %d", s.Shard.Index, s.Shard.Count)
	}
	if s.Shard != nil {
		s.index, s.count = s.Shard.Index, s.Shard.Count
	}
	if *s.Command == "verify" {
		s.Accepted, s.Rejected = s.OK, s.Failed
	}
	return s, nil
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
		return []string{fmt.Sprintf("%d summaries, for %d shards", len(sums), first.count)}
	}
	byIndex := make([]*shardSummary, first.count)
	for _, s := range sums {
		in := s.Inputs[0]
		switch {
		case *s.Command != *first.Command || *s.Profile != *first.Profile:
			add(s, "archive %s --profile %s, where %s has archive %s --profile %s", *s.Command, *s.Profile, fileField(first.path), *first.Command, *first.Profile)
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
		if in.Lines != s.Records || s.Accepted+s.Rejected != s.Records {
			add(s, "its counts do not add up: %d lines, %d records, %d + %d outcomes", in.Lines, s.Records, s.Accepted, s.Rejected)
		}
	}
	if len(problems) > 0 {
		return problems
	}
	// Every shard once: now the ranges must follow one another.
	var end, line int64 = 0, 1
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
		}
		end, line, gap = in.Range.End, in.FirstLine+in.Lines, false
	}
	if missing > maxMissingListed {
		problems = append(problems, fmt.Sprintf("and %d more shards of %d are missing", missing-maxMissingListed, first.count))
	}
	if len(problems) == 0 && (in0.Size == nil || end != *in0.Size) {
		add(byIndex[len(byIndex)-1], "the last shard ends at byte %d, before the end of the input at %s", end, sizeText(in0.Size))
	}
	return problems
}

func sameSize(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func sizeText(n *int64) string {
	if n == nil {
		return "an unknown size"
	}
	return strconv.FormatInt(*n, 10)
}

// describeInput names the input of a summary: name, compression, size.
func describeInput(s *shardSummary) string {
	in := s.Inputs[0]
	return quote(*in.Name) + " (" + in.Compression + ", " + sizeText(in.Size) + " bytes)"
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
	total := archiveSummary{command: *sums[0].Command, profile: *sums[0].Profile, classes: map[string]int64{},
		shards: int64(len(sums)), outputs: []shardOutput{}, complete: true}
	in0 := sums[0].Inputs[0]
	in := &inputSummary{name: *in0.Name, compression: in0.Compression, size: *in0.Size, end: *in0.Size, firstLine: 1}
	total.inputs = []*inputSummary{in}
	for _, s := range sums {
		in.lines += s.Inputs[0].Lines
		total.records += s.Records
		total.ok += s.Accepted
		total.failed += s.Rejected
		for k, v := range s.Classes {
			total.classes[k] += v
		}
		total.outputs = append(total.outputs, shardOutput{s.index, outputSummary{s.Output.Bytes, s.Output.SHA256}})
	}
	return total.appendJSON(nil), total.failed
}
