//go:build windows

package receipt

import (
	"errors"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// errWouldBlock is lockFile's error when another holds the lock.
var errWouldBlock = errors.New("would block")

var procLockFileEx = syscall.NewLazyDLL("kernel32.dll").NewProc("LockFileEx")

const (
	lockfileFailImmediately = 0x1
	lockfileExclusiveLock   = 0x2
	errorLockViolation      = syscall.Errno(33)
)

// lockFile takes an exclusive LockFileEx lock on the first byte of f,
// trying every 10 ms for up to wait (once for 0). It is released when f is
// closed.
func lockFile(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		var ol syscall.Overlapped
		r, _, err := procLockFileEx.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
		switch {
		case r != 0:
			return nil
		case err != errorLockViolation:
			return err
		case !time.Now().Before(deadline):
			return errWouldBlock
		}
		time.Sleep(min(10*time.Millisecond, time.Until(deadline)))
	}
}
