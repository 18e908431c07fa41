package bench

// The benchmarks of package batch and of "bbdigest digest --lines" (issue
// 15): an archive of envelope-sized records, hashed by batch with one and
// two workers, against jsontext's Canonicalize and crypto/sha256 one record
// at a time in the same run, and the whole command against a one-goroutine
// jsontext+sha256 line filter (./linefilter). Both double as tests: the
// answers are compared in TestBatchArchiveAgrees and
// TestLinesProcessAgrees.
//
// On a shared machine, run them in rounds, each round measuring every
// implementation once, back to back, and compare within rounds:
//
//	cd bench && go test -c -o /tmp/bench.test . &&
//	for i in $(seq 8); do /tmp/bench.test -test.run '^$' -test.bench 'Batch$|LinesProcess' -test.benchtime 1s; done > /tmp/batch.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl /tmp/batch.txt
//	go run ./ratios -key impl -base batch-w1 < /tmp/batch.txt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
)

// archive is an input of the batch benchmarks: JSON Lines of envelopes.
type archive struct {
	name  string
	data  []byte   // the records, each followed by "\n"
	lines [][]byte // the records, without their "\n"
}

// Archive names, used in benchmark names (input=<name>).
const (
	inArchiveMixed     = "envelopes-mixed"     // half written with spaces, half compact; members shuffled
	inArchiveCanonical = "envelopes-canonical" // the same records, canonical
)

// archiveRecords is the number of records of the in-process benchmark
// (about 6 MB, so some 24 blocks of batch's default size);
// processRecords, of the whole-process one (about 24 MB).
const (
	archiveRecords = 4000
	processRecords = 16000
)

// makeArchives returns the two archives of n records: envelopes in the
// §6.4 shape, each 1000 to 2000 bytes when written compactly, written
// either on one line with a space after each ',' and ':' or compactly,
// with members shuffled and, in one string in eight, some characters
// spelled as escapes; and the same records in canonical form.
func makeArchives(n int) [2]archive {
	r, w := newRand(20), newRand(21)
	mixed := archive{name: inArchiveMixed}
	canonical := archive{name: inArchiveCanonical}
	for len(mixed.lines) < n {
		env := randomEnvelope(r)
		if l := len(writeDoc(env, r, writeOptions{})); l < 1000 || l > 2000 {
			continue
		}
		rec := writeDoc(env, w, writeOptions{shuffle: true, escapes: true, spaced: w.IntN(2) == 0})
		mixed.lines = append(mixed.lines, rec)
		canonical.lines = append(canonical.lines, peerCanonical(rec))
	}
	for _, a := range []*archive{&mixed, &canonical} {
		for i, l := range a.lines {
			a.data = append(append(a.data, l...), '\n')
			a.lines[i] = a.data[len(a.data)-len(l)-1 : len(a.data)-1]
		}
	}
	return [2]archive{mixed, canonical}
}

var benchArchives = sync.OnceValue(func() [2]archive { return makeArchives(archiveRecords) })

// digesterOf returns the one-at-a-time digester of BenchmarkDigest called
// lib.
func digesterOf(lib string) func() func([]byte) [32]byte {
	for _, d := range digesters {
		if d.lib == lib {
			return d.new
		}
	}
	panic("BUG: bench: no digester " + lib)
}

var sinkSum [32]byte

