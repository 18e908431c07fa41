//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package receipt

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errWouldBlock is lockFile's error when another holds the lock.
var errWouldBlock = errors.New("would block")

// lockFile takes an exclusive flock(2) on f, trying every 10 ms for up to
// wait (once for 0). A flock belongs to the open file description, so a
// second Open of the same file in this process is refused as another
// process's would be; it is released when f is closed.
func lockFile(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return err
		case !time.Now().Before(deadline):
			return errWouldBlock
		}
		time.Sleep(min(10*time.Millisecond, time.Until(deadline)))
	}
}
