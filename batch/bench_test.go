package batch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/impl"
	"github.com/klauspost/compress/zstd"
)

// The benchmarks run an archive of 4000 generated envelopes of 1-2 KB
// (1.46 KB on average), a third each canonical, compact with shuffled
// members (a quarter of them with \u escapes), and with spaces, through
// the pipeline with one and two workers (and two workers fed by a source
// goroutine: batch-w2-push, see pullWorkers) and, as baselines in the same
// run, through canon and SHA-256 one record at a time: with
// hashing.Sum256 (the single-message kernel the pipeline's lanes
// replace) and with crypto/sha256. TestStreamArchive checks the
// pipeline's answers on this generator against the one-at-a-time
// reference.
//
// Besides time, each reports records/s and cpu-ns/op, the CPU time of the
// whole process per op (every goroutine, the garbage collector included),
// which moves less than the time when other processes share the CPUs.
//
// Names are key=value for benchstat: compare the impl column within one
// run, e.g.
//
//	go test -run '^$' -bench 'Archive|Hash' -count 6 ./batch > /tmp/b.txt
//	benchstat -col /impl /tmp/b.txt
//
// sha= names the SHA-256 path: "default" is the one hashing chose for the
// CPU; others are forced through the registry of kernels (internal/impl), where the CPU has them.

const benchRecords = 4000

var (
	benchInput []byte   // the archive, as JSON Lines
	benchLines [][]byte // its lines
)

func benchArchive(b *testing.B) ([]byte, [][]byte) {
	b.Helper()
	if benchInput == nil {
		benchInput, benchLines = archive(11, benchRecords)
	}
	return benchInput, benchLines
}

// shaPaths returns the SHA-256 paths the benchmarks compare: the default
// and the multi-lane ones this CPU has.
func shaPaths() []string {
	paths := []string{"default"}
	for _, p := range impl.Lookup("hashing", "sha256").Available() {
		if p == "avx2" || p == "avx512" || p == "shani" {
			paths = append(paths, p)
		}
	}
	return paths
}

// withPath runs f with the SHA-256 path forced to name ("default": as
// detected).
func withPath(b *testing.B, name string, f func(b *testing.B)) {
	b.Run("sha="+name, func(b *testing.B) {
		if name != "default" {
			restore, err := impl.Lookup("hashing", "sha256").Select(name)
			if err != nil {
				b.Skip(err)
			}
			defer restore()
		}
		f(b)
	})
}

var sink hashing.Digest

func BenchmarkArchive(b *testing.B) {
	input, lines := benchArchive(b)
	report := func(b *testing.B, cpu0 int64) {
		b.ReportMetric(float64(len(lines))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		if cpu := cpuTime(); cpu0 > 0 && cpu > 0 {
			b.ReportMetric(float64(cpu-cpu0)/float64(b.N), "cpu-ns/op")
		}
	}
	// stream runs Stream over the archive as reader gives it, each run,
	// with forcePull set to pull (0: as the pipeline chooses).
	stream := func(b *testing.B, pull int, opts Options, reader func() io.Reader) {
		withPull(b, pull)
		b.SetBytes(int64(len(input)))
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			sum, err := Stream(context.Background(), reader(), opts, func(r Result) error {
				sink = r.Digest
				return nil
			})
			if err != nil || sum.Accepted != int64(len(lines)) {
				b.Fatalf("%+v, %v", sum, err)
			}
		}
		report(b, cpu0)
	}
	for _, path := range shaPaths() {
		withPath(b, path, func(b *testing.B) {
			// The archive is in memory, a bytes.Reader: WorkersRead.
			// batch-w2-push: two workers that take their blocks from a
			// source goroutine, as runs without WorkersRead or with
			// fewer workers than Ps do (pullWorkers); batch-w2 runs as
			// the pipeline chooses.
			for _, r := range []struct {
				workers int
				push    bool
			}{{1, false}, {2, false}, {2, true}} {
				name, pull := fmt.Sprintf("impl=batch-w%d", r.workers), 0
				if r.push {
					if path != "default" {
						continue
					}
					name, pull = name+"-push", 1
				}
				b.Run(name, func(b *testing.B) {
					stream(b, pull, Options{Workers: r.workers, WorkersRead: true}, func() io.Reader {
						return bytes.NewReader(input)
					})
				})
			}
			if path != "default" {
				return // the one-at-a-time baselines use the single-message kernel
			}
			// The archive compressed with zstd, read through
			// klauspost/compress's decoder by two workers, as the
			// archive package reads a compressed input: without
			// WorkersRead, the decoder on the source goroutine
			// (batch-w2-zstd); and with the workers taking turns at it
			// (batch-w2-zstd-pull), which measured 30% slower as a whole
			// process and is why WorkersRead is an option.
			compressed := zstdOf(b, input)
			for _, pull := range []int{0, 2} {
				name := "impl=batch-w2-zstd"
				if pull == 2 {
					name += "-pull"
				}
				b.Run(name, func(b *testing.B) {
					dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
					if err != nil {
						b.Fatal(err)
					}
					defer dec.Close()
					stream(b, pull, Options{Workers: 2}, func() io.Reader {
						if err := dec.Reset(bytes.NewReader(compressed)); err != nil {
							b.Fatal(err)
						}
						return dec
					})
				})
			}
			serial := func(name string, hash func([]byte) [32]byte) {
				b.Run("impl="+name, func(b *testing.B) {
					b.SetBytes(int64(len(input)))
					b.ReportAllocs()
					var cz canon.Canonicalizer
					cpu0 := cpuTime()
					for b.Loop() {
						rest := input
						for len(rest) > 0 {
							i := bytes.IndexByte(rest, '\n')
							v, err := cz.View(rest[:i])
							if err != nil {
								b.Fatal(err)
							}
							sink = hash(v)
							rest = rest[i+1:]
						}
					}
					report(b, cpu0)
				})
			}
			serial("serial-hashing", hashing.Sum256)
			serial("serial-sha256", sha256.Sum256)
		})
	}
}

