package main

import (
	"os"
	"syscall"
)

// maxRSSKiB returns the peak resident set of the exited process, in KiB
// (Linux's rusage unit).
func maxRSSKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
