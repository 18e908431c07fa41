//go:build !linux

package syncdir

import "os"

// Data makes what was written to f durable: f.Sync (on Linux, fdatasync).
func Data(f *os.File) error { return f.Sync() }
