package bench

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/impl"
)

// BenchmarkSumManyParallel hashes batches of messages with hashing.SumMany
// on every core at once (b.RunParallel, one goroutine per GOMAXPROCS, each
// with messages of its own), as package batch's workers do, on each batch
// kernel this CPU has (impl=shani-x2, avx2, avx512, forced through the
// registry), with the configuration in force unforced (impl=default), and
// with crypto/sha256 one message at a time (impl=serial-stdlib). hashing's BenchmarkSumMany measures one core; this
// one shows whether a kernel keeps its lead when the cores (or the SMT
// siblings or the neighbours of a virtual machine) hash at the same time.
// It reports msgs/s, summed over the goroutines.
//
// Measured on an AMD EPYC, Zen 4 (family 25 model 17, 2 vCPUs, both
// hashing), 8 interleaved rounds (commit dc7a141), serial-stdlib /
// shani-x2 / avx512: msgs=64-x-1024 15.6M / 23.1M / 21.6M;
// msgs=1K-x-1024 2.95M / 4.90M / 5.10M (avx512 +4% against shani-x2);
// msgs=envelopes-1K-2K-x-1024 2.06M / 3.44M / 2.94M (-15%): the 16 lanes
// do not pay on a CPU that runs AVX-512 as two halves, and hashing's
// batchPath keeps shani-x2 there.
//
// Measured on an AMD EPYC, Zen 5 (family 26 model 2, 2 vCPUs, both
// hashing, shared with other builds: the msgs/s are about one core's),
// 8 rounds, medians, serial-stdlib / shani-x2 / default (avx512):
// msgs=64-x-1024 7.75M / 12.2M / 14.1M; msgs=1K-x-1024 1.35M / 2.00M /
// 3.35M; msgs=envelopes-1K-2K-x-1024 949k / 1.50M / 2.39M;
// msgs=mixed-0-2K-x-1024 1.39M / 2.08M / 3.22M.
//
//	go test -c -o /tmp/bench.test . &&
//	for i in $(seq 8); do /tmp/bench.test -test.run '^$' -test.bench SumManyParallel -test.benchtime 100ms; done > /tmp/sm.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl -filter .unit:msgs/s /tmp/sm.txt
func BenchmarkSumManyParallel(b *testing.B) {
	paths := impl.Lookup("hashing", "sha256")
	impls := [][2]string{{"serial-stdlib", ""}, {"default", "default"}}
	for _, p := range paths.Available() {
		switch p {
		case "shani":
			impls = append(impls, [2]string{"shani-x2", p})
		case "avx2", "avx512":
			impls = append(impls, [2]string{p, p})
		}
	}
	for _, set := range []struct {
		name      string
		n, lo, hi int // n messages of lo to hi bytes
	}{
		{"64-x-1024", 1024, 64, 64},
		{"1K-x-1024", 1024, 1 << 10, 1 << 10},
		{"envelopes-1K-2K-x-1024", 1024, 1000, 2000},
		{"mixed-0-2K-x-1024", 1024, 0, 2048},
	} {
		// msgs returns the set's messages drawn from seed, and their bytes.
		msgs := func(seed uint64) ([][]byte, int) {
			r := rand.New(rand.NewPCG(seed, 22))
			m := make([][]byte, set.n)
			total := 0
			for i := range m {
				m[i] = make([]byte, set.lo+r.IntN(set.hi-set.lo+1))
				total += len(m[i])
			}
			return m, total
		}
		_, total := msgs(0)
		for _, im := range impls {
			b.Run(fmt.Sprintf("msgs=%s/impl=%s", set.name, im[0]), func(b *testing.B) {
				if im[1] != "" && im[1] != "default" {
					restore, err := paths.Select(im[1])
					if err != nil {
						b.Skip(err)
					}
					defer restore()
				}
				b.SetBytes(int64(total))
				var seed atomic.Uint64
				b.RunParallel(func(pb *testing.PB) {
					m, _ := msgs(seed.Add(1))
					out := make([]hashing.Digest, len(m))
					for pb.Next() {
						if im[1] == "" {
							for i, x := range m {
								out[i] = sha256.Sum256(x)
							}
						} else {
							hashing.SumMany(m, out)
						}
					}
				})
				b.ReportMetric(float64(set.n)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
			})
		}
	}
}
