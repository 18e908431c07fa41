package bolt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/ledger"
)

// TestBoltLedgerBatchCommitFails fails bbolt's own sync of a group of 32
// Resolves: while the group before it is held, the ledger file's
// descriptor is replaced (dup3) by one of /dev/null, so the group's pages
// go nowhere and its fdatasync fails (EINVAL: /dev/null cannot sync), as
// a disk that lost the writes would; then the file's descriptor is put
// back. All 32 Resolves fail and none reports true; nothing of theirs is
// in the file, so each envelope is still pending, and a later Resolve of
// each reports true once; the file reopens clean with every reported
// consume resolved. (bbolt's fdatasync is not reachable otherwise: this is
// what EIO at the sync does to it, a failed Commit; the high-water
// file's sync is TestBoltLedgerBatchSyncFails.)
func TestBoltLedgerBatchCommitFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Free pages for the group to take, so that bbolt neither grows the
	// file nor maps it again while its descriptor is /dev/null's: a
	// scratch bucket of 1 MB, written, then deleted.
	scratch := []byte("scratch")
	if err := l.write(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket(scratch)
		for i := 0; err == nil && i < 256; i++ {
			err = b.Put(fmt.Appendf(nil, "%04d", i), make([]byte, 4096))
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.write(func(tx *bbolt.Tx) error { return tx.DeleteBucket(scratch) }); err != nil {
		t.Fatal(err)
	}
	const n = 33
	d := emitBatch(t, l, n)
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	fd := int(l.file.Fd())
	saved, err := syscall.Dup(fd)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(saved)
	tx0 := l.txid.Load()
	oks, errs := resolveGroup(t, l, d, func(k int) error {
		if k == 0 { // the held group is committed: the next one's writes go nowhere
			if err := syscall.Dup3(int(null.Fd()), fd, syscall.O_CLOEXEC); err != nil {
				t.Errorf("dup3: %v", err)
			}
		} else {
			t.Errorf("high-water sync %d: the failed group's commit went on to its high-water update", k)
		}
		return nil
	})
	if err := syscall.Dup3(saved, fd, syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if !oks[0] || errs[0] != nil {
		t.Fatalf("the held group's Resolve: %v, %v, want true", oks[0], errs[0])
	}
	for i := 1; i < n; i++ {
		if oks[i] || !errors.Is(errs[i], syscall.EINVAL) {
			t.Errorf("Resolve %d of the group whose commit failed: %v, %v, want false and fdatasync's EINVAL", i, oks[i], errs[i])
		}
	}
	t.Logf("the group's error: %v", errs[1])
	if got := l.txid.Load() - tx0; got != 1 {
		t.Errorf("%d commits recorded, want 1 (the held group)", got)
	}
	for i := 1; i < n; i++ {
		if e, err := l.Lookup(d[i]); err != nil || e.State != ledger.StateEmitted {
			t.Errorf("envelope %d after its group's commit failed: %+v, %v, want still emitted", i, e, err)
		}
		if ok, err := l.Resolve(d[i], ledger.OutcomeAuthority); !ok || err != nil {
			t.Errorf("Resolve %d after its group's commit failed: %v, %v, want true", i, ok, err)
		}
		if ok, err := l.Resolve(d[i], ledger.OutcomeAuthority); ok || err != nil {
			t.Errorf("Resolve %d a second time: %v, %v, want false", i, ok, err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = Open(path, nil)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer l.Close()
	if err := l.db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}); err != nil {
		t.Fatalf("bbolt check: %v", err)
	}
	for i, x := range d {
		if e, err := l.Lookup(x); err != nil || e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeAuthority {
			t.Errorf("envelope %d after reopen: %+v, %v, want resolved", i, e, err)
		}
	}
}
