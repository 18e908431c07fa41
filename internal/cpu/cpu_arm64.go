//go:build !purego

package cpu

import "github.com/klauspost/cpuid/v2"

func init() {
	ARM64.HasASIMD = cpuid.CPU.Supports(cpuid.ASIMD)
	ARM64.HasSHA2 = cpuid.CPU.Supports(cpuid.SHA2)
	ARM64.HasSHA512 = cpuid.CPU.Supports(cpuid.SHA512)
}

// known lists the features Features reports.
var known = []feature{{"asimd", &ARM64.HasASIMD}, {"sha2", &ARM64.HasSHA2}, {"sha512", &ARM64.HasSHA512}}
