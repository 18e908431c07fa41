//go:build (!amd64 && !arm64) || purego

package cpu

import "runtime"

// PureGo reports a build without assembly kernels: the purego tag, or an
// architecture other than amd64 and arm64. Nothing is detected there.
const PureGo = true

var known []feature

func brand() string { return runtime.GOARCH }
