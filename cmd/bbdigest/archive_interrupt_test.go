//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/archivegen"
	"github.com/bbdigest/bbdigest/internal/race"
)

// TestArchiveInterrupt runs archive rehash --out FILE in a child process
// (the test binary run as bbdigest), its input coming slowly, on stdin or
// through a named pipe whose name needs quoting, and sends it SIGINT once
// its sidecar records some result lines. The child must exit 130 with no
// error, its summary marked incomplete, and last a hint that names the
// result lines FILE.resume records (which must be what the sidecar on
// disk says) and the command line that continues the run. FILE must hold
// a prefix of the output. That command line, run by sh with "bbdigest" on
// PATH being the test binary and the same input, must then finish FILE
// byte for byte as an uninterrupted run writes it.
func TestArchiveInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child processes for a second or two")
	}
	if race.Enabled {
		t.Skip("-race: the child process is too slow")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not on PATH: it runs the hint's command line")
	}
	plain := genArchive(t, archivegen.Mixed, 20000, 7)
	full, _, _ := archiveCall(t, 0, bytes.NewReader(plain), "archive", "rehash")
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "bbdigest")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), childEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	for _, how := range []string{"stdin", "fifo"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			out := "out 'a'.jsonl"
			args := []string{"archive", "rehash", "--workers", "2", "--out", out}
			var fifo string
			if how == "fifo" {
				fifo = "in 'x' ü.jsonl"
				if err := syscall.Mkfifo(fifo, 0o666); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				args = append(args, fifo)
			}
			// feed writes plain to w, slowly when slow, and closes it.
			feed := func(open func() (*os.File, error), slow bool) {
				w, err := open()
				if err != nil {
					return
				}
				defer w.Close()
				for b := plain; len(b) > 0; b = b[min(len(b), 16<<10):] {
					if _, err := w.Write(b[:min(len(b), 16<<10)]); err != nil {
						return // the child stopped reading
					}
					if slow {
						time.Sleep(5 * time.Millisecond)
					}
				}
			}
			input := func(cmd *exec.Cmd, slow bool) {
				if fifo != "" {
					go feed(func() (*os.File, error) { return os.OpenFile(fifo, os.O_WRONLY, 0) }, slow)
					return
				}
				w, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				go feed(func() (*os.File, error) { return w.(*os.File), nil }, slow)
			}

			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			input(cmd, true)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// SIGINT once the sidecar records some lines answered.
			deadline := time.Now().Add(20 * time.Second)
			for sidecarResults(t, out+resumeSuffix) == 0 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no result lines recorded in 20 s; stderr %s", stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 20 s after SIGINT; stderr %s", stderr.String())
			}
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != exitInterrupted {
				t.Fatalf("after SIGINT: %v (exit code 130 wanted); stderr %s", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			hint := lines[len(lines)-1]
			if strings.Contains(stderr.String(), "bbdigest: error:") || len(lines) != 2 ||
				!strings.HasPrefix(lines[0], "bbdigest: summary: ") || !strings.HasSuffix(lines[0], "; incomplete") {
				t.Fatalf("stderr:\n%s\nwant the summary, incomplete, and the hint", stderr.String())
			}
			results := sidecarResults(t, out+resumeSuffix)
			stdin := ""
			if fifo == "" {
				stdin = " with the same input on stdin"
			}
			prefix := "bbdigest: hint: interrupted: " + fileField(out+resumeSuffix) + " records " + strconv.FormatInt(results, 10) + " result lines; to continue, run" + stdin + ": "
			wantCmd := `bbdigest archive rehash --resume --workers 2 --out 'out '\''a'\''.jsonl'`
			if fifo != "" {
				wantCmd += ` 'in '\''x'\'' ü.jsonl'`
			}
			if hint != prefix+wantCmd {
				t.Fatalf("hint\n%s\nwant\n%s", hint, prefix+wantCmd)
			}
			got, _ := os.ReadFile(out)
			if results == 0 || !strings.HasPrefix(full, string(got)) || strings.Count(string(got), "\n") < int(results) {
				t.Fatalf("FILE (%d bytes, %d lines) is not a prefix of the output with the %d result lines recorded", len(got), strings.Count(string(got), "\n"), results)
			}
			t.Logf("interrupted with %d of %d bytes written, %d result lines recorded", len(got), len(full), results)

			// The hint's command line finishes the run.
			resume := exec.Command("sh", "-c", wantCmd)
			resume.Env = env
			stderr.Reset()
			resume.Stderr = &stderr
			input(resume, false)
			if err := resume.Run(); resume.ProcessState == nil || resume.ProcessState.ExitCode() != exitRejected {
				t.Fatalf("%s: %v (exit code 1 wanted); stderr %s", wantCmd, err, stderr.String())
			}
			if got, _ := os.ReadFile(out); string(got) != full {
				t.Fatalf("%s: FILE (%d bytes) differs from the uninterrupted output (%d bytes); stderr %s", wantCmd, len(got), len(full), stderr.String())
			}
		})
	}
}

// sidecarResults returns the result lines the sidecar at path records, 0
// while there is none.
func sidecarResults(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	var s sidecar
	if err != nil || json.Unmarshal(b, &s) != nil {
		t.Fatalf("%s: %v %q", path, err, b)
	}
	return s.Results
}
