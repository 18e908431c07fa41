//go:build (amd64 || arm64) && !purego

package cpu

import "github.com/klauspost/cpuid/v2"

// PureGo reports a build without assembly kernels: the purego tag, or an
// architecture other than amd64 and arm64.
const PureGo = false

func brand() string { return cpuid.CPU.BrandName }
