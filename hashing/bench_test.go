package hashing

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"
)

// Benchmark names are key=value so that benchstat can put variants side by
// side, e.g.
//
//	go test -run '^$' -bench 'Sum256' -count 10 ./hashing > sum.txt
//	benchstat -col /impl sum.txt
//
// The comparison with github.com/minio/sha256-simd is BenchmarkSum256 in
// bench/ (its own module, so that minio stays out of this one's go.mod),
// under the same names.

var benchSizes = []struct {
	name string
	n    int
}{
	{"8", 8}, {"64", 64}, {"1K", 1 << 10}, {"8K", 8 << 10}, {"1M", 1 << 20},
}

func BenchmarkSum256(b *testing.B) {
	impls := append([]string{"stdlib"}, singleImpls()...)
	for _, sz := range benchSizes {
		buf := make([]byte, sz.n)
		for _, impl := range impls {
			b.Run("impl="+impl+"/size="+sz.name, func(b *testing.B) {
				b.SetBytes(int64(sz.n))
				b.ReportAllocs()
				if impl == "stdlib" {
					for b.Loop() {
						sha256.Sum256(buf)
					}
					return
				}
				defer mustSelect(b, impl)()
				for b.Loop() {
					Sum256(buf)
				}
			})
		}
	}
}

// BenchmarkSum224 measures Sum224 on every single-message path, beside
// crypto/sha256.Sum224.
func BenchmarkSum224(b *testing.B) {
	impls := append([]string{"stdlib"}, singleImpls()...)
	for _, sz := range benchSizes {
		buf := make([]byte, sz.n)
		for _, impl := range impls {
			b.Run("impl="+impl+"/size="+sz.name, func(b *testing.B) {
				b.SetBytes(int64(sz.n))
				b.ReportAllocs()
				if impl == "stdlib" {
					for b.Loop() {
						sha256.Sum224(buf)
					}
					return
				}
				defer mustSelect(b, impl)()
				for b.Loop() {
					Sum224(buf)
				}
			})
		}
	}
}

// BenchmarkHash measures the streaming hash.Hash form with a reused state.
// impl=stdlib-single forces the single-message kernel that hands blocks to
// crypto/sha256 (chosen on amd64 with AVX2 but no SHA-NI; run with
// GODEBUG=cpu.sha=off to make crypto/sha256 use its AVX2 kernel as it does
// on such a CPU).
func BenchmarkHash(b *testing.B) {
	impls := append([]string{"stdlib"}, singleImpls()...)
	impls = append(impls, "stdlib-single")
	for _, sz := range benchSizes {
		buf := make([]byte, sz.n)
		for _, impl := range impls {
			b.Run("impl="+impl+"/size="+sz.name, func(b *testing.B) {
				b.SetBytes(int64(sz.n))
				b.ReportAllocs()
				var sum [Size]byte
				if impl == "stdlib" {
					h := sha256.New()
					for b.Loop() {
						h.Reset()
						h.Write(buf)
						h.Sum(sum[:0])
					}
					return
				}
				defer benchSelect(b, impl)()
				h := New()
				for b.Loop() {
					h.Reset()
					h.Write(buf)
					h.Sum(sum[:0])
				}
			})
		}
	}
}

// BenchmarkNew measures a fresh hash.Hash for every message, the usual
// pattern h := New(); h.Write(b); h.Sum(buf[:0]) inside a function (see
// TestNewAllocations). The pattern is in a function of its own because
// b.Loop keeps the calls in its loop body from being inlined.
func BenchmarkNew(b *testing.B) {
	impls := append([]string{"stdlib"}, singleImpls()...)
	impls = append(impls, "stdlib-single")
	for _, sz := range benchSizes[:3] {
		buf := make([]byte, sz.n)
		for _, impl := range impls {
			b.Run("impl="+impl+"/size="+sz.name, func(b *testing.B) {
				b.SetBytes(int64(sz.n))
				b.ReportAllocs()
				var sum [Size]byte
				if impl == "stdlib" {
					for b.Loop() {
						sumNewStdlib(buf, &sum)
					}
					return
				}
				defer benchSelect(b, impl)()
				for b.Loop() {
					sumNew(buf, &sum)
				}
			})
		}
	}
}

// sumNew hashes msg into sum with a fresh New().
func sumNew(msg []byte, sum *[Size]byte) {
	h := New()
	h.Write(msg)
	h.Sum(sum[:0])
}

