package peakmem

import (
	"errors"
	"runtime"
	"testing"

	"github.com/bbdigest/bbdigest/internal/selfexec"
)

var sink []byte

// The peak grows by what the process touches.
func TestVmHWM(t *testing.T) {
	before, err := VmHWM()
	if err != nil {
		t.Skip(err)
	}
	sink = make([]byte, 64<<20)
	for i := 0; i < len(sink); i += 4096 {
		sink[i] = 1
	}
	after, err := VmHWM()
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(sink)
	if after-before < 60<<20 {
		t.Errorf("VmHWM went from %d to %d after touching 64 MiB", before, after)
	}
}

// Under a user-mode emulator no peak is reported.
func TestVmHWMEmulated(t *testing.T) {
	t.Setenv(selfexec.EmulatorEnv, "qemu-test-static")
	if _, err := VmHWM(); !errors.Is(err, ErrEmulated) && !errors.Is(err, ErrRace) {
		t.Fatalf("VmHWM under an emulator: err %v, want ErrEmulated", err)
	}
}
