//go:build !race

package peakmem

// race reports a build with the race detector (see VmHWM).
const race = false
