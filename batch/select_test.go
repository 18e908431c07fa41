package batch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// errNoTab is the error of tabSelect for a record without a tab.
var errNoTab = errors.New("no tab")

// tabSelect chooses what follows the first tab of a record.
func tabSelect(rec []byte) (int, int, error) {
	i := bytes.IndexByte(rec, '\t')
	if i < 0 {
		return 0, 0, errNoTab
	}
	return i + 1, len(rec), nil
}

// tabbed returns input with "id-N\t" put before four lines in five, and
// the others left as they are (most have no tab: errNoTab).
func tabbed(input []byte) []byte {
	var out []byte
	for i, line := range bytes.SplitAfter(input, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if i%5 != 4 {
			out = append(out, "id-"+strconv.Itoa(i)+"\t"...)
		}
		out = append(out, line...)
	}
	return out
}

// selectAnswer formats a result of a run with tabSelect: the number, the
// part's bounds, and the answer.
func selectAnswer(r Result, mode Mode) string {
	prefix := fmt.Sprintf("%d [%d,%d] %d: ", r.Line, r.Part[0], r.Part[1], len(r.Record))
	if r.Err == errNoTab {
		return prefix + "no tab"
	}
	return prefix + answer(Result{Line: r.Line, Digest: r.Digest, Canonical: r.Canonical, Err: r.Err}, mode)
}

// selectReference answers every line of input with tabSelect one at a
// time, as the pipeline must: a line past the bound is too-large without
// a call to Select; an error of canon in the part has its offset counted
// from the line's start. It also returns the summary.
func selectReference(input []byte, profile canon.Profile, maxRecord int, first int64) ([]string, Summary) {
	p, err := profile.WithMaxSize(maxRecord)
	if err != nil {
		panic(err)
	}
	var out []string
	var sum Summary
	lines := bytes.SplitAfter(input, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		size := len(l)
		line := bytes.TrimSuffix(l, []byte("\n"))
		r := Result{Line: first + int64(i), Record: line}
		if len(line) > maxRecord {
			r.Err = lineTooLarge(maxRecord)
			r.Record = nil
		} else if start, end, err := tabSelect(line); err != nil {
			r.Err = err
		} else {
			r.Part = [2]int{start, end}
			c, err := canon.Canonicalize(line[start:end], p)
			if e, ok := errors.AsType[*canon.Error](err); ok {
				e.Offset += int64(start)
				r.Err = e
			} else {
				r.Digest = sha256.Sum256(c)
				r.Canonical = c
			}
		}
		out = append(out, selectAnswer(r, ModeBoth))
		sum.add(&record{size: size, err: r.Err})
	}
	return out, sum
}

// TestSelect runs the bad-line inputs, with a tab-separated prefix on most
// lines, through Stream with Select choosing what follows the tab, at 1
// and 2 workers, every block size (lines longer than a block included),
// whole and short reads (2 workers, FirstLine 1000), and FirstLine 1 and
// 1000, and checks each answer
// (number, record, part, digest, canonical form, error with its offset in
// the line) and the summary against the one-at-a-time reference.
func TestSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for name, raw := range badInputs() {
		in := tabbed(raw)
		for _, profile := range []canon.Profile{canon.Strict, canon.RFC8785} {
			for _, first := range []int64{0, 1000} {
				want, wantSum := selectReference(in, profile, testMaxRecord, max(first, 1))
				for _, workers := range []int{1, 2} {
					for _, bs := range testBlockSizes {
						for _, rname := range []string{"whole", "1-7"} {
							if rname != "whole" && (testing.Short() || workers == 1 || first == 0) {
								continue // short reads once per input, profile and block size
							}
							opts := Options{Profile: profile, Mode: ModeBoth, Workers: workers, MaxRecord: testMaxRecord,
								BlockSize: bs, FirstLine: first, Select: tabSelect}
							label := fmt.Sprintf("%s/%s/first=%d/workers=%d/block=%d/%s", name, profile, first, workers, bs, rname)
							var got []string
							sum, err := Stream(context.Background(), readers[rname](in, rng), opts, func(r Result) error {
								got = append(got, selectAnswer(r, ModeBoth))
								return nil
							})
							if err != nil {
								t.Errorf("%s: %v", label, err)
							}
							compare(t, label, got, want)
							if fmt.Sprint(sum) != fmt.Sprint(wantSum) {
								t.Errorf("%s: summary %+v, want %+v", label, sum, wantSum)
							}
						}
					}
				}
			}
		}
	}
}

// TestSelectSummary checks that the records Select rejects with an error
// of its own count as rejected, and not in ByClass, and that the other
// classes still do.
func TestSelectSummary(t *testing.T) {
	in := "a\t[1]\nno tab\nb\t[1.5]\nc\t{\"a\":1,\"a\":2}\n"
	sum, err := Stream(context.Background(), strings.NewReader(in), Options{Select: tabSelect}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{Records: 4, Accepted: 1, Rejected: 3, Bytes: int64(len(in)),
		ByClass: map[canon.Class]int64{canon.ClassNonInteger: 1, canon.ClassDuplicateName: 1}}
	if fmt.Sprint(sum) != fmt.Sprint(want) {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
}

// TestSelectBadBounds checks that bounds outside the record are answered
// with an error, not a panic.
func TestSelectBadBounds(t *testing.T) {
	for _, bounds := range [][2]int{{-1, 2}, {2, 1}, {0, 4}, {5, 5}} {
		sel := func([]byte) (int, int, error) { return bounds[0], bounds[1], nil }
		var got []Result
		_, err := Records(context.Background(), [][]byte{[]byte("[1]")}, Options{Select: sel}, func(r Result) error {
			got = append(got, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("batch: Select returned the bounds [%d, %d) in a record of 3 bytes", bounds[0], bounds[1])
		if len(got) != 1 || got[0].Err == nil || got[0].Err.Error() != want {
			t.Errorf("bounds %v: %+v, want the error %q", bounds, got, want)
		}
	}
}

// TestFirstLine checks that Stream and Records number their results from
// Options.FirstLine, and that a negative one is refused.
func TestFirstLine(t *testing.T) {
	docs := [][]byte{[]byte("[1]"), []byte("[2]"), []byte("[")}
	for _, first := range []int64{0, 1, 7, 1 << 40} {
		var streamed, recorded []int64
		if _, err := Stream(context.Background(), strings.NewReader("[1]\n[2]\n["), Options{FirstLine: first}, func(r Result) error {
			streamed = append(streamed, r.Line)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := Records(context.Background(), docs, Options{FirstLine: first}, func(r Result) error {
			recorded = append(recorded, r.Line)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		f := max(first, 1)
		want := fmt.Sprint([]int64{f, f + 1, f + 2})
		if fmt.Sprint(streamed) != want || fmt.Sprint(recorded) != want {
			t.Errorf("FirstLine %d: Stream numbered %v, Records %v, want %s", first, streamed, recorded, want)
		}
	}
	if _, err := Stream(context.Background(), strings.NewReader("[1]\n"), Options{FirstLine: -1}, nil); err == nil {
		t.Error("FirstLine -1: no error")
	}
}
