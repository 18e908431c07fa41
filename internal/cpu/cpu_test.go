package cpu

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestFeatures checks that Features lists exactly the features whose
// variable is set, in a fixed order, by clearing each in turn.
func TestFeatures(t *testing.T) {
	all := Features()
	for _, x := range known {
		saved := *x.has
		*x.has = true
		on := Features()
		*x.has = false
		off := Features()
		*x.has = saved
		if !slices.Contains(on, x.name) || slices.Contains(off, x.name) {
			t.Errorf("%s: listed %v when set, %v when clear", x.name, on, off)
		}
	}
	if !slices.Equal(Features(), all) {
		t.Errorf("Features() = %v after the test, want %v", Features(), all)
	}
	if PureGo && (all != nil || Brand() != runtime.GOARCH) {
		t.Errorf("without assembly: Features() = %v, Brand() = %q; want nil and GOARCH", all, Brand())
	}
}

// TestAgreesWithProcCPUInfo compares the x86 features with the flags Linux
// reports in /proc/cpuinfo, which it clears too when the OS does not save
// the vector state they need.
func TestAgreesWithProcCPUInfo(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" || PureGo {
		t.Skip("linux/amd64 with assembly only")
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip(err)
	}
	var flags []string
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "flags"); ok {
			_, list, _ := strings.Cut(rest, ":")
			flags = strings.Fields(list)
			break
		}
	}
	if flags == nil {
		t.Skip("no flags line in /proc/cpuinfo")
	}
	for _, x := range []struct {
		flag string
		has  bool
	}{
		{"ssse3", X86.HasSSSE3}, {"sse4_1", X86.HasSSE41}, {"popcnt", X86.HasPOPCNT},
		{"pclmulqdq", X86.HasPCLMULQDQ}, {"sha_ni", X86.HasSHA}, {"avx", X86.HasAVX},
		{"avx2", X86.HasAVX2}, {"bmi2", X86.HasBMI2}, {"avx512f", X86.HasAVX512F},
		{"avx512bw", X86.HasAVX512BW}, {"avx512vl", X86.HasAVX512VL}, {"avx512_vbmi2", X86.HasAVX512VBMI2},
	} {
		if want := slices.Contains(flags, x.flag); x.has != want {
			t.Errorf("%s: detected %v, /proc/cpuinfo says %v", x.flag, x.has, want)
		}
	}
}