// BenchmarkBatch hashes the archive's records in process: impl=batch-w1
// and batch-w2 with batch.Stream over the JSON Lines (one and two
// workers); impl=jsontext+sha256 and bbdigest-serial one record at a
// time, with jsontext's Canonicalize on a copy of the record and
// crypto/sha256, and with bbdigest's Digester (canon and the
// single-message SHA-256 kernel, no lanes); and impl=bbdigest-serial-x2,
// two goroutines each digesting half the records with a Digester of its
// own, sharing nothing: what two cores of this machine give at best.
func BenchmarkBatch(b *testing.B) {
	logCorpusSeed(b)
	for _, in := range benchArchives() {
		b.Run("input="+in.name, func(b *testing.B) {
			run := func(impl string, f func(b *testing.B)) {
				b.Run("impl="+impl, func(b *testing.B) {
					b.SetBytes(int64(len(in.data)))
					b.ReportAllocs()
					f(b)
					b.ReportMetric(float64(len(in.lines))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
				})
			}
			oneAtATime := func(lib string) func(b *testing.B) {
				return func(b *testing.B) {
					digest := digesterOf(lib)()
					for b.Loop() {
						rest := in.data
						for len(rest) > 0 {
							i := bytes.IndexByte(rest, '\n')
							sinkSum = digest(rest[:i])
							rest = rest[i+1:]
						}
					}
				}
			}
			run("jsontext+sha256", oneAtATime("jsontext+sha256"))
			run("bbdigest-serial", oneAtATime("bbdigest"))
			// The ceiling of two workers on this machine: two goroutines
			// with nothing to share, each digesting half the records one at
			// a time.
			run("bbdigest-serial-x2", func(b *testing.B) {
				half := bytes.IndexByte(in.data[len(in.data)/2:], '\n') + len(in.data)/2 + 1
				parts := [2][]byte{in.data[:half], in.data[half:]}
				digests := [2]func([]byte) [32]byte{digesterOf("bbdigest")(), digesterOf("bbdigest")()}
				for b.Loop() {
					var wg sync.WaitGroup
					for k := range parts {
						wg.Go(func() {
							rest := parts[k]
							for len(rest) > 0 {
								i := bytes.IndexByte(rest, '\n')
								digests[k](rest[:i])
								rest = rest[i+1:]
							}
						})
					}
					wg.Wait()
				}
			})
			for _, workers := range []int{1, 2} {
				run(fmt.Sprintf("batch-w%d", workers), func(b *testing.B) {
					opts := batch.Options{Workers: workers}
					for b.Loop() {
						sum, err := batch.Stream(context.Background(), bytes.NewReader(in.data), opts, func(r batch.Result) error {
							sinkSum = r.Digest
							return nil
						})
						if err != nil || sum.Accepted != int64(len(in.lines)) {
							b.Fatalf("%+v, %v", sum, err)
						}
					}
				})
			}
		})
	}
}

// TestBatchArchiveAgrees checks BenchmarkBatch's archives: every record is
// 1000 to 2000 bytes compact, the mixed one has records written with
// spaces and compactly, and batch (with one and two workers) gives the
// digests jsontext and crypto/sha256 give one record at a time.
func TestBatchArchiveAgrees(t *testing.T) {
	ars := makeArchives(500)
	spaced := 0
	for i, l := range ars[0].lines {
		if n := len(ars[1].lines[i]); n < 1000 || n > 2000 {
			t.Errorf("record %d: %d bytes canonical", i, n)
		}
		if bytes.Contains(l, []byte(`", "`)) {
			spaced++
		}
	}
	if spaced < 150 || spaced > 350 {
		t.Errorf("%d records of 500 written with spaces, want about half", spaced)
	}
	peer := digesterOf("jsontext+sha256")()
	for _, in := range ars {
		for _, workers := range []int{1, 2} {
			n := 0
			_, err := batch.Stream(context.Background(), bytes.NewReader(in.data), batch.Options{Workers: workers, BlockSize: 64 << 10}, func(r batch.Result) error {
				if want := peer(in.lines[n]); r.Err != nil || [32]byte(r.Digest) != want {
					t.Errorf("%s: workers %d: record %d: %v %v, want %x", in.name, workers, n+1, r.Digest, r.Err, want)
				}
				n++
				return nil
			})
			if err != nil || n != len(in.lines) {
				t.Errorf("%s: workers %d: %d results, %v", in.name, workers, n, err)
			}
		}
	}
}

// processFiles are the programs and the archive files of
// BenchmarkLinesProcess, made once per process in a temporary directory
// that TestMain removes.
type processFiles struct {
	bbdigest, linefilter string
	archives             [2]string // mixed, canonical
	records              int
}

var (
	tmpDir     string // removed by TestMain
	tmpDirOnce sync.Once
	tmpDirErr  error
)

// benchTempDir returns the package's temporary directory.
func benchTempDir() (string, error) {
	tmpDirOnce.Do(func() { tmpDir, tmpDirErr = os.MkdirTemp("", "bbdigest-bench-") })
	return tmpDir, tmpDirErr
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
	os.Exit(code)
}

// buildProcessFiles builds bbdigest (from the checkout, ..) and
// ./linefilter, and writes the archives of n records.
func buildProcessFiles(n int) (processFiles, error) {
	dir, err := benchTempDir()
	if err != nil {
		return processFiles{}, err
	}
	f := processFiles{
		bbdigest:   filepath.Join(dir, "bbdigest"),
		linefilter: filepath.Join(dir, "linefilter"),
		records:    n,
	}
	if err := goBuild("..", "./cmd/bbdigest", f.bbdigest); err != nil {
		return f, err
	}
	if err := goBuild(".", "./linefilter", f.linefilter); err != nil {
		return f, err
	}
	for i, a := range makeArchives(n) {
		f.archives[i] = filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", a.name, n))
		if err := os.WriteFile(f.archives[i], a.data, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

// goBuild builds the package pkg of the module in dir, relative to this
// file's directory, as the program out.
func goBuild(dir, pkg, out string) error {
	// The directory of this file, so that a test binary run from anywhere
	// finds the sources; "." (where go test runs it) if it is not known.
	here := "."
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		here = filepath.Dir(file)
	}
	args := []string{"-C", filepath.Join(here, dir), "build", "-o", out, pkg}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go %v: %v\n%s", args, err, out)
	}
	return nil
}

var benchProcessFiles = sync.OnceValues(func() (processFiles, error) { return buildProcessFiles(processRecords) })

// runFilter runs prog with args, its stdin the file in and its stdout
// out, and returns its CPU time (user and system) in nanoseconds.
func runFilter(prog string, args []string, in string, out *os.File) (int64, error) {
	stdin, err := os.Open(in)
	if err != nil {
		return 0, err
	}
	defer stdin.Close()
	cmd := exec.Command(prog, args...)
	cmd.Stdin, cmd.Stdout = stdin, out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s %v: %v: %s", prog, args, err, stderr.Bytes())
	}
	return int64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()), nil
}

