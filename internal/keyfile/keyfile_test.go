package keyfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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
