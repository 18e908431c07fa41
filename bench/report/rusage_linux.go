package main

import (
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
)

// maxRSSKiB returns the peak resident set of the exited process, in KiB
// (Linux's rusage unit). Linux counts in it the peak of the process that
// started it (see rssFloorKiB).
func maxRSSKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// resetRSSPeak gives this process's free memory back to the system and
// resets its peak resident set to its size now (/proc/self/clear_refs
// "5", Linux 4.0 and later), so that a child started next counts a floor
// of a few MiB rather than the report's largest size so far. Where the
// reset is refused, the floor stays higher and rssFloorKiB says so.
func resetRSSPeak() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// rssFloorKiB returns this process's peak resident set (VmHWM), in KiB,
// or 0 where /proc does not say: read after a child exits, it bounds from
// above the floor of the child's maxRSSKiB, for Go starts a child with
// vfork, in this process's memory until it execs, and Linux keeps in the
// child's peak that of the memory it execs from.
func rssFloorKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VmHWM:")); ok {
			v = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return 0
			}
			return n
		}
	}
	return 0
}