// BenchmarkHash hashes the canonical forms of the archive alone: all at
// once with SumMany (the pipeline's lanes), and one at a time.
func BenchmarkHash(b *testing.B) {
	_, lines := benchArchive(b)
	var msgs [][]byte
	size := 0
	for _, l := range lines {
		c, err := canon.Canonicalize(l, canon.Strict)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, c)
		size += len(c)
	}
	out := make([]hashing.Digest, len(msgs))
	for _, path := range shaPaths() {
		withPath(b, path, func(b *testing.B) {
			run := func(name string, f func()) {
				b.Run("impl="+name, func(b *testing.B) {
					b.SetBytes(int64(size))
					b.ReportAllocs()
					for b.Loop() {
						f()
					}
					b.ReportMetric(float64(len(msgs))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
				})
			}
			run("summany", func() { hashing.SumMany(msgs, out) })
			if path != "default" {
				return
			}
			run("sum256", func() {
				for i, m := range msgs {
					out[i] = hashing.Sum256(m)
				}
			})
			run("sha256", func() {
				for i, m := range msgs {
					out[i] = sha256.Sum256(m)
				}
			})
		})
	}
}

// BenchmarkDigests runs Digests on the archive's records held in memory,
// pretty-printed over several lines, against canon and hashing one at a
// time.
func BenchmarkDigests(b *testing.B) {
	_, lines := benchArchive(b)
	docs := make([][]byte, len(lines))
	size := 0
	for i, l := range lines {
		var buf bytes.Buffer
		if err := json.Indent(&buf, l, "", "  "); err != nil {
			b.Fatal(err)
		}
		docs[i] = buf.Bytes()
		size += len(docs[i])
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=batch-w%d", workers), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := Records(context.Background(), docs, Options{Workers: workers}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("impl=serial-hashing", func(b *testing.B) {
		b.SetBytes(int64(size))
		var cz canon.Canonicalizer
		for b.Loop() {
			for _, d := range docs {
				v, err := cz.View(d)
				if err != nil {
					b.Fatal(err)
				}
				sink = hashing.Sum256(v)
			}
		}
	})
}

// TestBenchmarkDigests checks the pretty-printed documents of
// BenchmarkDigests: Records gives the digests of their lines.
func TestBenchmarkDigests(t *testing.T) {
	_, lines := archive(11, 200)
	docs := make([][]byte, len(lines))
	for i, l := range lines {
		var buf bytes.Buffer
		if err := json.Indent(&buf, l, "", "  "); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(buf.Bytes(), l) || !bytes.Contains(buf.Bytes(), []byte("\n  ")) {
			t.Fatalf("document %d is not pretty-printed", i)
		}
		docs[i] = buf.Bytes()
	}
	res, err := Digests(context.Background(), docs, canon.Strict)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		c, err := canon.Canonicalize(lines[i], canon.Strict)
		if err != nil || r.Err != nil || r.Digest != sha256.Sum256(c) {
			t.Fatalf("document %d: %v %v", i, r, err)
		}
	}
}

// zstdOf returns data compressed with zstd at the default level.
func zstdOf(tb testing.TB, data []byte) []byte {
	tb.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}
