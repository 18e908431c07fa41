package boundedread

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bbdigest/bbdigest/internal/peakmem"
	"github.com/bbdigest/bbdigest/internal/selfexec"
)

// pipeReader hides every method but Read, as a pipe would.
type pipeReader struct{ r io.Reader }

func (p pipeReader) Read(b []byte) (int, error) { return p.r.Read(b) }

func TestReadAllSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3*ChunkMax+ChunkMin+17)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	dir := t.TempDir()
	sizes := []int{0, 1, 100, ChunkMin - 1, ChunkMin, ChunkMin + 1, 5*ChunkMin + 3, ChunkMax, ChunkMax + 1, len(data)}
	for _, n := range sizes {
		for _, limit := range []int{0, n - 1, n, n + 1, 2*n + 5} {
			if limit < 0 {
				continue
			}
			in := data[:n]
			file := filepath.Join(dir, "in")
			if err := os.WriteFile(file, in, 0o600); err != nil {
				t.Fatal(err)
			}
			readers := map[string]func() io.Reader{
				"pipe":     func() io.Reader { return pipeReader{bytes.NewReader(in)} },
				"onebyte":  func() io.Reader { return pipeReader{iotest.OneByteReader(bytes.NewReader(in))} },
				"half":     func() io.Reader { return pipeReader{iotest.HalfReader(bytes.NewReader(in))} },
				"dataeof":  func() io.Reader { return pipeReader{iotest.DataErrReader(bytes.NewReader(in))} },
				"file":     func() io.Reader { f, _ := os.Open(file); t.Cleanup(func() { f.Close() }); return f },
				"nilbuf":   nil,
				"smallbuf": nil,
			}
			for name, mk := range readers {
				if n > 300 && name == "onebyte" {
					continue
				}
				var dst []byte
				r := io.Reader(nil)
				switch name {
				case "nilbuf":
					r = pipeReader{bytes.NewReader(in)}
				case "smallbuf":
					dst = make([]byte, 7, 50)
					r = pipeReader{bytes.NewReader(in)}
				default:
					r = mk()
				}
				got, err := ReadAll(dst, r, limit)
				if n > limit {
					if !errors.Is(err, ErrTooLarge) {
						t.Errorf("%s n=%d limit=%d: err %v, want ErrTooLarge", name, n, limit, err)
					}
					continue
				}
				if err != nil || !bytes.Equal(got, in) {
					t.Errorf("%s n=%d limit=%d: got %d bytes, err %v", name, n, limit, len(got), err)
				}
			}
		}
	}
}

// A buffer that ReadAll returned, passed back as dst, takes an input of the
// same size again without an allocation, as a loop over inputs of similar
// sizes wants (batch gathers every line longer than a block into the same
// memory); and an input that fills dst exactly is read into dst itself,
// not copied.
func TestReadAllReusesDst(t *testing.T) {
	in := bytes.Repeat([]byte("0123456789abcdef"), 3*ChunkMin/16+1) // past dst: chunks, then joined
	br := bytes.NewReader(in)
	var r io.Reader = pipeReader{br}
	buf, err := ReadAll(nil, r, 1<<30)
	if err != nil || !bytes.Equal(buf, in) {
		t.Fatalf("got %d bytes, err %v", len(buf), err)
	}
	allocs := testing.AllocsPerRun(10, func() {
		br.Reset(in)
		got, err := ReadAll(buf, r, 1<<30)
		if err != nil || !bytes.Equal(got, in) || &got[0] != &buf[0] {
			t.Fatalf("again into its own result: got %d bytes, err %v, same memory %v", len(got), err, &got[0] == &buf[0])
		}
	})
	if allocs != 0 {
		t.Errorf("an input of the same size read into ReadAll's result: %v allocations, want 0", allocs)
	}

	exact := make([]byte, len(in))
	br.Reset(in)
	got, err := ReadAll(exact, r, 1<<30)
	if err != nil || !bytes.Equal(got, in) {
		t.Fatalf("into a dst of its size: got %d bytes, err %v", len(got), err)
	}
	if &got[0] != &exact[0] {
		t.Errorf("an input that fills dst exactly was copied out of dst")
	}
}

// A reader past the bound is not read further than one byte past it.
func TestReadAllStopsAtBound(t *testing.T) {
	var r countingReader
	_, err := ReadAll(nil, &r, 1000)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
	if r.n != 1001 {
		t.Errorf("read %d bytes, want 1001", r.n)
	}
}

type countingReader struct{ n int }

func (c *countingReader) Read(b []byte) (int, error) {
	c.n += len(b)
	return len(b), nil
}

func TestReadAllErrors(t *testing.T) {
	boom := errors.New("boom")
	_, err := ReadAll(nil, iotest.ErrReader(boom), 10)
	if err != boom {
		t.Errorf("err %v, want boom", err)
	}
	_, err = ReadAll(nil, io.MultiReader(strings.NewReader(strings.Repeat("x", ChunkMin+5)), iotest.ErrReader(boom)), 1<<30)
	if err != boom {
		t.Errorf("err %v after a chunk, want boom", err)
	}
	_, err = ReadAll(nil, emptyReader{}, 10)
	if err != io.ErrNoProgress {
		t.Errorf("err %v, want io.ErrNoProgress", err)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// A regular file past the bound is rejected without being read.
func TestReadAllFileTooLargeUnread(t *testing.T) {
	file := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(file, make([]byte, 5000), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := ReadAll(nil, f, 4999); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
	if off, _ := f.Seek(0, io.SeekCurrent); off != 0 {
		t.Errorf("read %d bytes of a file that is past the bound", off)
	}
}

// TestReadAllPeakMemory rejects an input of twice the bound from a pipe in a
// child process and checks its peak resident memory (VmHWM) against the
// bound.
func TestReadAllPeakMemory(t *testing.T) {
	if os.Getenv("BOUNDEDREAD_CHILD") != "" {
		limit, _ := strconv.Atoi(os.Getenv("BOUNDEDREAD_CHILD"))
		_, err := ReadAll(nil, pipeReader{os.Stdin}, limit)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err %v", err)
		}
		hwm, err := peakmem.VmHWM()
		if err != nil {
			t.Skip(err)
		}
		os.Stdout.WriteString("HWM " + strconv.Itoa(hwm) + "\n")
		return
	}
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := peakmem.VmHWM(); err != nil {
		t.Skip(err)
	}
	const limit = 128 << 20
	cmd := selfexec.Command("-test.run=^TestReadAllPeakMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "BOUNDEDREAD_CHILD="+strconv.Itoa(limit), "GOGC=100")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	block := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	for written := 0; written < 2*limit; written += len(block) {
		if _, err := stdin.Write(block); err != nil {
			break // the child stops reading past the bound and exits
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	var hwm int
	for _, line := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "HWM "); ok {
			hwm, _ = strconv.Atoi(v)
		}
	}
	if hwm == 0 {
		t.Fatalf("no HWM from the child:\n%s", out.String())
	}
	// The bound, one chunk of slack and the test binary's own footprint.
	max := limit + limit/10 + 16<<20
	t.Logf("peak resident memory rejecting %d MiB past a %d MiB bound: %.1f MiB (%.2fx the bound)",
		2*limit>>20, limit>>20, float64(hwm)/(1<<20), float64(hwm)/limit)
	if hwm > max {
		t.Errorf("peak resident memory %d bytes, want at most %d", hwm, max)
	}
}
