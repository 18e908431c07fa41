// Package syncdir makes a file's directory entry durable: the one fsync of a
// directory that the crash-safe files (ledger/bolt's high-water file,
// receipt's log, its high-water file and its .torn companion) share; and
// their writes (Data: fdatasync where there is one).
package syncdir

import (
	"os"
	"runtime"
)

// Sync fsyncs the directory dir, so that a file created in it survives a
// crash. Windows cannot sync a directory, and needs not.
func Sync(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
