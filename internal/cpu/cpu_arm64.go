//go:build !purego

package cpu

import "github.com/klauspost/cpuid/v2"

// arm64Features ties each variable of ARM64 to its name in Features and
// its feature bit.
var arm64Features = []struct {
	feature
	id cpuid.FeatureID
}{
	{feature{"asimd", &ARM64.HasASIMD}, cpuid.ASIMD},
	{feature{"sha2", &ARM64.HasSHA2}, cpuid.SHA2},
	{feature{"sha512", &ARM64.HasSHA512}, cpuid.SHA512},
}

// known lists the features Features reports.
var known []feature

func init() {
	for _, f := range arm64Features {
		*f.has = cpuid.CPU.Supports(f.id)
		known = append(known, f.feature)
	}
}
