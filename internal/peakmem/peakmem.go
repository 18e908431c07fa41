// Package peakmem reads the peak resident memory of the running process,
// for tests that hold a computation to a bound on memory by running it in
// a child process.
package peakmem

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/bbdigest/bbdigest/internal/race"
	"github.com/bbdigest/bbdigest/internal/selfexec"
)

// ErrRace is VmHWM's error in a build with the race detector, whose shadow
// memory multiplies a process's resident memory several times over: no
// bound on peak memory means anything there.
var ErrRace = errors.New("peakmem: peak memory is not measured under the race detector")

// ErrEmulated is VmHWM's error in a process that runs under a user-mode
// emulator (selfexec.Emulator): its VmHWM is the emulator's, translation
// cache and the emulator's own heap included, so no bound on it says
// anything about bbdigest.
var ErrEmulated = errors.New("peakmem: peak memory is not measured under a user-mode emulator")

// VmHWM returns the process's peak resident set size in bytes (the VmHWM
// line of /proc/self/status). It fails where there is no /proc, under the
// race detector (ErrRace) and under a user-mode emulator (ErrEmulated), so
// a test can skip there.
func VmHWM() (int, error) {
	if race.Enabled {
		return 0, ErrRace
	}
	if emu := selfexec.Emulator(); emu != "" {
		return 0, fmt.Errorf("%w (%s)", ErrEmulated, emu)
	}
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
