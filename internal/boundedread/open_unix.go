//go:build unix

package boundedread

import (
	"os"
	"syscall"
)

// OpenNoBlock opens the file name for reading without blocking in the
// open: a named pipe with no writer opens at once (and is then refused as
// not regular by ReadFile), where a plain open would wait for a writer
// for ever. A regular file reads as it would otherwise.
func OpenNoBlock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
