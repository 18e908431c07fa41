//go:build unix

package boundedread

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFileFIFO: a named pipe that no writer opens is refused at once
// for a kind that must be regular: the open does not wait for a writer.
func TestReadFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := ReadFile(fifo, Kind{What: "a key", Limit: 10, Regular: true})
		done <- err
	}()
	select {
	case err := <-done:
		if _, ok := errors.AsType[*NotRegularError](err); !ok || err.Error() != "not a regular file (a named pipe): a key must be one" {
			t.Errorf("a named pipe: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile of a named pipe with no writer blocked")
	}
}
