package bench

// The large-record benchmarks: JSON Lines whose every record is longer
// than a block of package batch (256 KiB), so that each goes through its
// long-record path (read into memory of its own, canonicalized on its
// own), under the RFC 8785 profile, at one worker. This is the path on
// which `bbdigest canon --lines` once ran twice as slow as the one loop
// over the lines it had before it ran on batch (0ff4852): each long record
// was read into new memory and canonicalized by a new Canonicalizer, its
// size cleared, copied and dropped per record, and the garbage collector
// gave it back to the system (madvise). BenchmarkBatchLarge measures batch
// against that loop in the same run, so the ratio shows such a regression
// on any machine; BenchmarkLinesLargeProcess measures the command as a
// whole process, and against another build of it with -lines.base.
//
//	cd bench && go test -c -o /tmp/bench.test . &&
//	for i in $(seq 8); do /tmp/bench.test -test.run '^$' -test.bench 'BatchLarge|LinesLargeProcess' -test.benchtime 1x -lines.base /tmp/bbdigest-0ff4852; done > /tmp/large.txt
//	go run ./ratios -key impl -base serial < /tmp/large.txt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// Input names of the large-record benchmarks (input=<name>).
const (
	inLinesCanonical = "lines-canonical-900K" // canonical documents of about 900 KB, one per line
	inLinesMixed     = "lines-mixed-1M"       // documents of about 1 MiB on one line, spaced, shuffled, with escapes
)

// largeRecords is the number of lines of each large-record archive (about
// 87 MB canonical and 97 MB mixed), largeDistinct the number of distinct
// documents they cycle through (generating one takes about half a second).
const (
	largeRecords  = 96
	largeDistinct = 2
)

// makeLargeArchives returns the two large-record archives: largeRecords
// lines cycling through largeDistinct documents of the corpus's nested
// records (non-ASCII text, escapes, integers and floats), written
// canonical by a peer (about 900 KB each), or on one line with a space
// after each ',' and ':', members shuffled and some characters escaped
// (about 1 MiB each).
func makeLargeArchives() [2]archive {
	canonical := archive{name: inLinesCanonical}
	mixed := archive{name: inLinesMixed}
	var cdocs, mdocs [][]byte
	for i := range uint64(largeDistinct) {
		cdocs = append(cdocs, sizedDoc(newRand(30+4*i), false, 900_000, func(doc *node) []byte {
			return peerCanonical(writeDoc(doc, newRand(31+4*i), writeOptions{shuffle: true, escapes: true}))
		}))
		mdocs = append(mdocs, sizedDoc(newRand(32+4*i), false, mib, func(doc *node) []byte {
			return writeDoc(doc, newRand(33+4*i), writeOptions{shuffle: true, escapes: true, spaced: true})
		}))
	}
	for _, x := range []struct {
		a    *archive
		docs [][]byte
	}{{&canonical, cdocs}, {&mixed, mdocs}} {
		for i := range largeRecords {
			x.a.data = append(append(x.a.data, x.docs[i%len(x.docs)]...), '\n')
		}
		rest := x.a.data
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			x.a.lines = append(x.a.lines, rest[:i])
			rest = rest[i+1:]
		}
	}
	return [2]archive{canonical, mixed}
}

var benchLargeArchives = sync.OnceValue(makeLargeArchives)

// largeModes are the modes of the large-record benchmarks (mode=<name>),
// named for the command that answers with them.
var largeModes = []struct {
	name string
	mode batch.Mode
}{{"canon", batch.ModeCanonical}, {"digest", batch.ModeDigest}}

// serialLines answers every line of r as `bbdigest canon|digest --lines`
// did before it ran on package batch (0ff4852), on one goroutine: a 64 KiB
// bufio.Reader, a line longer than it gathered into one buffer reused from
// line to line, one Canonicalizer's View, and hashing.Sum256 of the
// canonical form in ModeDigest. It calls answer with each canonical form
// or digest and returns the number of lines.
func serialLines(r io.Reader, p canon.Profile, mode batch.Mode, answer func(canonical []byte, d hashing.Digest)) (int, error) {
	cz := canon.New(p)
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return n, err
		}
		if len(line) == 0 {
			return n, nil
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		v, cerr := cz.View(line)
		if cerr != nil {
			return n, fmt.Errorf("line %d: %w", n+1, cerr)
		}
		n++
		if mode == batch.ModeDigest {
			answer(nil, hashing.Sum(v))
		} else {
			answer(v, hashing.Digest{})
		}
		if err == io.EOF {
			return n, nil
		}
	}
}

var sinkView []byte

