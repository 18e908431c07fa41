package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
	if _, err := vmHWM(); err != nil {
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
