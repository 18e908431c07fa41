package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/peakmem"
)

// TestPeakMemoryRejectingOversized rejects inputs past the size bound in a
// child process (the test binary run as bbdigest, see runChild) and checks
// its peak resident memory against the bound: rejecting an oversized
// input (a file, stdin, one --lines line, an envelope) costs about the
// bound, never a multiple of it.
func TestPeakMemoryRejectingOversized(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: writes some 600 MiB through pipes")
	}
	if _, err := peakmem.VmHWM(); err != nil {
		t.Skip(err)
	}
	const bound = 64 << 20
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file of zero bytes, twice the bound: nothing is written.
	if err := f.Truncate(2 * bound); err != nil {
		t.Fatal(err)
	}
	f.Close()

	tooLargeErr := fmt.Sprintf(`"": too-large: input longer than the %d-byte bound at offset %d`, bound, bound)
	tooLargeLine := fmt.Sprintf("error too-large %d line longer than the %d-byte bound within \"\"\n", bound, bound)
	spaces := func(n int) io.Reader { return io.LimitReader(spaceReader{}, int64(n)) }
	for _, tt := range []struct {
		name   string
		args   []string
		stdin  func() io.Reader // nil: no stdin
		code   int
		stdout string
		stderr string
	}{
		{name: "digest file", args: []string{"digest", big}, code: exitRejected,
			stderr: "bbdigest: error: " + big + ": " + tooLargeErr + "\n"},
		{name: "digest stdin", args: []string{"digest"}, code: exitRejected,
			stdin:  func() io.Reader { return io.MultiReader(strings.NewReader("["), spaces(2*bound)) },
			stderr: "bbdigest: error: -: " + tooLargeErr + "\n"},
		{name: "canon stdin", args: []string{"canon", "--profile", "rfc8785"}, code: exitRejected,
			stdin:  func() io.Reader { return spaces(bound + bound/2) },
			stderr: "bbdigest: error: -: " + tooLargeErr + "\n"},
		{name: "envelope validate stdin", args: []string{"envelope", "validate"}, code: exitRejected,
			stdin:  func() io.Reader { return spaces(2 * bound) },
			stderr: "bbdigest: error: -: " + tooLargeErr + "\n"},
		{name: "digest --lines", args: []string{"digest", "--lines"}, code: exitRejected,
			stdin: func() io.Reader {
				return io.MultiReader(strings.NewReader("[1]\n["), spaces(bound+bound/2), strings.NewReader("]\n[2]\n"))
			},
			stdout: sha("[1]") + "\n" + tooLargeLine + sha("[2]") + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hwmFile := filepath.Join(dir, "hwm")
			cmd := exec.Command(os.Args[0], tt.args...)
			cmd.Env = append(os.Environ(), childEnv+"=1", maxSizeEnv+"="+strconv.Itoa(bound), hwmEnv+"="+hwmFile, "GOGC=100", "GOMEMLIMIT=off")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			var stdin io.WriteCloser
			if tt.stdin != nil {
				if stdin, err = cmd.StdinPipe(); err != nil {
					t.Fatal(err)
				}
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if stdin != nil {
				io.Copy(stdin, tt.stdin()) // fails once the child stops reading: fine
				stdin.Close()
			}
			err := cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("exit code %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
			b, err := os.ReadFile(hwmFile)
			if err != nil {
				t.Fatal(err)
			}
			hwm, _ := strconv.Atoi(string(b))
			// The bound, a tenth of it for read chunks and buffers, and the
			// test binary's own footprint.
			max := bound + bound/10 + 16<<20
			t.Logf("peak resident memory %.1f MiB (%.2fx the %d MiB bound)", float64(hwm)/(1<<20), float64(hwm)/bound, bound>>20)
			if hwm > max {
				t.Errorf("peak resident memory %d bytes, want at most %d", hwm, max)
			}
		})
	}
}

// spaceReader is an endless reader of spaces.
type spaceReader struct{}

func (spaceReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestPeakMemoryManyMembers runs the shape the review found at 20x the
// input (an object of millions of short names in descending order, which
// every member must be moved to sort) through the commands that read it,
// each in a child process, and checks the peak resident memory against 6x
// the input: canon, digest, digest --lines, envelope validate (text and
// --json; the envelope has millions of unknown members, of which 100 are
// listed), and envelope render (which then shows the whole input as the
// fallback, indented).
func TestPeakMemoryManyMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a 32 MB input")
	}
	if _, err := peakmem.VmHWM(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "members.json")
	src := reverseMembers(3_600_000)
	if err := os.WriteFile(in, src, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"canon", in},
		{"canon", "--profile", "rfc8785", in},
		{"digest", in},
		{"digest", "--lines", in},
		{"envelope", "validate", in},
		{"envelope", "validate", "--json", in},
		{"envelope", "render", in},
	} {
		t.Run(strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
			hwmFile := filepath.Join(dir, "hwm")
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), childEnv+"=1", hwmEnv+"="+hwmFile, "GOGC=100", "GOMEMLIMIT=off")
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); ok && args[0] == "envelope" && ee.ExitCode() == exitRejected {
				err = nil // not an envelope: millions of problems
			}
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			b, err := os.ReadFile(hwmFile)
			if err != nil {
				t.Fatal(err)
			}
			hwm, _ := strconv.Atoi(string(b))
			ratio := float64(hwm) / float64(len(src))
			t.Logf("peak resident memory %.1f MiB for %.1f MB of input: %.2fx", float64(hwm)/(1<<20), float64(len(src))/1e6, ratio)
			if ratio > 6 {
				t.Errorf("peak resident memory is %.2fx the input, want at most 6x", ratio)
			}
		})
	}
}

// reverseMembers returns an object of n members with distinct names of
// one to four printable ASCII characters (no '"' or '\'), in descending
// order, each with the value 0.
func reverseMembers(n int) []byte {
	var alphabet []byte
	for c := byte('#'); c <= '~'; c++ {
		if c != '\\' {
			alphabet = append(alphabet, c)
		}
	}
	names := make([]string, 0, n)
	var gen func(prefix []byte, depth int)
	gen = func(prefix []byte, depth int) {
		for _, c := range alphabet {
			if len(names) == n {
				return
			}
			name := append(prefix, c)
			names = append(names, string(name))
			if depth > 1 {
				gen(name, depth-1)
			}
		}
	}
	gen(make([]byte, 0, 4), 4)
	slices.Sort(names)
	var b bytes.Buffer
	b.WriteByte('{')
	for i := len(names) - 1; i >= 0; i-- {
		b.WriteByte('"')
		b.WriteString(names[i])
		b.WriteString(`":0`)
		if i > 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}