// sumNewStdlib hashes msg into sum with a fresh crypto/sha256.New().
func sumNewStdlib(msg []byte, sum *[Size]byte) {
	h := sha256.New()
	h.Write(msg)
	h.Sum(sum[:0])
}

// benchSelect forces the named path, or with "stdlib-single" the
// single-message kernel of crypto/sha256 as forEachImpl does, and returns
// the function that restores the configuration.
func benchSelect(b *testing.B, impl string) func() {
	if impl == "stdlib-single" {
		return forceStdlibSingle()
	}
	return mustSelect(b, impl)
}

// singleImpls returns the available paths that have their own
// single-message kernel.
func singleImpls() []string {
	var s []string
	for _, n := range paths.Available() {
		if n != "avx2" && n != "avx512" {
			s = append(s, n)
		}
	}
	return s
}

// batchImpls maps the batch benchmark names to the path that selects them:
// "" for crypto/sha256 one message at a time, and "default" for the
// configuration in force, unforced (what SumMany runs for a caller).
func batchImpls() [][2]string {
	s := [][2]string{{"serial-stdlib", ""}, {"default", "default"}}
	for _, n := range paths.Available() {
		switch n {
		case "shani":
			s = append(s, [2]string{"shani-x2", n})
		case "avx2", "avx512":
			s = append(s, [2]string{n, n})
		case "generic":
			s = append(s, [2]string{"serial-generic", n})
		}
	}
	return s
}

// batchSets are the message sets of BenchmarkSumMany: equal lengths, and
// mixed lengths drawn from a fixed seed. Every byte is written here, so
// that no sub-benchmark pays for the first touch of the memory (page
// faults) and whichever runs first on a set is not slower for it.
func batchSets() []struct {
	name string
	msgs [][]byte
} {
	fill := func(b []byte) []byte {
		for i := range b {
			b[i] = byte(i*131 + i>>8)
		}
		return b
	}
	equal := func(n, size int) [][]byte {
		buf := fill(make([]byte, n*size))
		m := make([][]byte, n)
		for i := range m {
			m[i] = buf[i*size : (i+1)*size : (i+1)*size]
		}
		return m
	}
	mixedRange := func(n, minLen, maxLen int, seed uint64) [][]byte {
		r := rand.New(rand.NewPCG(seed, seed))
		m := make([][]byte, n)
		for i := range m {
			m[i] = fill(make([]byte, minLen+r.IntN(maxLen-minLen+1)))
		}
		return m
	}
	mixed := func(n, maxLen int, seed uint64) [][]byte { return mixedRange(n, 0, maxLen, seed) }
	return []struct {
		name string
		msgs [][]byte
	}{
		{"64-x-1024", equal(1024, 64)},
		{"1K-x-1024", equal(1024, 1<<10)},
		{"8K-x-256", equal(256, 8<<10)},
		{"mixed-0-2K-x-1024", mixed(1024, 2<<10, 1)},
		{"mixed-0-64K-x-256", mixed(256, 64<<10, 2)},
		// one long message among many short ones
		{"mixed-1M+1K-x-63", append(equal(63, 1<<10), fill(make([]byte, 1<<20)))},
		// short records (receipts, act digests): one to five blocks
		{"mixed-0-256-x-1024", mixed(1024, 256, 3)},
		// envelopes of 1 to 2 KB, as bench's BenchmarkSumManyParallel
		{"mixed-1K-2K-x-1024", mixedRange(1024, 1000, 2000, 4)},
		{"mixed-0-8K-x-256", mixed(256, 8<<10, 5)},
		// fewer messages than two rounds of sixteen lanes
		{"mixed-0-2K-x-24", mixed(24, 2<<10, 6)},
	}
}

