package keyfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The permissions of the key files WritePair creates: the private key
// file open to its owner only (what CheckPermissions wants), the public
// key file to all.
const (
	PrivatePerm fs.FileMode = 0o600
	PublicPerm  fs.FileMode = 0o644
)

// ExistsError is a key file that WritePair would write and that exists:
// it never replaces a key.
type ExistsError struct {
	Path string
}

func (e *ExistsError) Error() string { return e.Path + " exists: not overwriting a key" }

// PathError is a key file that WritePair could not check, create or
// write; Err is the error of the operation (an *fs.PathError of Lstat or
// OpenFile, or of a write or sync wrapped in "write: ").
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// WritePair writes a new key pair: private to the file name, with
// PrivatePerm, and public to name+".pub", with PublicPerm, each created
// (neither may exist, as a file or a symbolic link: an *ExistsError),
// written and synced. Both names are checked before either is written. On
// failure it returns a *PathError and removes what it created: never a
// private key without its public half.
func WritePair(name string, private, public []byte) error {
	pubName := name + ".pub"
	for _, p := range []string{name, pubName} {
		_, err := os.Lstat(p)
		if err == nil {
			return &ExistsError{Path: p}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return &PathError{Path: p, Err: err}
		}
	}
	if err := writeNew(name, private, PrivatePerm); err != nil {
		return &PathError{Path: name, Err: err}
	}
	if err := writeNew(pubName, public, PublicPerm); err != nil {
		os.Remove(name)
		return &PathError{Path: pubName, Err: err}
	}
	return nil
}

// writeNew creates the file name, which must not exist, with perm, writes
// b to it and syncs it. On failure it removes what it created.
func writeNew(name string, b []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
