// Package cpu detects, once at start-up, the CPU features that the module's
// kernels need, for hashing and canon alike, with
// github.com/klauspost/cpuid/v2 (which also checks that the OS saves the
// vector state before it reports AVX, AVX2 or AVX-512).
//
// cpuid rather than golang.org/x/sys/cpu: x/sys/cpu has no x86 SHA bit,
// which hashing's shani path needs, nor the width of the vector datapath
// (hashing's batch rule depends on it), the vendor, or the brand name that
// bbdigest cpu prints; one detector for both packages means one answer to
// "does this CPU have AVX-512".
//
// The features are plain variables, read where each package computes the
// bools its kernels need (hashing/block_amd64.go, canon/scan_amd64.go, …);
// no hot path reads this package. In a build without assembly (the purego
// tag, or an architecture with no kernels) nothing is detected and every
// feature is false.
package cpu

// X86 holds the x86-64 features; all false on other architectures and
// under purego.
var X86 struct {
	HasSSSE3     bool
	HasSSE41     bool
	HasPOPCNT    bool
	HasPCLMULQDQ bool
	HasSHA       bool // the SHA extensions (SHA-NI)
	HasAVX       bool
	HasAVX2      bool
	HasBMI2      bool

	HasAVX512F     bool
	HasAVX512BW    bool
	HasAVX512VL    bool
	HasAVX512VBMI2 bool

	// HasFP128 and HasFP256 are set when the CPU reports that its FP/SIMD
	// execution datapath is no more than 128 or 256 bits wide (CPUID leaf
	// 0x8000001A, EAX bits 0 and 2: AMD Zen 1 reports 128, Zen 2 to 4
	// report 256), so that it runs a 512-bit instruction as two or four
	// halves. CPUs that do not report it (Intel) run AVX-512 at full width.
	HasFP128 bool
	HasFP256 bool
}

// ARM64 holds the Armv8 features; all false on other architectures and
// under purego.
var ARM64 struct {
	HasASIMD  bool
	HasSHA2   bool
	HasSHA512 bool
}

// Brand returns the CPU's brand name, such as "AMD EPYC", or GOARCH in a
// build without assembly.
func Brand() string { return brand() }

// Features returns the names of the features found that some kernel of the
// module reads, lowercase, in a fixed order; nil in a build without
// assembly.
func Features() []string {
	var f []string
	for _, x := range known {
		if *x.has {
			f = append(f, x.name)
		}
	}
	return f
}

// feature names one of the variables above for Features.
type feature struct {
	name string
	has  *bool
}
