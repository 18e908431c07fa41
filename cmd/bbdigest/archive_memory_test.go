package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/bbdigest/bbdigest/internal/archivegen"
	"github.com/bbdigest/bbdigest/internal/peakmem"
)

// TestArchivePeakMemory runs archive rehash over a generated archive of
// 2 GB on stdin, in a child process (the test binary run as bbdigest,
// all cores), and checks that its peak resident memory (VmHWM) stays
// under 100 MB, and that it answered every line. The archive is 20,000
// generated envelopes (29 MB) written over and over, as it is read.
// Set BBDIGEST_BIG_TESTS=1 to run it (about 10 s on 2 cores).
//
// The same from the command line:
//
//	bbdigest archive gen --records 1500000 | /usr/bin/time -v bbdigest archive rehash > /dev/null
func TestArchivePeakMemory(t *testing.T) {
	if os.Getenv("BBDIGEST_BIG_TESTS") == "" || testing.Short() {
		t.Skip("rehashes a 2 GB archive; set BBDIGEST_BIG_TESTS=1 to run")
	}
	if _, err := peakmem.VmHWM(); err != nil {
		t.Skip(err)
	}
	var pool bytes.Buffer
	if err := archivegen.Write(&pool, archivegen.Options{Records: 20000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	const size int64 = 2 << 30
	rounds := size / int64(pool.Len())
	hwmFile := filepath.Join(t.TempDir(), "hwm")
	cmd := exec.Command(os.Args[0], "archive", "rehash", "--json")
	cmd.Env = append(os.Environ(), childEnv+"=1", hwmEnv+"="+hwmFile, "GOGC=100", "GOMEMLIMIT=off")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var lines countWriter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &lines, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for range rounds {
		if _, err := stdin.Write(pool.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	b, err := os.ReadFile(hwmFile)
	if err != nil {
		t.Fatal(err)
	}
	hwm, _ := strconv.Atoi(string(b))
	if want := rounds * 20000; lines.n != want {
		t.Errorf("%d result lines for %d input lines", lines.n, want)
	}
	t.Logf("%d MB of archive: peak resident memory %.1f MiB", rounds*int64(pool.Len())/1e6, float64(hwm)/(1<<20))
	if hwm > 100<<20 {
		t.Errorf("peak resident memory %d bytes, want under 100 MiB", hwm)
	}
}

// countWriter counts the lines written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}
