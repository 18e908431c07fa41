package bolt

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// TestCreate: Create makes an empty ledger, both files mode 0600, that
// Open with MustExist then opens, holding nothing and taking entries.
func TestCreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	l, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := hashing.Sum([]byte("envelope"))
	if e, err := l.Lookup(d); e.State != ledger.StateUnknown || err != nil {
		t.Fatalf("a new ledger holds %+v, %v", e, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".hwm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, want 0600 or less", p, st.Mode().Perm())
		}
	}
	l, err = Open(path, &Options{MustExist: true})
	if err != nil {
		t.Fatalf("Open of a created ledger: %v", err)
	}
	defer l.Close()
	if e, err := l.Lookup(d); e.State != ledger.StateUnknown || err != nil {
		t.Fatalf("reopened: %+v, %v", e, err)
	}
	if err := l.Emit(d); err != nil {
		t.Fatal(err)
	}
	if e, _ := l.Lookup(d); e.State != ledger.StateEmitted {
		t.Fatalf("after Emit: %+v", e)
	}
}

// TestCreateExisting: Create never opens or changes what is at path, nor
// creates a ledger beside the high-water file of an earlier one.
func TestCreateExisting(t *testing.T) {
	dir := t.TempDir()

	// A ledger with an entry: refused, and left as it was.
	path := filepath.Join(dir, "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := hashing.Sum([]byte("envelope"))
	l.Emit(d)
	l.Close()
	before, _ := os.ReadFile(path)
	beforeHWM, _ := os.ReadFile(path + ".hwm")
	_, err = Create(path, nil)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".hwm") {
		t.Fatalf("Create over a ledger: %v; want fs.ErrExist naming the file, not its high-water file", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("Create changed the ledger it refused")
	}
	if after, _ := os.ReadFile(path + ".hwm"); !bytes.Equal(after, beforeHWM) {
		t.Fatal("Create changed the high-water file of the ledger it refused")
	}

	// Any other file, and a dangling symbolic link.
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("notes"), 0o600)
	if _, err := Create(other, nil); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over a file: %v", err)
	}
	if got, _ := os.ReadFile(other); string(got) != "notes" {
		t.Fatalf("Create changed a file it refused: %q", got)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(filepath.Join(dir, "nowhere.db"), link); err == nil {
		if _, err := Create(link, nil); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("Create over a dangling symbolic link: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "nowhere.db")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatal("Create followed a dangling symbolic link")
		}
	}

	// The high-water file of a ledger deleted without it: refused
	// before anything is created.
	os.Remove(path)
	if _, err := Create(path, nil); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path+".hwm") {
		t.Fatalf("Create beside an earlier high-water file: %v; want fs.ErrExist naming it", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Create left a file beside the earlier high-water file")
	}
	if after, _ := os.ReadFile(path + ".hwm"); !bytes.Equal(after, beforeHWM) {
		t.Fatal("Create changed the earlier high-water file")
	}
}

// TestCreateErrors: bad options and a missing directory fail, creating
// nothing; neither error claims the ledger exists.
func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	if _, err := Create(path, &Options{MustExist: true}); err == nil || errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create with MustExist: %v", err)
	}
	if _, err := Create(path, &Options{Wait: -1}); err == nil || errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create with a negative wait: %v", err)
	}
	missing := filepath.Join(dir, "no", "dir", "ledger.db")
	_, err := Create(missing, nil)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Create in a missing directory: %v; want fs.ErrNotExist naming the file", err)
	}
	if strings.Count(err.Error(), missing) != 1 {
		t.Errorf("the error names the file more than once: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("failed Creates left %v", entries)
	}
}