// BenchmarkBatchLarge answers the large-record archives under canon.RFC8785,
// with canonical forms (mode=canon) and digests (mode=digest):
// impl=batch-w1 with batch.Stream and one worker, as `bbdigest canon
// --lines --workers 1` does, and impl=serial with one loop over the lines
// (serialLines), as the command did before it ran on batch. Compare
// impl=batch-w1 with impl=serial of the same round: batch must not be the
// slower. Besides the time it reports records/s and cpu-ns/op, the CPU
// time of the process (the garbage collector's included) per op, which a
// loaded machine disturbs less than the time.
func BenchmarkBatchLarge(b *testing.B) {
	logCorpusSeed(b)
	for _, in := range benchLargeArchives() {
		for _, m := range largeModes {
			b.Run("input="+in.name+"/mode="+m.name, func(b *testing.B) {
				run := func(impl string, f func() (int, error)) {
					b.Run("impl="+impl, func(b *testing.B) {
						b.SetBytes(int64(len(in.data)))
						b.ReportAllocs()
						cpu0 := cpuTime()
						for b.Loop() {
							if n, err := f(); err != nil || n != len(in.lines) {
								b.Fatalf("%d records answered, %v; want %d", n, err, len(in.lines))
							}
						}
						b.ReportMetric(float64(len(in.lines))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
						if cpu := cpuTime(); cpu0 > 0 && cpu > 0 {
							b.ReportMetric(float64(cpu-cpu0)/float64(b.N), "cpu-ns/op")
						}
					})
				}
				run("serial", func() (int, error) {
					return serialLines(bytes.NewReader(in.data), canon.RFC8785, m.mode, func(v []byte, d hashing.Digest) {
						sinkView, sinkSum = v, d
					})
				})
				run("batch-w1", func() (int, error) {
					sum, err := batch.Stream(context.Background(), bytes.NewReader(in.data), batch.Options{Profile: canon.RFC8785, Mode: m.mode, Workers: 1}, func(r batch.Result) error {
						if r.Err != nil {
							return r.Err
						}
						sinkView, sinkSum = r.Canonical, r.Digest
						return nil
					})
					return int(sum.Accepted), err
				})
			})
		}
	}
}

// TestBatchLargeAgrees checks BenchmarkBatchLarge's archives and its two
// implementations: every record is longer than a batch block and on one
// line; the canonical archive's records are 900 to 950 KB and canonical,
// the mixed archive's about 1 MiB and not; and batch (one and two workers)
// and serialLines give every record the digest and canonical form that
// jsontext and crypto/sha256 give it.
func TestBatchLargeAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: generates 180 MB of records")
	}
	peer := digesterOf("jsontext+sha256")()
	for _, in := range benchLargeArchives() {
		if len(in.lines) != largeRecords {
			t.Fatalf("%s: %d lines, want %d", in.name, len(in.lines), largeRecords)
		}
		type answer struct {
			digest    [32]byte
			canonical []byte
		}
		want := make(map[string]answer) // by record
		for i, l := range in.lines {
			if len(l) <= batch.DefaultBlockSize {
				t.Errorf("%s: record %d: %d bytes, not longer than a block", in.name, i+1, len(l))
			}
			if _, ok := want[string(l)]; ok {
				continue
			}
			c, err := canon.Canonicalize(l, canon.RFC8785)
			if err != nil {
				t.Fatalf("%s: record %d: %v", in.name, i+1, err)
			}
			want[string(l)] = answer{peer(l), c}
			switch isCanonical := bytes.Equal(c, l); in.name {
			case inLinesCanonical:
				if len(l) < 900_000 || len(l) > 950_000 || !isCanonical {
					t.Errorf("%s: record %d: %d bytes, canonical %v; want 900 to 950 KB, canonical", in.name, i+1, len(l), isCanonical)
				}
			case inLinesMixed:
				if len(l) < mib || len(l) > mib+mib/16 || isCanonical {
					t.Errorf("%s: record %d: %d bytes, canonical %v; want about 1 MiB, not canonical", in.name, i+1, len(l), isCanonical)
				}
			}
		}
		check := func(impl string, line int, v []byte, d hashing.Digest, mode batch.Mode) {
			w := want[string(in.lines[line-1])]
			if mode == batch.ModeDigest && [32]byte(d) != w.digest {
				t.Errorf("%s: %s: record %d: digest %v, want %x", in.name, impl, line, d, w.digest)
			}
			if mode == batch.ModeCanonical && !bytes.Equal(v, w.canonical) {
				t.Errorf("%s: %s: record %d: canonical form of %d bytes differs from canon's", in.name, impl, line, len(v))
			}
		}
		for _, m := range largeModes {
			n := 0
			got, err := serialLines(bytes.NewReader(in.data), canon.RFC8785, m.mode, func(v []byte, d hashing.Digest) {
				n++
				check("serial", n, v, d, m.mode)
			})
			if err != nil || got != largeRecords {
				t.Errorf("%s: serial, mode %s: %d records, %v", in.name, m.name, got, err)
			}
			for _, workers := range []int{1, 2} {
				impl := fmt.Sprintf("batch-w%d", workers)
				sum, err := batch.Stream(context.Background(), bytes.NewReader(in.data), batch.Options{Profile: canon.RFC8785, Mode: m.mode, Workers: workers}, func(r batch.Result) error {
					if r.Err != nil {
						return r.Err
					}
					check(impl, int(r.Line), r.Canonical, r.Digest, m.mode)
					return nil
				})
				if err != nil || sum.Accepted != largeRecords {
					t.Errorf("%s: %s, mode %s: %+v, %v", in.name, impl, m.name, sum, err)
				}
			}
		}
	}
}

