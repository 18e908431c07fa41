//go:build unix

package bench

import "syscall"

// cpuTime returns the CPU time the process has used, user and system, in
// nanoseconds, or 0 where it cannot be read.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
