package main

import (
	"os"
	"syscall"
)

// maxRSSKiB returns the peak resident set of the exited process, in KiB
// (Linux's rusage unit). Linux counts in it the peak of the process that
// started it (see selfMaxRSSKiB).
func maxRSSKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// selfMaxRSSKiB returns this process's peak resident set, in KiB: the floor
// of a child's maxRSSKiB, for Go starts a child with vfork, in this
// process's memory until it execs, and Linux keeps the peak of the memory
// a process execs from.
func selfMaxRSSKiB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss
}
