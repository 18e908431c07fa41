package bolt

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/selfexec"
	"github.com/bbdigest/bbdigest/ledger"
)

// lockChildEnv, when set, makes TestBoltLedgerLockedOtherProcess the child:
// it holds the ledger it names open until its stdin closes.
const lockChildEnv = "BBDIGEST_LEDGER_LOCK_CHILD"

func wantLocked(t *testing.T, err error, path string, wait time.Duration) {
	t.Helper()
	if !errors.Is(err, ledger.ErrLocked) || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "locked by another process") || !strings.Contains(err.Error(), "waited "+wait.String()) {
		t.Fatalf("got %v; want ledger.ErrLocked naming %s and the wait %v", err, path, wait)
	}
}

func TestBoltLedgerLockedSameProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Open(path, &Options{})
	wantLocked(t, err, path, 0)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Wait 0 waited %v", d)
	}
	start = time.Now()
	_, err = Open(path, &Options{Wait: 300 * time.Millisecond})
	wantLocked(t, err, path, 300*time.Millisecond)
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("Wait 300ms gave up after %v", d)
	}
	// The first ledger still works, and the file opens once it is closed.
	if err := l.Emit(hashing.Sum([]byte("a"))); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if l, err = Open(path, &Options{}); err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// TestBoltLedgerWaitsForLock: an open that waits gets the ledger when the
// holder closes it in time; nil options wait too.
func TestBoltLedgerWaitsForLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	for _, opts := range []*Options{{Wait: 5 * time.Second}, nil} {
		l, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(200*time.Millisecond, func() { l.Close() })
		start := time.Now()
		l2, err := Open(path, opts)
		if err != nil {
			t.Fatalf("opts %+v: %v", opts, err)
		}
		if d := time.Since(start); d < 150*time.Millisecond {
			t.Errorf("opts %+v: opened after %v, while the file was locked", opts, d)
		}
		l2.Close()
	}
}

func TestBoltLedgerLockedOtherProcess(t *testing.T) {
	if path := os.Getenv(lockChildEnv); path != "" {
		l, err := Open(path, nil)
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(3)
		}
		os.Stdout.WriteString("holding\n")
		io.Copy(io.Discard, os.Stdin)
		l.Close()
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	cmd := selfexec.Command("-test.run=^TestBoltLedgerLockedOtherProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "holding\n" {
		t.Fatalf("child: %q", line)
	}
	_, err := Open(path, &Options{})
	wantLocked(t, err, path, 0)
	_, err = Open(path, &Options{Wait: 100 * time.Millisecond})
	wantLocked(t, err, path, 100*time.Millisecond)
	stdin.Close() // the child closes the ledger and exits
	l, err := Open(path, &Options{Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	cmd.Wait()
}

func TestBoltLedgerClosed(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := hashing.Sum([]byte("a"))
	l.Emit(d)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Emit(d); !errors.Is(err, ledger.ErrClosed) {
		t.Errorf("Emit after Close = %v", err)
	}
	if ok, err := l.Resolve(d, ledger.OutcomeAuthority); ok || !errors.Is(err, ledger.ErrClosed) {
		t.Errorf("Resolve after Close = %v, %v", ok, err)
	}
	if _, err := l.Lookup(d); !errors.Is(err, ledger.ErrClosed) {
		t.Errorf("Lookup after Close = %v", err)
	}
	if err := l.Close(); !errors.Is(err, ledger.ErrClosed) {
		t.Errorf("second Close = %v", err)
	}
}

// TestBoltLedgerCloseConcurrent closes the ledger while goroutines use it:
// every call succeeds or fails with ledger.ErrClosed. Run with -race.
func TestBoltLedgerCloseConcurrent(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				d := hashing.Sum([]byte{byte(g), byte(i), byte(i >> 8)})
				err := l.Emit(d)
				if err == nil {
					_, err = l.Resolve(d, ledger.OutcomeAuthority)
				}
				if err == nil {
					_, err = l.Lookup(d)
				}
				if errors.Is(err, ledger.ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

func TestBoltLedgerMustExist(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "ledger.db"), filepath.Join(dir, "no", "dir", "ledger.db")} {
		_, err := Open(path, &Options{MustExist: true})
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
			t.Fatalf("MustExist, %s missing: %v; want fs.ErrNotExist naming the file", path, err)
		}
		if errors.Is(err, ledger.ErrCorrupt) || errors.Is(err, ledger.ErrLocked) {
			t.Fatalf("MustExist: %v", err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("MustExist created %v", entries)
	}
	path := filepath.Join(dir, "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Emit(hashing.Sum([]byte("a")))
	l.Close()
	if l, err = Open(path, &Options{MustExist: true}); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if e, err := l.Lookup(hashing.Sum([]byte("a"))); e.State != ledger.StateEmitted || err != nil {
		t.Fatal(e, err)
	}
}

// TestBoltLedgerFaultWhileOpen truncates the file under an open ledger, so
// that bbolt's next read of its memory map faults (SIGBUS). The fault must
// become ledger.ErrCorrupt, every later call must be refused, and Close must
// release the file even though bbolt, interrupted holding its own locks,
// cannot close it.
func TestBoltLedgerFaultWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := hashing.Sum([]byte("a"))
	l.Emit(d)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lookup(d); !errors.Is(err, ledger.ErrCorrupt) || !strings.Contains(err.Error(), "bbolt panicked") {
		t.Fatalf("Lookup on a truncated file = %v, want ledger.ErrCorrupt from a fault", err)
	}
	if err := l.Emit(d); !errors.Is(err, ledger.ErrCorrupt) {
		t.Fatalf("Emit after the fault = %v", err)
	}
	done := make(chan error)
	go func() { done <- l.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close after the fault = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close after the fault hangs")
	}
	// The lock is released: the file opens at once (and is refused, as
	// the truncated ledger it is).
	_, err = Open(path, &Options{})
	wantCorrupt(t, err, "replaced")
}
