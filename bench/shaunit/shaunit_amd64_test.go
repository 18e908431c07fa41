//go:build amd64 && !purego

package shaunit

import (
	"testing"

	"github.com/klauspost/cpuid/v2"
)

func bench(b *testing.B, f func(int), perIter int) {
	if !cpuid.CPU.Supports(cpuid.SHA, cpuid.SSE4) {
		b.Skip("no SHA extensions")
	}
	const iters = 1000
	for b.Loop() {
		f(iters)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(iters*perIter), "ns/rnds2")
}

// BenchmarkRNDS2 reports ns per SHA256RNDS2: latency=1 is the latency,
// chains=2..4 the throughput, mixed=msg the throughput with the message
// schedule's instructions competing.
func BenchmarkRNDS2(b *testing.B) {
	b.Run("chains=1", func(b *testing.B) { bench(b, chain1, 8) })
	b.Run("chains=2", func(b *testing.B) { bench(b, chain2, 16) })
	b.Run("chains=3", func(b *testing.B) { bench(b, chain3, 24) })
	b.Run("chains=4", func(b *testing.B) { bench(b, chain4, 8) })
	b.Run("chains=2/mixed=msg", func(b *testing.B) { bench(b, mixed, 16) })
}
