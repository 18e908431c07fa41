//go:build !purego

package cpu

import "github.com/klauspost/cpuid/v2"

// x86Features ties each variable of X86 to its name in Features and its
// CPUID bit: first those of hashing's paths, then those only canon's
// kernels read, then the datapath width hashing's batch rule reads.
var x86Features = []struct {
	feature
	id cpuid.FeatureID
}{
	{feature{"sse4.1", &X86.HasSSE41}, cpuid.SSE4}, {feature{"ssse3", &X86.HasSSSE3}, cpuid.SSSE3},
	{feature{"sha", &X86.HasSHA}, cpuid.SHA}, {feature{"avx", &X86.HasAVX}, cpuid.AVX},
	{feature{"avx2", &X86.HasAVX2}, cpuid.AVX2}, {feature{"bmi2", &X86.HasBMI2}, cpuid.BMI2},
	{feature{"avx512f", &X86.HasAVX512F}, cpuid.AVX512F}, {feature{"avx512bw", &X86.HasAVX512BW}, cpuid.AVX512BW},
	{feature{"avx512vl", &X86.HasAVX512VL}, cpuid.AVX512VL}, {feature{"avx512vbmi2", &X86.HasAVX512VBMI2}, cpuid.AVX512VBMI2},
	{feature{"pclmulqdq", &X86.HasPCLMULQDQ}, cpuid.CLMUL}, {feature{"popcnt", &X86.HasPOPCNT}, cpuid.POPCNT},
	{feature{"fp128", &X86.HasFP128}, cpuid.FP128}, {feature{"fp256", &X86.HasFP256}, cpuid.FP256},
}

// known lists the features Features reports.
var known []feature

func init() {
	for _, f := range x86Features {
		*f.has = cpuid.CPU.Supports(f.id)
		known = append(known, f.feature)
	}
}
