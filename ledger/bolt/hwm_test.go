package bolt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// hwmTestLedger creates a ledger at a new path holding the envelope d
// emitted, and returns the path and d.
func hwmTestLedger(t *testing.T) (path string, d hashing.Digest) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	d = hashing.Sum([]byte("emitted"))
	if err := l.Emit(d); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path, d
}

// resolveOnce opens the ledger at path and presents an authority for d; it
// reports whether that consumed d, or the error of Open or of the ledger.
func resolveOnce(t *testing.T, path string, d hashing.Digest) (consumed bool, err error) {
	t.Helper()
	l, err := Open(path, &Options{})
	if err != nil {
		return false, err
	}
	defer l.Close()
	return present(l, d)
}

func wantCorrupt(t *testing.T, err error, substr string) {
	t.Helper()
	if !errors.Is(err, ledger.ErrCorrupt) || !strings.Contains(err.Error(), substr) {
		t.Fatalf("got %v, want ledger.ErrCorrupt saying %q", err, substr)
	}
}

// TestBoltLedgerRestoredCopy: a copy of the ledger file from before the
// envelope was consumed, put back in its place (a backup restored, a
// snapshot rolled back), would give a second authority. The high-water
// file is ahead of it: refused.
func TestBoltLedgerRestoredCopy(t *testing.T) {
	path, d := hwmTestLedger(t)
	old, _ := os.ReadFile(path)
	if ok, err := resolveOnce(t, path, d); !ok || err != nil {
		t.Fatal(ok, err)
	}
	os.WriteFile(path, old, 0o600)
	ok, err := resolveOnce(t, path, d)
	if ok {
		t.Fatal("a restored copy of the ledger gave a second authority")
	}
	wantCorrupt(t, err, "rolled back")
}

// TestBoltLedgerHWMMissing: a ledger with committed transactions and no
// high-water file (deleted; or a ledger of an older bbdigest) is refused.
func TestBoltLedgerHWMMissing(t *testing.T) {
	path, d := hwmTestLedger(t)
	os.Remove(path + ".hwm")
	_, err := resolveOnce(t, path, d)
	wantCorrupt(t, err, "missing")
	if _, err := os.Stat(path + ".hwm"); err == nil {
		t.Fatal("a refused open created the high-water file")
	}
}

// TestBoltLedgerOldFormat: a ledger written by the bbdigest before the
// high-water file and entry checksums (a bucket of 1- and 9-byte values, no
// .hwm) is refused with a message that says so.
func TestBoltLedgerOldFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := hashing.Sum([]byte("old"))
	db.Update(func(tx *bbolt.Tx) error {
		b, _ := tx.CreateBucket(boltBucket)
		return b.Put(d[:], []byte{byte(ledger.StateEmitted)})
	})
	db.Close()
	_, err = Open(path, nil)
	wantCorrupt(t, err, "older bbdigest")
}

// TestBoltLedgerHWMBehind: the database one commit ahead of the mark is the
// crash between a commit and its high-water update: accepted, and the mark
// catches up.
func TestBoltLedgerHWMBehind(t *testing.T) {
	path, d := hwmTestLedger(t)
	oldHWM, _ := os.ReadFile(path + ".hwm")
	if ok, err := resolveOnce(t, path, d); !ok || err != nil {
		t.Fatal(ok, err)
	}
	os.WriteFile(path+".hwm", oldHWM, 0o600)
	if ok, err := resolveOnce(t, path, d); ok || err != nil {
		t.Fatalf("after the high-water file fell behind: %v, %v; want not consumed again, no error", ok, err)
	}
	f, _ := os.Open(path)
	st, _ := f.Stat()
	m, _, err := checkBoltMetas(f, st.Size())
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := readHWM(path + ".hwm")
	if mark, _, _ := hs.newest(); mark != m.txid {
		t.Fatalf("high-water mark %d after open, database at %d", mark, m.txid)
	}
}

// TestBoltLedgerHWMSlots: a damaged newest slot is a write torn by a crash
// (accepted: the database is past the other slot's mark); a damaged older
// slot leaves a mark equal to the database's, which cannot be told from a
// damaged newest slot and a rolled-back database (refused).
func TestBoltLedgerHWMSlots(t *testing.T) {
	path, d := hwmTestLedger(t)
	if ok, err := resolveOnce(t, path, d); !ok || err != nil {
		t.Fatal(ok, err)
	}
	hwm, _ := os.ReadFile(path + ".hwm")
	hs, _ := readHWM(path + ".hwm")
	_, newest, _ := hs.newest()
	for _, tc := range []struct {
		slot int
		ok   bool
	}{{newest, true}, {1 - newest, false}} {
		b := append([]byte(nil), hwm...)
		b[tc.slot*hwmSlotStride+10] ^= 0x40 // inside the txid
		os.WriteFile(path+".hwm", b, 0o600)
		ok, err := resolveOnce(t, path, d)
		if ok {
			t.Fatal("second authority")
		}
		if tc.ok && err != nil {
			t.Fatalf("newest slot damaged: %v; want the envelope found consumed", err)
		}
		if !tc.ok {
			wantCorrupt(t, err, "damaged slot")
		}
		if tc.ok { // the open rewrote the damaged slot: restore the test's copy
			os.WriteFile(path+".hwm", hwm, 0o600)
		}
	}
}