// processImpls are the programs BenchmarkLinesProcess compares.
func processImpls(f processFiles) []struct {
	impl, prog string
	args       []string
} {
	return []struct {
		impl, prog string
		args       []string
	}{
		{"jsontext-filter", f.linefilter, nil},
		{"bbdigest-w1", f.bbdigest, []string{"digest", "--lines", "--workers", "1"}},
		{"bbdigest-w2", f.bbdigest, []string{"digest", "--lines", "--workers", "2"}},
	}
}

// BenchmarkLinesProcess runs whole processes over an archive file of
// processRecords envelopes (about 24 MB) from the page cache, stdout to
// /dev/null: "bbdigest digest --lines" with one worker and two
// (impl=bbdigest-w1, -w2), and the one-goroutine jsontext+sha256 line
// filter (impl=jsontext-filter, ./linefilter). Besides the time it
// reports records/s and cpu-ns/op, the process's CPU time.
func BenchmarkLinesProcess(b *testing.B) {
	f, err := benchProcessFiles()
	if err != nil {
		b.Fatal(err)
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	for i, name := range []string{inArchiveMixed, inArchiveCanonical} {
		st, err := os.Stat(f.archives[i])
		if err != nil {
			b.Fatal(err)
		}
		b.Run("input="+name, func(b *testing.B) {
			for _, p := range processImpls(f) {
				b.Run("impl="+p.impl, func(b *testing.B) {
					b.SetBytes(st.Size())
					var cpu int64
					for b.Loop() {
						c, err := runFilter(p.prog, p.args, f.archives[i], devNull)
						if err != nil {
							b.Fatal(err)
						}
						cpu += c
					}
					b.ReportMetric(float64(f.records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
					b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
				})
			}
		})
	}
}

// TestLinesProcessAgrees runs BenchmarkLinesProcess's programs on archives
// of 2000 records: every one writes the same output, one digest per line,
// the first of which is jsontext's and crypto/sha256's.
func TestLinesProcessAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds bbdigest and ./linefilter")
	}
	f, err := buildProcessFiles(2000)
	if err != nil {
		t.Fatal(err)
	}
	first := makeArchives(1)[0].lines[0]
	c, err := canon.Canonicalize(first, canon.Strict)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(c)
	want1 := "sha256:" + hex.EncodeToString(sum[:]) + "\n"
	for i, in := range f.archives {
		var outs []string
		for _, p := range processImpls(f) {
			out, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := runFilter(p.prog, p.args, in, out); err != nil {
				t.Fatal(err)
			}
			out.Close()
			b, err := os.ReadFile(out.Name())
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(b, []byte("\n")); n != 2000 || !bytes.HasPrefix(b, []byte(want1)) {
				t.Errorf("archive %d: %s: %d lines, first %.80q, want 2000, %q", i, p.impl, n, b, want1)
			}
			outs = append(outs, string(b))
		}
		for k := 1; k < len(outs); k++ {
			if outs[k] != outs[0] {
				t.Errorf("archive %d: %s and %s differ", i, processImpls(f)[0].impl, processImpls(f)[k].impl)
			}
		}
	}
}
