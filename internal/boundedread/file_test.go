package boundedread

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile: a file of exactly the bound is read with its FileInfo,
// one byte more is a *TooLargeError that names the bound and the kind, a
// directory is a *NotRegularError for a kind that must be regular (and a
// read failure otherwise), and a missing file is its *fs.PathError.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []Kind{{What: "a thing", Limit: 10}, {What: "a key", Limit: 10, Regular: true}} {
		at := filepath.Join(dir, "at")
		if err := os.WriteFile(at, []byte("0123456789"), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, fi, err := ReadFile(at, k); err != nil || string(b) != "0123456789" || fi.Size() != 10 {
			t.Errorf("%s: a file of the bound: %q, %v", k.What, b, err)
		}
		past := filepath.Join(dir, "past")
		if err := os.WriteFile(past, []byte("0123456789a"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := ReadFile(past, k)
		if e, ok := errors.AsType[*TooLargeError](err); !ok || e.Kind != k || err.Error() != "longer than the 10-byte bound of "+k.What {
			t.Errorf("%s: a file past the bound: %v", k.What, err)
		}
		_, _, err = ReadFile(dir, k)
		if e, ok := errors.AsType[*NotRegularError](err); ok != k.Regular || ok && (!e.Mode.IsDir() || err.Error() != "not a regular file (a directory): "+k.What+" must be one") {
			t.Errorf("%s: a directory: %v", k.What, err)
		}
		if _, _, err := ReadFile(filepath.Join(dir, "missing"), k); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: a missing file: %v", k.What, err)
		}
	}
}

// TestKindRead: Read holds a reader to the bound too.
func TestKindRead(t *testing.T) {
	k := Kind{What: "a list", Limit: 4}
	if b, err := k.Read(strings.NewReader("abcd")); err != nil || string(b) != "abcd" {
		t.Errorf("at the bound: %q, %v", b, err)
	}
	if _, err := k.Read(strings.NewReader("abcde")); err == nil || err.Error() != "longer than the 4-byte bound of a list" {
		t.Errorf("past the bound: %v", err)
	}
}
