//go:build !purego

package cpu

import "github.com/klauspost/cpuid/v2"

func init() {
	c := &cpuid.CPU
	X86.Intel = c.VendorID == cpuid.Intel
	X86.HasSSSE3 = c.Supports(cpuid.SSSE3)
	X86.HasSSE41 = c.Supports(cpuid.SSE4)
	X86.HasPOPCNT = c.Supports(cpuid.POPCNT)
	X86.HasPCLMULQDQ = c.Supports(cpuid.CLMUL)
	X86.HasSHA = c.Supports(cpuid.SHA)
	X86.HasAVX = c.Supports(cpuid.AVX)
	X86.HasAVX2 = c.Supports(cpuid.AVX2)
	X86.HasBMI2 = c.Supports(cpuid.BMI2)
	X86.HasAVX512F = c.Supports(cpuid.AVX512F)
	X86.HasAVX512BW = c.Supports(cpuid.AVX512BW)
	X86.HasAVX512VL = c.Supports(cpuid.AVX512VL)
	X86.HasAVX512VBMI2 = c.Supports(cpuid.AVX512VBMI2)
}

// known lists the features Features reports: first those of hashing's
// paths, then those only canon's kernels read.
var known = []feature{
	{"sse4.1", &X86.HasSSE41}, {"ssse3", &X86.HasSSSE3}, {"sha", &X86.HasSHA},
	{"avx", &X86.HasAVX}, {"avx2", &X86.HasAVX2}, {"bmi2", &X86.HasBMI2},
	{"avx512f", &X86.HasAVX512F}, {"avx512bw", &X86.HasAVX512BW}, {"avx512vl", &X86.HasAVX512VL},
	{"avx512vbmi2", &X86.HasAVX512VBMI2}, {"pclmulqdq", &X86.HasPCLMULQDQ}, {"popcnt", &X86.HasPOPCNT},
}