var (
	largeDir   = flag.String("large.dir", "", "TestWriteLargeArchives writes the large-record archives to `dir`, one NAME.jsonl each")
	largeLines = flag.Int("large.records", largeRecords, "lines of each archive TestWriteLargeArchives writes, cycling through the generator's documents as it does")
)

// TestWriteLargeArchives writes the large-record archives of
// BenchmarkBatchLarge (makeLargeArchives) to files in -large.dir, for the
// report's whole-process rows (bench/report), with -large.records lines
// each: the generator's lines, cycled (its records cycle through
// largeDistinct documents, so any count is the archive it would make with
// that many). It does nothing without -large.dir.
func TestWriteLargeArchives(t *testing.T) {
	if *largeDir == "" {
		t.Skip("no -large.dir")
	}
	if *largeLines < 1 {
		t.Fatalf("-large.records %d: want at least 1", *largeLines)
	}
	for _, a := range benchLargeArchives() {
		f, err := os.Create(filepath.Join(*largeDir, a.name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		for i := range *largeLines {
			w.Write(a.lines[i%len(a.lines)])
			w.WriteByte('\n')
		}
		err = w.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

var linesBase = flag.String("lines.base", "", "BenchmarkLinesLargeProcess also runs the bbdigest `binary` (another build, to compare with) as impl=base")

// largeFiles are the large-record archives as files, and the bbdigest
// built from the checkout, made once per process in the package's
// temporary directory.
var largeFiles = sync.OnceValues(func() (f struct {
	bbdigest string
	archives [2]string
}, err error) {
	dir, err := benchTempDir()
	if err != nil {
		return f, err
	}
	f.bbdigest = filepath.Join(dir, "bbdigest-large")
	if err := goBuild("..", "./cmd/bbdigest", f.bbdigest); err != nil {
		return f, err
	}
	for i, a := range benchLargeArchives() {
		f.archives[i] = filepath.Join(dir, a.name+".jsonl")
		if err := os.WriteFile(f.archives[i], a.data, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
})

// knowsWorkers reports whether the bbdigest binary prog has --workers: a
// build from before package batch (0ff4852) has not, and always answers
// --lines on one goroutine.
func knowsWorkers(prog string) bool {
	cmd := exec.Command(prog, "digest", "--lines", "--workers", "1")
	cmd.Stdin = bytes.NewReader(nil)
	return cmd.Run() == nil
}

// BenchmarkLinesLargeProcess runs `bbdigest canon|digest --profile rfc8785
// --lines --workers 1` over the large-record archives as whole processes
// (the file read from the page cache, stdout to /dev/null):
// impl=bbdigest-w1 is the checkout's build; with -lines.base, impl=base is
// the build given (run without --workers if it does not have the flag), in
// the same round, so that one run compares two builds on this machine.
// Besides the time it reports records/s and cpu-ns/op, the process's CPU
// time.
func BenchmarkLinesLargeProcess(b *testing.B) {
	f, err := largeFiles()
	if err != nil {
		b.Fatal(err)
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	type impl struct {
		name, prog string
		workers    bool // give --workers 1
	}
	impls := []impl{{"bbdigest-w1", f.bbdigest, true}}
	if *linesBase != "" {
		impls = append(impls, impl{"base", *linesBase, knowsWorkers(*linesBase)})
	}
	for i, name := range []string{inLinesCanonical, inLinesMixed} {
		st, err := os.Stat(f.archives[i])
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range largeModes {
			b.Run("input="+name+"/mode="+m.name, func(b *testing.B) {
				for _, p := range impls {
					b.Run("impl="+p.name, func(b *testing.B) {
						args := []string{m.name, "--profile", "rfc8785", "--lines"}
						if p.workers {
							args = append(args, "--workers", "1")
						}
						b.SetBytes(st.Size())
						var cpu int64
						for b.Loop() {
							c, err := runFilter(p.prog, args, f.archives[i], devNull)
							if err != nil {
								b.Fatal(err)
							}
							cpu += c
						}
						b.ReportMetric(float64(largeRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
						b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
					})
				}
			})
		}
	}
}
