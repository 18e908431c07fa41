//go:build !unix

package boundedread

import "os"

// OpenNoBlock opens the file name for reading. Outside Unix there are no
// named pipes that block an open, so a plain open does not block either.
func OpenNoBlock(name string) (*os.File, error) {
	return os.Open(name)
}
