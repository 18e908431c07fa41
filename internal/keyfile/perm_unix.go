//go:build unix

package keyfile

import (
	"io/fs"
)

// CheckPermissions reports a private key file that its group or others may
// read or write: any of the permission bits 077, as ssh refuses a private
// key ("UNPROTECTED PRIVATE KEY FILE"), since whoever can read it can sign
// in its owner's name, and whoever can write it can swap it. Unlike ssh,
// which checks only the keys its user owns, it checks every key file,
// whoever owns it: a key of root's that every user can read is no less
// exposed. fi is the FileInfo of the file opened, a regular file; the
// error is an *UnprotectedError.
func CheckPermissions(fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &UnprotectedError{Perm: perm}
	}
	return nil
}
