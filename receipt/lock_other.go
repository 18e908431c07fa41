//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package receipt

import (
	"errors"
	"os"
	"runtime"
	"time"
)

// errWouldBlock is lockFile's error when another holds the lock.
var errWouldBlock = errors.New("would block")

// lockFile fails: this system has no file lock the package knows, and a
// log that two writers could append to would fork its chain.
func lockFile(f *os.File, wait time.Duration) error {
	return errors.New("no file locking on " + runtime.GOOS)
}
