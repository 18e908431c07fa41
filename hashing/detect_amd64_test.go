//go:build !purego

package hashing

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestBatchPath checks the batch rule on the capabilities of known CPU
// kinds: sixteen AVX-512 lanes where AVX-512 runs at full width or SHA-NI
// is missing, two SHA-NI streams where AVX-512 is split into halves (or
// absent), whatever the vendor.
func TestBatchPath(t *testing.T) {
	for _, tt := range []struct {
		cpu  string
		caps x86Caps
		want pathID
	}{
		{"Intel Emerald Rapids", x86Caps{sha: true, avx2: true, avx512: true}, pathAVX512},
		{"Intel Skylake-SP (no SHA-NI)", x86Caps{avx2: true, avx512: true}, pathAVX512},
		{"Intel Alder Lake (no AVX-512)", x86Caps{sha: true, avx2: true}, pathSHANI},
		{"Intel Haswell", x86Caps{avx2: true}, pathAVX2},
		{"AMD Zen 1 (FP128)", x86Caps{sha: true, avx2: true, narrow: true}, pathSHANI},
		{"AMD Zen 3 (FP256)", x86Caps{sha: true, avx2: true, narrow: true}, pathSHANI},
		{"AMD Zen 4 (FP256)", x86Caps{sha: true, avx2: true, avx512: true, narrow: true}, pathSHANI},
		{"AMD Zen 5, full width", x86Caps{sha: true, avx2: true, avx512: true}, pathAVX512},
		{"narrow AVX-512 without SHA-NI", x86Caps{avx2: true, avx512: true, narrow: true}, pathAVX512},
		{"SSE only", x86Caps{}, pathGeneric},
	} {
		if got := batchPath(tt.caps); got != tt.want {
			t.Errorf("%s %+v: %s, want %s", tt.cpu, tt.caps, got, tt.want)
		}
	}
}

// TestDetectByFamily checks the path detected on this machine against
// what /proc/cpuinfo says of it: on AMD up to family 25 (Zen 1 to 4,
// Hygon), whose vector units are at most 256 bits wide, batches never go
// to the AVX-512 lanes when SHA-NI is there; on Intel with AVX-512 (F and
// BW) they always do.
func TestDetectByFamily(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip(err)
	}
	field := func(name string) string {
		for line := range strings.Lines(string(b)) {
			k, v, ok := strings.Cut(line, ":")
			if ok && strings.TrimSpace(k) == name {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	vendor, flags := field("vendor_id"), strings.Fields(field("flags"))
	family, err := strconv.Atoi(field("cpu family"))
	if err != nil {
		t.Skipf("no cpu family in /proc/cpuinfo: %v", err)
	}
	has := func(flag string) bool { return slices.Contains(flags, flag) }
	t.Logf("%s family %d: detected %s (batch %s)", vendor, family, detected.name, detected.batch)
	switch {
	case (vendor == "AuthenticAMD" || vendor == "HygonGenuine") && family <= 25 && has("sha_ni"):
		if detected.batch != batchSHANIx2 {
			t.Errorf("%s family %d with SHA-NI: batch kernel %s, want shani-x2", vendor, family, detected.batch)
		}
	case vendor == "GenuineIntel" && has("avx512f") && has("avx512bw"):
		if detected.batch != batchAVX512x16 {
			t.Errorf("Intel with AVX-512: batch kernel %s, want avx512-x16", detected.batch)
		}
	default:
		t.Skipf("%s family %d: no expectation", vendor, family)
	}
}
