package batch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// errOddDigest is the error of oddCheck.
var errOddDigest = errors.New("odd digest")

// oddCheck returns a Check that rejects the records whose canonical form
// has a SHA-256 with an odd first byte, after checking that what it is
// given is what the reference computes one record at a time: the record,
// its canonical form and, when digests are computed, their digest. It
// counts its calls in calls, and reports a mismatch in bad.
func oddCheck(profile canon.Profile, maxRecord int, mode Mode, calls *atomic.Int64, bad *atomic.Pointer[string]) func([]byte, []byte, hashing.Digest) error {
	p, err := profile.WithMaxSize(maxRecord)
	if err != nil {
		panic(err)
	}
	return func(record, canonical []byte, d hashing.Digest) error {
		calls.Add(1)
		c, err := canon.Canonicalize(record, p)
		sum := sha256.Sum256(c)
		var want hashing.Digest
		if mode.digests() {
			want = sum
		}
		if err != nil || !bytes.Equal(c, canonical) || d != want {
			msg := fmt.Sprintf("Check(%q, %q, %v): want canonical %q (%v), digest %v", record, canonical, d, c, err, want)
			bad.CompareAndSwap(nil, &msg)
		}
		if sum[0]&1 == 1 {
			return errOddDigest
		}
		return nil
	}
}

// checkReference answers input as reference does, with the records
// oddCheck rejects answered with its error.
func checkReference(input []byte, profile canon.Profile, maxRecord int, mode Mode) ([]string, Summary, int64) {
	p, err := profile.WithMaxSize(maxRecord)
	if err != nil {
		panic(err)
	}
	var out []string
	var sum Summary
	var checked int64
	lines := bytes.SplitAfter(input, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		line := bytes.TrimSuffix(l, []byte("\n"))
		r := Result{Line: int64(i) + 1}
		if len(line) > maxRecord {
			r.Err = lineTooLarge(maxRecord)
		} else if c, err := canon.Canonicalize(line, p); err != nil {
			r.Err = err
		} else if checked++; sha256.Sum256(c)[0]&1 == 1 {
			r.Err = errOddDigest
		} else {
			r.Digest, r.Canonical = sha256.Sum256(c), c
		}
		out = append(out, checkAnswer(r, mode))
		sum.add(&record{size: len(l), err: r.Err})
	}
	return out, sum, checked
}

// checkAnswer formats a result of a run with oddCheck.
func checkAnswer(r Result, mode Mode) string {
	if r.Err == errOddDigest {
		return fmt.Sprintf("%d: odd digest", r.Line)
	}
	return answer(r, mode)
}

// TestCheck runs the bad-line inputs through Stream with a Check, in
// every mode, at 1 and 2 workers, every block size (lines longer than a
// block included), whole and short reads, and checks that Check is called
// once for each record canon accepts (never for one it rejects), with the
// record, its canonical form and its digest, and that the records it
// rejects are answered with its error and counted as rejected, not by
// class.
func TestCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for name, in := range badInputs() {
		for _, mode := range []Mode{ModeDigest, ModeCanonical, ModeBoth} {
			want, wantSum, wantCalls := checkReference(in, canon.Strict, testMaxRecord, mode)
			for _, workers := range []int{1, 2} {
				for _, bs := range testBlockSizes {
					for _, rname := range []string{"whole", "1-7"} {
						if rname != "whole" && (testing.Short() || workers == 1) {
							continue
						}
						label := fmt.Sprintf("%s/%s/workers=%d/block=%d/%s", name, mode, workers, bs, rname)
						var calls atomic.Int64
						var bad atomic.Pointer[string]
						opts := Options{Mode: mode, Workers: workers, MaxRecord: testMaxRecord, BlockSize: bs,
							Check: oddCheck(canon.Strict, testMaxRecord, mode, &calls, &bad)}
						var got []string
						sum, err := Stream(context.Background(), readers[rname](in, rng), opts, func(r Result) error {
							if r.Record == nil && r.Err == nil {
								t.Errorf("%s: line %d: no Record with Check set", label, r.Line)
							}
							got = append(got, checkAnswer(r, mode))
							return nil
						})
						if err != nil {
							t.Errorf("%s: %v", label, err)
						}
						if msg := bad.Load(); msg != nil {
							t.Errorf("%s: %s", label, *msg)
						}
						if calls.Load() != wantCalls {
							t.Errorf("%s: Check called %d times, want %d", label, calls.Load(), wantCalls)
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

// TestCheckRecords runs Check through Records, and with Select: Check is
// given the whole record and the canonical form of the part Select chose.
func TestCheckRecords(t *testing.T) {
	docs := [][]byte{[]byte(`{"b":1,"a":2}`), []byte(`[1,2]`), []byte(`x`), []byte("id\t{ \"z\" : [] }")}
	var calls atomic.Int64
	var bad atomic.Pointer[string]
	opts := Options{Check: oddCheck(canon.Strict, canon.DefaultMaxSize, ModeDigest, &calls, &bad)}
	var got []string
	if _, err := Records(context.Background(), docs[:3], opts, func(r Result) error {
		if r.Err == nil && !bytes.Equal(r.Record, docs[r.Line-1]) {
			t.Errorf("line %d: Record %q, want %q", r.Line, r.Record, docs[r.Line-1])
		}
		got = append(got, checkAnswer(r, ModeDigest))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want, _, wantCalls := checkReference(bytes.Join(docs[:3], []byte("\n")), canon.Strict, canon.DefaultMaxSize, ModeDigest)
	compare(t, "Records", got, want)
	if calls.Load() != wantCalls || bad.Load() != nil {
		t.Errorf("Records: %d calls, want %d; %v", calls.Load(), wantCalls, bad.Load())
	}

	var seen [][2][]byte
	opts = Options{Select: tabSelect, Check: func(record, canonical []byte, d hashing.Digest) error {
		seen = append(seen, [2][]byte{bytes.Clone(record), bytes.Clone(canonical)})
		if d != sha256.Sum256(canonical) {
			t.Errorf("Check(%q): digest %v, want that of %q", record, d, canonical)
		}
		return nil
	}, Workers: 1}
	if _, err := Records(context.Background(), docs[3:], opts, nil); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || string(seen[0][0]) != string(docs[3]) || string(seen[0][1]) != `{"z":[]}` {
		t.Errorf("with Select, Check saw %q", seen)
	}
}
