package hashing

import "testing"

// BenchmarkLanesKernel times a multi-lane kernel alone, without the Go
// bookkeeping of sumLanes around it, on messages of 1 KiB (sixteen blocks
// read in place and a padded tail block), in messages per second for all
// lanes. Set against BenchmarkSum256/impl=shani/size=1K (one SHA-NI
// stream) or impl=shani-x2 against impl=avx512 (two SHA-NI streams), it
// gives how many of the kernel's lanes one serial stream, or two, are
// worth: the measurement behind endOfBatch.
//
//   - Intel Emerald Rapids: one SHA-NI stream does the work of about seven
//     lanes of impl=avx512, and two streams gain little over one there
//     (BenchmarkSumMany).
//   - AMD EPYC, Zen 5 (family 26 model 2), fastest of 20 runs of 20,000
//     calls: impl=avx512 2.71M msgs/s, impl=shani-x2 1.99M (the work of
//     about 12 of the 16 lanes), BenchmarkSum256/impl=shani/size=1K 708 ns
//     (1.41M msgs/s, about 8 lanes). Moving the end of a batch to two
//     SHA-NI streams below 5, 8 or 12 busy lanes made no difference
//     beyond the noise on the mixed sets of BenchmarkSumMany there, once
//     messages start longest first.
func BenchmarkLanesKernel(b *testing.B) {
	msgs := make([][1 << 10]byte, 16)
	tails := make([][BlockSize]byte, 16)
	for _, impl := range batchImpls() {
		if impl[1] == "" || impl[1] == "generic" || impl[1] == "default" {
			continue // serial, or a repeat of a forced kernel
		}
		b.Run("impl="+impl[0]+"/size=1K", func(b *testing.B) {
			defer mustSelect(b, impl[1])()
			kind := active.batch
			var st laneState
			for j := range kind.lanes() {
				st.set(kind, j, &iv)
			}
			b.SetBytes(int64(kind.lanes()) << 10)
			b.ReportAllocs()
			for b.Loop() {
				for j := range kind.lanes() {
					st.ptr[j], st.cnt[j], st.next[j] = &msgs[j][0], len(msgs[j])/BlockSize, &tails[j][0]
				}
				lanesKernel(kind, &st, len(msgs[0])/BlockSize+1)
			}
			b.ReportMetric(float64(kind.lanes())*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
