//go:build windows || plan9 || solaris || aix || android

package bolt

import "os"

// releaseFile closes bbolt's file when bbolt cannot close it itself (it
// panicked in Open, or may hold its own locks). bbolt locks the file here
// with fcntl(2) or LockFileEx, which closing the file releases.
func releaseFile(f *os.File) error { return f.Close() }
