package keyfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestUnprotectedError checks the message: the permissions, and who they
// give access to.
func TestUnprotectedError(t *testing.T) {
	for perm, want := range map[fs.FileMode]string{
		0o644: "its permissions 0644 give its group and others access to it",
		0o640: "its permissions 0640 give its group access to it",
		0o604: "its permissions 0604 give others access to it",
		0o622: "its permissions 0622 give its group and others access to it",
		0o602: "its permissions 0602 give others access to it",
	} {
		got := (&UnprotectedError{Perm: perm}).Error()
		if got != "unprotected private key file: "+want+" (want 0600 or 0400)" {
			t.Errorf("%04o: %q", perm, got)
		}
	}
}

// TestCheckPermissions checks key files of each permission: on Unix any
// access for the group or others is refused with an *UnprotectedError
// naming the file's bits, and 0600, 0400 and 0700 are accepted; elsewhere
// every file is accepted.
func TestCheckPermissions(t *testing.T) {
	name := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(name, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	unix := runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1"
	for _, perm := range []fs.FileMode{0o600, 0o400, 0o700, 0o640, 0o604, 0o660, 0o602, 0o644} {
		if err := os.Chmod(name, perm); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckPermissions(fi)
		ue, ok := errors.AsType[*UnprotectedError](err)
		switch {
		case !unix || perm&0o077 == 0:
			if err != nil {
				t.Errorf("%04o: %v, want it accepted", perm, err)
			}
		case !ok || ue.Perm != perm:
			t.Errorf("%04o: %v, want an *UnprotectedError of %04o", perm, err, perm)
		}
	}
}

// TestWritePair: the pair written with its permissions; a name whose file
// or public file exists (a dangling symbolic link too) is an
// *ExistsError and nothing is written; a name that cannot be checked is a
// *PathError naming it, and nothing is left behind.
func TestWritePair(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "k")
	if err := WritePair(name, []byte("private"), []byte("public\n")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{name: "private", name + ".pub": "public\n"} {
		b, err := os.ReadFile(p)
		if err != nil || string(b) != want {
			t.Errorf("%s holds %q, %v; want %q", p, b, err, want)
		}
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]fs.FileMode{name: PrivatePerm, name + ".pub": PublicPerm} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&^want != 0 { // the umask may take more
				t.Errorf("%s: mode %v, %v; want at most %v", p, fi.Mode(), err, want)
			}
		}
	}

	for _, tc := range []struct{ name, exists string }{{"k", "k"}, {"only-pub", "only-pub.pub"}, {"link", "link"}} {
		n := filepath.Join(dir, tc.name)
		if tc.name == "only-pub" {
			os.WriteFile(n+".pub", nil, 0o644)
		}
		if tc.name == "link" {
			if err := os.Symlink(filepath.Join(dir, "nowhere"), n); err != nil {
				t.Skip(err)
			}
		}
		err := WritePair(n, []byte("x"), []byte("y"))
		e, ok := errors.AsType[*ExistsError](err)
		if !ok || e.Path != filepath.Join(dir, tc.exists) || e.Error() != e.Path+" exists: not overwriting a key" {
			t.Errorf("%s: WritePair = %v, want an *ExistsError for %s", tc.name, err, tc.exists)
		}
	}
	if b, _ := os.ReadFile(name); string(b) != "private" {
		t.Errorf("a refused WritePair changed %s: %q", name, b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "only-pub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused WritePair created the private key file: %v", err)
	}

	long := filepath.Join(dir, strings.Repeat("l", 253)) // the name fits, the .pub one does not
	err := WritePair(long, []byte("x"), []byte("y"))
	if e, ok := errors.AsType[*PathError](err); !ok || e.Path != long+".pub" || e.Err == nil {
		t.Errorf("WritePair with a .pub name too long = %v, want a *PathError naming it", err)
	}
	if _, err := os.Lstat(long); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed WritePair left the private key file: %v", err)
	}
}
