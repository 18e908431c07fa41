// Package peakmem reads the peak resident memory of the running process,
// for tests that hold a computation to a bound on memory by running it in
// a child process.
package peakmem

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// VmHWM returns the process's peak resident set size in bytes (the VmHWM
// line of /proc/self/status). It fails where there is no /proc, so a test
// can skip there.
func VmHWM() (int, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb << 10, err
		}
	}
	return 0, errors.New("peakmem: no VmHWM in /proc/self/status")
}