// TestBoltLedgerCreationWindow covers the files a crash while creating a
// ledger can leave, and a new file with an old high-water file.
func TestBoltLedgerCreationWindow(t *testing.T) {
	dir := t.TempDir()
	open := func(path string) error {
		l, err := Open(path, &Options{})
		if err != nil {
			return err
		}
		defer l.Close()
		d := hashing.Sum([]byte(path))
		if err := l.Emit(d); err != nil {
			return err
		}
		if ok, err := l.Resolve(d, ledger.OutcomeQuestion); !ok || err != nil {
			t.Fatalf("Resolve = %v, %v", ok, err)
		}
		return nil
	}
	bboltOnly := func(name string) string { // bbolt created the file; the ledger did nothing yet
		path := filepath.Join(dir, name)
		db, err := bbolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		return path
	}

	path := filepath.Join(dir, "empty.db") // created, not yet initialised by bbolt
	os.WriteFile(path, nil, 0o600)
	if err := open(path); err != nil {
		t.Errorf("empty file: %v", err)
	}
	if err := open(bboltOnly("fresh.db")); err != nil {
		t.Errorf("fresh bbolt file, no high-water file: %v", err)
	}
	path = bboltOnly("fresh-hwm.db")
	h, _ := createHWM(path+".hwm", 1)
	h.close()
	if err := open(path); err != nil {
		t.Errorf("fresh bbolt file, high-water file at 1: %v", err)
	}
	path = bboltOnly("torn-hwm.db")
	os.WriteFile(path+".hwm", []byte("bbdHW"), 0o600) // the high-water file's first write, torn
	if err := open(path); err != nil {
		t.Errorf("fresh bbolt file, torn high-water file: %v", err)
	}
	// Each of those is a working ledger now, holding what was written.
	for _, name := range []string{"empty.db", "fresh.db", "fresh-hwm.db", "torn-hwm.db"} {
		path := filepath.Join(dir, name)
		l, err := Open(path, &Options{MustExist: true})
		if err != nil {
			t.Fatalf("%s reopened: %v", name, err)
		}
		if e, err := l.Lookup(hashing.Sum([]byte(path))); e.Outcome != ledger.OutcomeQuestion || err != nil {
			t.Errorf("%s reopened: %+v, %v", name, e, err)
		}
		l.Close()
	}

	// A new file beside a high-water file with commits: the ledger was
	// deleted or replaced, and the new one is empty: refused.
	path = filepath.Join(dir, "replaced.db")
	if err := open(path); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	wantCorrupt(t, open(path), "replaced")
	if err := open(bboltOnly("fresh2.db")); err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "fresh2.db.hwm"), filepath.Join(dir, "fresh2.hwm.bak"))
	wantCorrupt(t, open(filepath.Join(dir, "fresh2.db")), "missing")
}

// TestBoltLedgerSymlink: the high-water file sits beside the ledger file,
// whichever link it is opened through.
func TestBoltLedgerSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	link := filepath.Join(dir, "link.db")
	l, err := Open(real, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Emit(hashing.Sum([]byte("x")))
	l.Close()
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if l, err = Open(link, nil); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := os.Stat(link + ".hwm"); err == nil {
		t.Fatal("a second high-water file beside the link")
	}
}

// TestBoltLedgerRollbackWhileOpen: another writer puts an older copy of
// the file in place under an open ledger (which the Ledger doc forbids). bbolt would read the older meta page at its next transaction;
// the ledger refuses a transaction below one it has seen.
func TestBoltLedgerRollbackWhileOpen(t *testing.T) {
	path, d := hwmTestLedger(t)
	old, _ := os.ReadFile(path)
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if ok, err := present(l, d); !ok || err != nil {
		t.Fatal(ok, err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY, 0)
	f.WriteAt(old, 0)
	f.Close()
	ok, err := present(l, d)
	if ok {
		t.Fatal("second authority after the file was rolled back under the open ledger")
	}
	wantCorrupt(t, err, "rolled back while open")
}
