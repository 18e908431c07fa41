//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoBlock opens the file name for reading without blocking in the
// open: a named pipe with no writer opens at once (and is then refused as
// not regular by readBounded), where a plain open would wait for a writer
// for ever. A regular file reads as it would otherwise.
func openNoBlock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// keyPermissions reports a private key file that its group or others may
// read or write: any of the permission bits 077, as ssh refuses a private
// key ("UNPROTECTED PRIVATE KEY FILE"), since whoever can read it can sign
// in its owner's name, and whoever can write it can swap it. Unlike ssh,
// which checks only the keys its user owns, it checks every key file,
// whoever owns it: a key of root's that every user can read is no less
// exposed. fi is the FileInfo of the file opened, a regular file.
func keyPermissions(fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &unprotectedKeyError{perm: perm}
	}
	return nil
}
