package boundedread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Kind is a kind of file read whole that is not a JSON input bounded by a
// profile (keys, policies, check lists, archive's summaries and .resume
// files): what messages call it, its size bound, and whether a named one
// must be a regular file.
//
// The kinds a gate depends on, and keys wherever they are read, must be
// regular files. That is checked on the file opened, not on its name
// before opening (a rename in between would defeat it), and the open
// itself does not block (OpenNoBlock): a named pipe that never gets a
// writer, a device or a socket is refused before a byte is read. The other
// kinds may be pipes (a shell's <(...)), and then, like cat, their reader
// waits for their writer.
type Kind struct {
	What    string // what messages call it: "a key file"
	Limit   int    // the size bound, in bytes
	Regular bool   // a named file must be a regular file
}

// TooLargeError is a file longer than the bound of its kind.
type TooLargeError struct{ Kind Kind }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("longer than the %d-byte bound of %s", e.Kind.Limit, e.Kind.What)
}

// NotRegularError is a named file of a kind that must be a regular file,
// which is not; Mode is its mode.
type NotRegularError struct {
	Kind Kind
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("not a regular file (%s): %s must be one", fileType(e.Mode), e.Kind.What)
}

// fileType names the type of a file that is not regular.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeDir != 0:
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "mode " + m.Type().String()
}

// ReadFile reads the whole of the file name, of kind k, and returns it
// with the file's FileInfo, taken from the file opened. A file longer
// than k's bound is a *TooLargeError, read no further than one byte past
// the bound (a regular file past it is refused unread); for a kind that
// must be regular, a named pipe, device, socket or directory is a
// *NotRegularError, refused before a byte is read and without blocking in
// the open; a failure to open or read is its *fs.PathError.
func ReadFile(name string, k Kind) ([]byte, fs.FileInfo, error) {
	var f *os.File
	var err error
	if k.Regular {
		f, err = OpenNoBlock(name)
	} else {
		f, err = os.Open(name)
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if k.Regular && !fi.Mode().IsRegular() {
		return nil, fi, &NotRegularError{Kind: k, Mode: fi.Mode()}
	}
	b, err := k.Read(f)
	return b, fi, err
}

// Read reads r to its end under k's bound: a *TooLargeError once the
// bound is passed, holding no more than the bound plus one chunk (see
// ReadAll).
func (k Kind) Read(r io.Reader) ([]byte, error) {
	b, err := ReadAll(nil, r, k.Limit)
	if errors.Is(err, ErrTooLarge) {
		return nil, &TooLargeError{Kind: k}
	}
	return b, err
}
