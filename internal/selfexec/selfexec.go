// Package selfexec starts the running test binary again, as a child
// process, for the tests that need a second process: crash and kill tests,
// a lock held by another process, peak-memory children. It also runs them
// where the test binary itself runs under a user-mode emulator, as CI's
// 32-bit step does on a kernel that cannot execute 386 binaries (GOARCH=arm
// under qemu-arm-static, through go test -exec .ci/qemu-exec). There the
// kernel has no binfmt_misc entry for the binary, so the child must be
// started through the emulator too.
package selfexec

import (
	"os"
	"os/exec"
)

// EmulatorEnv names the environment variable in which the wrapper that runs
// a test binary under a user-mode emulator (.ci/qemu-exec) names that
// emulator: a command on PATH, such as qemu-arm-static.
const EmulatorEnv = "BBDIGEST_EMULATOR"

// Emulator returns the user-mode emulator this process runs under, as
// EmulatorEnv names it, or "" when it runs natively.
func Emulator() string { return os.Getenv(EmulatorEnv) }

// Command returns a command that runs this test binary (os.Args[0]) with
// args, through the emulator when this process runs under one. The child
// inherits the environment, EmulatorEnv included, unless the caller sets
// cmd.Env from os.Environ() as usual.
func Command(args ...string) *exec.Cmd {
	if emu := Emulator(); emu != "" {
		return exec.Command(emu, append([]string{os.Args[0]}, args...)...)
	}
	return exec.Command(os.Args[0], args...)
}