// BenchmarkSumMany hashes each of batchSets with SumMany on one core, on
// every batch kernel this CPU has (impl=shani-x2, avx2, avx512,
// serial-generic, forced through the registry) and with crypto/sha256 one
// message at a time (impl=serial-stdlib), reporting msgs/s. It is the
// evidence behind batchPath's choice of kernel (block_amd64.go, and the
// table in doc.go); measured, msgs/s and the gain over the kernel named:
//
//   - Intel Emerald Rapids (AVX-512 at full width, SHA-NI), 10 interleaved
//     rounds (README.md, "SumMany, messages/s"): msgs=1K-x-1024
//     serial-stdlib 1.14M, avx512 1.96M (+71%), shani-x2 1.28M (+12%),
//     avx2 821k. avx512 is the default there.
//   - AMD EPYC, Zen 4 (family 25 model 17, reports FP256), 8 interleaved
//     rounds (commit dc7a141), serial-stdlib / shani-x2 / avx512:
//     msgs=64-x-1024 7.71M / 10.77M / 9.55M (avx512 -11% against
//     shani-x2); msgs=1K-x-1024 1.49M / 2.46M / 2.59M (+5%);
//     msgs=8K-x-256 210k / 366k / 343k; msgs=mixed-0-2K-x-1024 1.42M /
//     2.36M / 1.94M (-18%). shani-x2 is the default there.
//   - AMD Zen 1 (no AVX-512; AVX2 on 128-bit units): msgs=1K-x-1024
//     serial-stdlib 991k, shani-x2 1672k (+69%), avx2 379k.
//   - AMD EPYC, Zen 5 (family 26 model 2, "Oxide Virtual Turin-like
//     Processor": AVX-512 at full width, SHA-NI; 2 vCPUs shared with other
//     builds), 30 interleaved rounds of 30 ms against 408bd34, medians in
//     msgs/s, serial-stdlib / shani-x2 / default (avx512, with the batch
//     kept in step by block count and its end on two SHA-NI streams):
//     msgs=64-x-1024 7.33M / 11.07M / 13.41M; msgs=1K-x-1024 1.32M /
//     1.98M / 3.19M; msgs=8K-x-256 187k / 281k / 478k;
//     msgs=mixed-0-2K-x-1024 1.33M / 2.01M / 3.00M; msgs=mixed-0-64K-x-256
//     44.0k / 66.0k / 107k; msgs=mixed-1M+1K-x-63 88.9k / 90.8k / 91.3k
//     (the 1 MiB message is one SHA-NI stream on every kernel);
//     msgs=mixed-0-256-x-1024 5.65M / 8.81M / 9.82M; msgs=mixed-1K-2K-x-1024
//     926k / 1.35M / 2.20M; msgs=mixed-0-8K-x-256 361k / 537k / 839k;
//     msgs=mixed-0-2K-x-24 1.32M / 2.03M / 2.38M. Against 408bd34 (messages
//     in the caller's order, the end of a batch one message at a time), in
//     the same rounds, impl=default time per batch, median (fastest
//     round): msgs=mixed-0-2K-x-1024 -14.5% (-13.7%),
//     msgs=mixed-1K-2K-x-1024 -13.9% (-12.0%), msgs=mixed-0-2K-x-24 -10.5%
//     (-8.4%); msgs=64-x-1024 +4.4% (+3.4%), not significant in the
//     medians (p=0.08), about 2-3% in thread CPU time; the other sets
//     unchanged within the noise. avx512 is the default there.
//
// Compare the kernels on the machine at hand with
// benchstat -col /impl -filter .unit:msgs/s.
func BenchmarkSumMany(b *testing.B) {
	for _, set := range batchSets() {
		total := 0
		for _, m := range set.msgs {
			total += len(m)
		}
		out := make([]Digest, len(set.msgs))
		for _, impl := range batchImpls() {
			b.Run("impl="+impl[0]+"/msgs="+set.name, func(b *testing.B) {
				b.SetBytes(int64(total))
				b.ReportAllocs()
				// One untimed batch first (b.Loop times only the loop),
				// so that the first sub-benchmark of a set does not pay
				// for bringing its messages into the caches.
				if impl[1] == "" {
					for i, m := range set.msgs {
						out[i] = sha256.Sum256(m)
					}
					for b.Loop() {
						for i, m := range set.msgs {
							out[i] = sha256.Sum256(m)
						}
					}
				} else {
					if impl[1] != "default" {
						defer mustSelect(b, impl[1])()
					}
					SumMany(set.msgs, out)
					for b.Loop() {
						SumMany(set.msgs, out)
					}
				}
				b.ReportMetric(float64(len(set.msgs))*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
			})
		}
	}
}

// TestBenchmarkSumMany runs the benchmark sets once on every path and
// checks the digests, so that the benchmark inputs are known to hash right.
func TestBenchmarkSumMany(t *testing.T) {
	for _, set := range batchSets() {
		want := make([]Digest, len(set.msgs))
		for i, m := range set.msgs {
			want[i] = sha256.Sum256(m)
		}
		t.Run("msgs="+set.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				got := make([]Digest, len(set.msgs))
				SumMany(set.msgs, got)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s: message %d (len %d): got %v, want %v", set.name, i, len(set.msgs[i]), got[i], want[i])
					}
				}
			})
		})
	}
}
