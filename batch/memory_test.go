package batch

import (
	"github.com/bbdigest/bbdigest/internal/race"
	"github.com/bbdigest/bbdigest/internal/selfexec"

	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/peakmem"
)

// TestMemoryFlat streams large generated inputs, never held, through the
// pipeline with 8 workers, whose source can read far faster than they
// work, and samples the heap in use: it stays within a bound set by the
// blocks in flight, whatever the input's size. Envelopes of 1-2 KB fill a block's
// bytes; lines of two bytes fill its count of records.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("streams 200 MB")
	}
	pool, _ := cyclePool(t)
	for _, tt := range []struct {
		name  string
		pool  [][]byte
		size  int64
		every int64 // results between samples
	}{
		{"envelopes", pool, 200 << 20, 2000},
		{"short lines", [][]byte{[]byte("1\n"), []byte("[]\n")}, 24 << 20, 100_000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base, peak := ms.HeapInuse, uint64(0)
			var n int64
			sum, err := Stream(context.Background(), newGenReader(tt.pool, tt.size), Options{Workers: 8}, func(r Result) error {
				if n++; n%tt.every == 0 {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Bytes != tt.size {
				t.Errorf("%d bytes answered, want %d", sum.Bytes, tt.size)
			}
			// 18 blocks of 256 KiB of input, as much again of canonical
			// forms, 4096 records of 88 bytes each: 15 MiB; garbage
			// from rejected lines and the collector's slack on top.
			const limit = 40 << 20
			t.Logf("%d records; peak heap in use %.1f MiB above the %.1f MiB before", sum.Records, float64(peak-base)/(1<<20), float64(base)/(1<<20))
			if peak > base+limit {
				t.Errorf("peak heap in use %d bytes above the start, want at most %d", peak-base, limit)
			}
		})
	}
}

// The child mode of TestPeakMemory: with childEnv set to a case's name,
// TestPeakMemoryChild runs that case and writes the process's peak
// resident memory to the file named by hwmEnv.
const (
	childEnv = "BATCH_TEST_CHILD"
	hwmEnv   = "BATCH_TEST_HWM"
)

// peakCase is a run measured in a child process: its input, generated as
// it is read, and the answers it must give.
type peakCase struct {
	opts  Options
	input func() io.Reader
	want  func() string // the answers, one line each: a digest or an error line
	limit int           // peak resident memory, bytes
}

func sha(s string) string { return hashing.Sum([]byte(s)).String() }

// longArray returns a reader of "[1, 1, ..., 1]", an array of k ones in
// 3k bytes, and the digest of its canonical form.
func longArray(k int) (io.Reader, string) {
	r := io.MultiReader(strings.NewReader("[1"), newGenReader([][]byte{[]byte(", 1")}, int64(3*(k-1))), strings.NewReader("]"))
	return r, sha("[" + strings.Repeat("1,", k-1) + "1]")
}

var peakCases = map[string]peakCase{
	// A line of 300 MB past the default 256 MiB bound, with 8 workers: it
	// costs the bound once (and the chunk being read), not per worker or
	// per block.
	"too-large": {
		opts: Options{Workers: 8},
		input: func() io.Reader {
			return io.MultiReader(strings.NewReader("[1]\n["), io.LimitReader(spaces{}, 300e6), strings.NewReader("]\n[2]\n"))
		},
		want: func() string {
			return sha("[1]") + "\n" + fmt.Sprintf("error too-large %d line longer than the %d-byte bound within \"\"", canon.DefaultMaxSize, canon.DefaultMaxSize) + "\n" + sha("[2]") + "\n"
		},
		limit: canon.DefaultMaxSize + canon.DefaultMaxSize/10 + 32<<20,
	},
	// Five lines of 40 MB within a bound of 48 MiB, with 8 workers: each
	// is gathered and canonicalized, and only one is held at a time, by
	// the long-record token.
	"long lines": {
		opts: Options{Workers: 8, MaxRecord: 48 << 20},
		input: func() io.Reader {
			var rs []io.Reader
			for range 5 {
				r, _ := longArray(longK)
				rs = append(rs, r, strings.NewReader("\n[2]\n"))
			}
			return io.MultiReader(rs...)
		},
		want: func() string {
			_, d := longArray(longK)
			return strings.Repeat(d+"\n"+sha("[2]")+"\n", 5)
		},
		// One line held at a time: read in chunks and joined (2x the
		// line), then its compact and canonical forms and canon's scratch
		// memory for 13 million elements: about 5x the line in all. Two
		// lines held at once take well past 6x.
		limit: 6*40e6 + 16<<20,
	},
}

// longK is the number of elements of the lines of "long lines": 40 MB.
const longK = 40_000_000 / 3

// TestPeakMemory runs each peakCase in a child process and checks its
// answers and its peak resident memory.
func TestPeakMemory(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("streams several hundred MB")
	}
	if _, err := peakmem.VmHWM(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	for name, tt := range peakCases {
		t.Run(name, func(t *testing.T) {
			hwmFile := filepath.Join(dir, "hwm")
			cmd := selfexec.Command("-test.run=^TestPeakMemoryChild$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+name, hwmEnv+"="+hwmFile, "GOGC=100", "GOMEMLIMIT=off")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			b, err := os.ReadFile(hwmFile)
			if err != nil {
				t.Fatal(err)
			}
			hwm, _ := strconv.Atoi(string(b))
			t.Logf("peak resident memory %.1f MiB, limit %.1f MiB", float64(hwm)/(1<<20), float64(tt.limit)/(1<<20))
			if hwm > tt.limit {
				t.Errorf("peak resident memory %d bytes, want at most %d", hwm, tt.limit)
			}
		})
	}
}

// TestPeakMemoryChild is the child of TestPeakMemory.
func TestPeakMemoryChild(t *testing.T) {
	name := os.Getenv(childEnv)
	if name == "" {
		t.Skip("run by TestPeakMemory")
	}
	tt := peakCases[name]
	var got bytes.Buffer
	_, err := Stream(context.Background(), tt.input(), tt.opts, func(r Result) error {
		if e, ok := errors.AsType[*canon.Error](r.Err); ok {
			got.WriteString(errorLine(e))
		} else {
			got.WriteString(r.Digest.String())
		}
		got.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := tt.want(); got.String() != want {
		t.Errorf("answers\n%.2000s\nwant\n%.2000s", got.String(), want)
	}
	hwm, err := peakmem.VmHWM()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv(hwmEnv), []byte(strconv.Itoa(hwm)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRunsReuseMemory runs Stream and Records again and again: once warm,
// a run takes its blocks and its workers' Canonicalizers from the runs
// before, so it allocates a few KB: far less than one block's buffers
// (256 KiB of input and as much for canonical forms), or than the arenas
// of two Canonicalizers grown anew (about 100 KB).
func TestRunsReuseMemory(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector drops sync.Pool items at random")
	}
	in, docs := archive(3, 2000)
	for name, run := range map[string]func() error{
		"Stream": func() error {
			_, err := Stream(context.Background(), bytes.NewReader(in), Options{Workers: 2}, nil)
			return err
		},
		"Records": func() error {
			_, err := Records(context.Background(), docs, Options{Workers: 2}, nil)
			return err
		},
	} {
		const runs = 20
		var before, after runtime.MemStats
		for i := 0; i < runs+3; i++ {
			if i == 3 {
				runtime.ReadMemStats(&before)
			}
			if err := run(); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		perRun := (after.TotalAlloc - before.TotalAlloc) / runs
		t.Logf("%s: %d bytes allocated per run of %d bytes", name, perRun, len(in))
		if limit := uint64(32 << 10); perRun > limit {
			t.Errorf("%s: %d bytes allocated per run, want at most %d", name, perRun, limit)
		}
	}
}

// TestLongRecordsReuseMemory runs records longer than a block, one after
// another, through Stream and Records: the memory a long line is gathered
// into and the Canonicalizer of long records are kept from one long record
// to the next, so once the first ones have grown them a long record
// allocates almost nothing, not its size again. (When each was read into
// new memory and canonicalized by a new Canonicalizer, the memory was
// cleared, copied and dropped per record, and the garbage collector gave
// it back to the system: "canon --lines" took twice as long on records of
// 900 KB as one loop over the lines with one Canonicalizer.)
func TestLongRecordsReuseMemory(t *testing.T) {
	_, recs := archive(7, 400)
	// Two long records, 4 and 3 blocks of 16 KiB: the first written with
	// spaces (canon writes its canonical form in its arena), the second
	// canonical (its canonical form is the record itself).
	spaced := append([]byte("[ "), bytes.Join(recs[:200], []byte(", "))...)
	spaced = append(spaced, " ]"...)
	canonical, err := canon.Canonicalize(append(append([]byte("["), bytes.Join(recs[200:], []byte(","))...), ']'), canon.RFC8785)
	if err != nil {
		t.Fatal(err)
	}
	const blockSize = 16 << 10
	if len(spaced) < 4*blockSize || len(canonical) < 3*blockSize || len(canonical) >= len(spaced) {
		t.Fatalf("records of %d and %d bytes, want over 4 and 3 blocks, the first longer", len(spaced), len(canonical))
	}
	// The inputs of runs of n long records, made before any is measured.
	const extra = 10
	lines, docs := map[int][]byte{}, map[int][][]byte{}
	for _, n := range []int{2, 2 + extra} {
		for i := range n {
			rec := [][]byte{spaced, canonical}[i%2]
			lines[n] = append(append(lines[n], rec...), '\n')
			docs[n] = append(docs[n], rec)
		}
	}
	for _, mode := range []Mode{ModeDigest, ModeCanonical} {
		opts := Options{Workers: 2, BlockSize: blockSize, Mode: mode}
		for name, run := range map[string]func(n int) (Summary, error){
			"Stream": func(n int) (Summary, error) {
				return Stream(context.Background(), bytes.NewReader(lines[n]), opts, nil)
			},
			"Records": func(n int) (Summary, error) {
				return Records(context.Background(), docs[n], opts, nil)
			},
		} {
			// The allocations of a run of 2+extra long records, less those
			// of a run of 2, over extra: the cost of a long record once the
			// run is warm, without the run's set-up.
			alloc := func(n int) uint64 {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				sum, err := run(n)
				runtime.ReadMemStats(&after)
				if err != nil || sum.Accepted != int64(n) {
					t.Fatalf("%s %v: %d records: %+v, %v", name, mode, n, sum, err)
				}
				return after.TotalAlloc - before.TotalAlloc
			}
			run(2) // the blocks and workers of the pools
			base, more := alloc(2), alloc(2+extra)
			perRecord := int64(more-base) / extra
			t.Logf("%s %v: %d bytes allocated per long record of %d and %d bytes", name, mode, perRecord, len(spaced), len(canonical))
			if limit := int64(len(canonical) / 16); perRecord > limit {
				t.Errorf("%s %v: %d bytes allocated per long record, want at most %d", name, mode, perRecord, limit)
			}
		}
	}
}
