//go:build !unix

package bench

// cpuTime is not available here: the benchmarks report no CPU time.
func cpuTime() int64 { return 0 }
