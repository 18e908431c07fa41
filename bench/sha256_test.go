package bench

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	sha256simd "github.com/minio/sha256-simd"
)

// sha256Sizes are the message sizes of BenchmarkSum256, the same as those of
// hashing's BenchmarkSum256.
var sha256Sizes = []struct {
	name string
	n    int
}{
	{"8", 8}, {"64", 64}, {"1K", 1 << 10}, {"8K", 8 << 10}, {"1M", 1 << 20},
}

// BenchmarkSum256 compares hashing.Sum256 on the path chosen for this CPU
// (impl=bbdigest; 'bbdigest cpu' names it) with crypto/sha256 (impl=stdlib)
// and github.com/minio/sha256-simd (impl=minio). The names are those of
// hashing's BenchmarkSum256, which measures every path of its own, so that
// benchstat -col /impl puts the two side by side:
//
//	go test -c -o /tmp/h.test ./hashing && (cd bench && go test -c -o /tmp/b.test .)
//	for i in $(seq 10); do
//		/tmp/h.test -test.run '^$' -test.bench 'BenchmarkSum256$' -test.benchtime 150ms
//		/tmp/b.test -test.run '^$' -test.bench 'BenchmarkSum256$' -test.benchtime 150ms
//	done > /tmp/sum.txt
//	benchstat -ignore pkg -col /impl /tmp/sum.txt
func BenchmarkSum256(b *testing.B) {
	for _, sz := range sha256Sizes {
		buf := make([]byte, sz.n)
		for _, impl := range []string{"stdlib", "minio", "bbdigest"} {
			b.Run("impl="+impl+"/size="+sz.name, func(b *testing.B) {
				b.SetBytes(int64(sz.n))
				b.ReportAllocs()
				// Direct calls, as in hashing's benchmark: a call through a
				// function value would add its cost to the 8-byte rows.
				switch impl {
				case "stdlib":
					for b.Loop() {
						sha256.Sum256(buf)
					}
				case "minio":
					for b.Loop() {
						sha256simd.Sum256(buf)
					}
				case "bbdigest":
					for b.Loop() {
						hashing.Sum256(buf)
					}
				}
			})
		}
	}
}

// TestSum256Agree checks that the three functions BenchmarkSum256 compares
// give the same digest for messages of each benchmark size, so that the
// benchmark compares like with like.
func TestSum256Agree(t *testing.T) {
	for _, sz := range sha256Sizes {
		msg := bytes.Repeat([]byte("bbdigest\x00\xff"), sz.n/10+1)[:sz.n]
		want := sha256.Sum256(msg)
		if got := sha256simd.Sum256(msg); got != want {
			t.Errorf("size %s: minio %x, crypto/sha256 %x", sz.name, got, want)
		}
		if got := hashing.Sum256(msg); got != want {
			t.Errorf("size %s: hashing %x, crypto/sha256 %x", sz.name, got, want)
		}
	}
}
