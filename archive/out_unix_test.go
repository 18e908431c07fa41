//go:build unix

package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteErrorOutFile: a failure to write OutFile during the run (here
// past a file size limit, RLIMIT_FSIZE, which the Go runtime lets fail
// with EFBIG rather than kill the process) is a *WriteError that names
// OutFile, not an error of the input being read.
func TestWriteErrorOutFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(strings.Repeat(`{"a":[1,2,3],"b":"é"}`+"\n", 100000)), 0o666); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	limit := old
	limit.Cur = 300 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Skip(err)
	}
	sum, err := Rehash(context.Background(), []Input{File(in)}, Options{OutFile: out})
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	e, ok := errors.AsType[*WriteError](err)
	if !ok || !errors.Is(err, syscall.EFBIG) || !strings.Contains(e.Error(), out) || sum == nil || sum.Complete {
		t.Errorf("writing OutFile past RLIMIT_FSIZE: %v (%T), summary %v", err, err, sum)
	}
}
