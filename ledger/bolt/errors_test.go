package bolt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// TestErrorsNameTheLedger: every error of the bolt ledger is a
// *ledger.Error naming the operation and the file, whose message begins
// with "ledger: " and names no other package, and which wraps the
// sentinel or the file system's error.
func TestErrorsNameTheLedger(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := hashing.Sum([]byte("e"))
	l.Emit(d)
	l.Resolve(d, ledger.OutcomeAuthority)
	_, locked := Open(path, &Options{})
	_, badOutcome := l.Resolve(d, 0)
	resolved := l.Emit(d)
	l.Close()
	closed := l.Emit(d)
	closedTwice := l.Close()
	_, exists := Create(path, nil)
	missing := filepath.Join(dir, "missing.db")
	_, notExist := Open(missing, &Options{MustExist: true})
	bad := filepath.Join(dir, "bad.db")
	os.WriteFile(bad, []byte(strings.Repeat("not a bbolt file ", 1000)), 0o600)
	_, corrupt := Open(bad, &Options{})
	for _, tc := range []struct {
		name, op, path string
		err, is        error
		detail         string
	}{
		{"locked", "open", path, locked, ledger.ErrLocked, "open ledger " + path + ": locked by another process (waited 0s)"},
		{"bad outcome", "", path, badOutcome, nil, "ledger " + path + ": outcome invalid does not resolve an envelope"},
		{"resolved", "", path, resolved, ledger.ErrAlreadyResolved, "ledger " + path + ": envelope already resolved: " + d.String()},
		{"closed", "", path, closed, ledger.ErrClosed, "ledger " + path + ": closed"},
		{"closed twice", "close", path, closedTwice, ledger.ErrClosed, "close ledger " + path + ": closed"},
		{"exists", "create", path, exists, fs.ErrExist, "create ledger " + path + ": file already exists"},
		{"not exist", "", missing, notExist, fs.ErrNotExist, "ledger " + missing + ": file does not exist"},
		{"corrupt", "", bad, corrupt, ledger.ErrCorrupt, "ledger " + bad + ": corrupt: "},
	} {
		e, ok := errors.AsType[*ledger.Error](tc.err)
		switch {
		case !ok:
			t.Errorf("%s: %v, want a *ledger.Error", tc.name, tc.err)
		case e.Op != tc.op || e.Path != tc.path || !strings.HasPrefix(e.Detail(), tc.detail) || tc.err.Error() != "ledger: "+e.Detail():
			t.Errorf("%s: %v (op %q, path %q), want op %q, path %q, detail %q...", tc.name, tc.err, e.Op, e.Path, tc.op, tc.path, tc.detail)
		case tc.is != nil && !errors.Is(tc.err, tc.is):
			t.Errorf("%s: %v does not wrap %v", tc.name, tc.err, tc.is)
		case strings.Contains(tc.err.Error(), "envelope:"):
			t.Errorf("%s: %v names package envelope", tc.name, tc.err)
		}
	}
}
