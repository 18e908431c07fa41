package syncdir

import (
	"os"
	"syscall"
)

// Data makes what was written to f durable: its bytes, and its size and
// whatever else reading them back needs, but not its times. On Linux it
// is fdatasync(2), which for a write in place in a file whose size does
// not change (a high-water file's slot) skips the journal commit that
// fsync(2) makes for the modification time. Elsewhere it is f.Sync.
func Data(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			if err != nil {
				return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}
