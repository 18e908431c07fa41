//go:build !windows && !plan9 && !solaris && !aix && !android

package bolt

import (
	"os"
	"syscall"
)

// releaseFile unlocks and closes bbolt's file when bbolt cannot close it
// itself (it panicked in Open, or may hold its own locks). bbolt locks the
// file with flock(2) here, and a flock lasts while the open file
// description does, which bbolt's memory map keeps alive after the
// descriptor is closed: so unlock it first.
func releaseFile(f *os.File) error {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return f.Close()
}
