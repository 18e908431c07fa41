package batch

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/shortread"
)

// splitLines cuts a stream into its records as Stream documents them: the
// bytes before each "\n", and the bytes after the last one if any.
func splitLines(in []byte) [][]byte {
	lines := bytes.Split(in, []byte("\n"))
	if len(in) == 0 || in[len(in)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// sameResult reports how a Result of Stream differs from the Result of
// Records or Digests for the same record, or "". The messages of
// too-large differ by design ("line longer than" a line whose rest is not
// read, "input longer than" a record held whole); everything else is the
// same: number, digest, canonical form, and the error's class, offset,
// pointer and message.
func sameResult(got, want Result) string {
	switch {
	case got.Line != want.Line:
		return "line number"
	case got.Digest != want.Digest:
		return "digest"
	case !bytes.Equal(got.Canonical, want.Canonical) || (got.Canonical == nil) != (want.Canonical == nil):
		return "canonical form"
	case (got.Err == nil) != (want.Err == nil):
		return "acceptance"
	case got.Err == nil:
		return ""
	}
	g, ok1 := errors.AsType[*canon.Error](got.Err)
	w, ok2 := errors.AsType[*canon.Error](want.Err)
	switch {
	case !ok1 || !ok2:
		return "error type"
	case g.Class != w.Class || g.Offset != w.Offset || g.Pointer != w.Pointer:
		return "error class, offset or pointer"
	case g.Msg != w.Msg && g.Class != canon.ClassTooLarge:
		return "error message"
	}
	return ""
}

// FuzzStream holds Stream to Records: the lines of an input read through
// a reader of arbitrary short reads, in blocks of 1 to 512 bytes (so that
// records straddle blocks, and some are longer than a block), with 1 and
// 2 workers, get exactly the answers that Records gives for the same
// lines split in memory, one per line and in order, and the same summary
// but for Bytes (a stream's counts each "\n"). With the default bound and
// strict profile, the digests are also those of Digests.
func FuzzStream(f *testing.F) {
	// Small seeds: the bad lines in groups of up to 200 bytes. (The
	// fuzzer minimizes every input that finds new coverage, at one call a
	// step, so long seeds make it spend its time minimizing.)
	var group []string
	size, k := 0, byte(0)
	for _, l := range badLines {
		if len(l) > 200 {
			continue
		}
		if size+len(l) > 200 {
			k++
			f.Add([]byte(strings.Join(group, "\n")), []byte{k, 0x8f, 1}, uint16(k*7), uint16(k%3*50), k%2 == 0)
			group, size = nil, 0
		}
		group = append(group, l)
		size += len(l) + 1
	}
	f.Add([]byte(strings.Join(group, "\n")+"\n"), []byte{15}, uint16(0), uint16(0), true)
	f.Add([]byte("[1]\r\n\t[1 ,\t2]\r\n{}"), []byte{0, 1, 2}, uint16(7), uint16(0), false)
	f.Add([]byte("\n\n[1]\n"), []byte{0x80}, uint16(1), uint16(2), false)
	f.Add([]byte(`{"é":"😀\u00e9"}`+"\n"+`[1, 2]`), []byte{0, 0, 1}, uint16(3), uint16(0), true)
	f.Fuzz(runStreamCase)
}

func runStreamCase(t *testing.T, in, sizes []byte, block, maxRecord uint16, rfc bool) {
	profile := canon.Strict
	if rfc {
		profile = canon.RFC8785
	}
	opts := Options{Profile: profile, Mode: ModeBoth, BlockSize: int(block%512) + 1}
	if maxRecord != 0 {
		opts.MaxRecord = int(maxRecord%1024) + 1
	}
	lines := splitLines(in)
	ctx := context.Background()
	var want []Result
	wantSum, err := Records(ctx, lines, opts, func(r Result) error {
		r.Canonical = bytes.Clone(r.Canonical)
		want = append(want, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(lines) {
		t.Fatalf("Records: %d results for %d records", len(want), len(lines))
	}
	if opts.MaxRecord == 0 && !rfc {
		digests, err := Digests(ctx, lines, profile)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range digests {
			w := want[i]
			w.Canonical = nil
			if diff := sameResult(d, w); diff != "" {
				t.Fatalf("%q: record %d: Digests and Records differ in %s: %v, %v", in, i+1, diff, d, w)
			}
		}
	}
	for _, workers := range []int{1, 2} {
		opts.Workers = workers
		i := 0
		sum, err := Stream(ctx, shortread.New(in, sizes), opts, func(r Result) error {
			if i >= len(want) {
				t.Fatalf("%q (workers %d, block %d): Stream answers %d lines, there are %d", in, workers, opts.BlockSize, i+1, len(want))
			}
			if diff := sameResult(r, want[i]); diff != "" {
				t.Fatalf("%q (workers %d, block %d, bound %d, reads %v): line %d: Stream and Records differ in %s:\n%+v\n%+v",
					in, workers, opts.BlockSize, opts.MaxRecord, sizes, i+1, diff, r, want[i])
			}
			i++
			return nil
		})
		if err != nil {
			t.Fatalf("%q: Stream: %v", in, err)
		}
		if i != len(want) {
			t.Fatalf("%q (workers %d, block %d): Stream answers %d lines, there are %d", in, workers, opts.BlockSize, i, len(want))
		}
		if sum.Bytes != int64(len(in)) || sum.Records != wantSum.Records || sum.Accepted != wantSum.Accepted ||
			sum.Rejected != wantSum.Rejected || !maps.Equal(sum.ByClass, wantSum.ByClass) {
			t.Fatalf("%q (workers %d): Stream's summary %+v, Records' %+v (%d bytes)", in, workers, sum, wantSum, len(in))
		}
	}
}
