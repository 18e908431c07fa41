// Package keyfile holds the rules for the files bbdigest reads Ed25519 keys
// from (the gate's and receipts' signing keys, principals' keys): their
// kind, a regular file of a few KiB read under a bound (Kind, read with
// package boundedread), and the permissions a private key file must have,
// none for its group or others, as ssh requires of its keys
// (CheckPermissions); and the writing of a new pair, which never replaces
// a key and never leaves a private key without its public half
// (WritePair, keygen --out). What a key file holds, and how it is parsed,
// is package receipt's.
package keyfile

import (
	"fmt"
	"io/fs"

	"github.com/bbdigest/bbdigest/internal/boundedread"
)

// Kind is the kind of a key file, private or public: a regular file (a
// named pipe, device or socket is refused without blocking in the open) of
// at most 16 KiB. An Ed25519 key file is under 300 bytes (keygen's stdout
// form, with its two comment lines); the bound leaves room for more
// comments.
var Kind = boundedread.Kind{What: "a key file", Limit: 16 << 10, Regular: true}

// UnprotectedError is a private key file that its group or others may
// read or write (see CheckPermissions).
type UnprotectedError struct {
	Perm fs.FileMode // the file's permission bits
}

func (e *UnprotectedError) Error() string {
	who := "its group and others"
	switch {
	case e.Perm&0o007 == 0:
		who = "its group"
	case e.Perm&0o070 == 0:
		who = "others"
	}
	return fmt.Sprintf("unprotected private key file: its permissions %04o give %s access to it (want 0600 or 0400)", uint32(e.Perm.Perm()), who)
}
