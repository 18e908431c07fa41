package receipt

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The benchmarks:
//
//	BenchmarkAppend/commit=group/callers=64  64 goroutines appending at once, group commit
//	BenchmarkAppend/commit=each/callers=64   the same, one write and fsync per Append
//	BenchmarkVerify/workers=1                Verify of a file of 100,000 receipts on one worker
//	BenchmarkVerify/workers=all              ... on GOMAXPROCS workers
//
// Append writes and syncs a real file, so its figures are those of the
// disk under it: the directory named by $BBDIGEST_FSYNC_DIR, else a
// temporary directory beside this file (in the checkout, so on a disk,
// where /tmp may be a tmpfs whose fsync costs nothing). The benchmark logs
// which. $BBDIGEST_FSYNC_DELAY (a duration, e.g. 1ms) adds that much to
// every fsync, to see what group commit gives on a disk slower than the
// one at hand (logged too; real figures are those without it). Compare
// the two with
//
//	go test -run '^$' -bench 'Append' -benchtime 3s -count 6 ./receipt > /tmp/a.txt
//	benchstat -col /commit /tmp/a.txt
//
// and the Verify workers with benchstat -col /workers.

// fsyncDir returns the directory for the Append benchmark's files.
func fsyncDir(b *testing.B) string {
	if dir := os.Getenv("BBDIGEST_FSYNC_DIR"); dir != "" {
		d, err := os.MkdirTemp(dir, "receipt-bench-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	d, err := os.MkdirTemp(".", "fsync-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(d) })
	abs, _ := filepath.Abs(d)
	return abs
}

func BenchmarkAppend(b *testing.B) {
	const callers = 64
	for _, commit := range []string{"group", "each"} {
		b.Run("commit="+commit+"/callers=64", func(b *testing.B) {
			dir := fsyncDir(b)
			b.Logf("fsync dir %s", dir)
			l, err := Open(filepath.Join(dir, "log.jsonl"), testSigner(1), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			l.serial = commit == "each"
			if v := os.Getenv("BBDIGEST_FSYNC_DELAY"); v != "" {
				d, err := time.ParseDuration(v)
				if err != nil {
					b.Fatalf("BBDIGEST_FSYNC_DELAY: %v", err)
				}
				b.Logf("every fsync takes %v more (BBDIGEST_FSYNC_DELAY)", d)
				l.sync = func() error {
					time.Sleep(d)
					return l.f.Sync()
				}
			}
			p := samplePayload(1)
			b.SetParallelism((callers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := l.Append(context.Background(), p); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			st := l.Stats()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			b.ReportMetric(float64(st.Syncs)/float64(b.N), "fsyncs/op")
		})
	}
}

const benchReceipts = 100_000

var benchFile = sync.OnceValue(func() []byte {
	return file(chain(testSigner(1), benchReceipts, nil))
})

func BenchmarkVerify(b *testing.B) {
	t0 := time.Now()
	f := benchFile()
	if d := time.Since(t0); d > time.Second {
		b.Logf("signed %d receipts (%d bytes) in %v", benchReceipts, len(f), d)
	}
	pub := testSigner(1).Public()
	for _, w := range []struct {
		name    string
		workers int
	}{{"1", 1}, {"all", 0}} {
		b.Run("workers="+w.name, func(b *testing.B) {
			b.SetBytes(int64(len(f)))
			b.ReportAllocs()
			for b.Loop() {
				sum, err := Verify(context.Background(), bytes.NewReader(f), pub, VerifyOptions{Workers: w.workers})
				if err != nil || sum.Records != benchReceipts {
					b.Fatalf("%+v, %v", sum, err)
				}
			}
			b.ReportMetric(float64(benchReceipts)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkSign measures the serial part of Append, which one goroutine
// does for every record (the chain links each record to the line before
// it, signature included):
//
//	BenchmarkSign/op=ed25519          ed25519.Sign of a receipt's payload alone
//	BenchmarkSign/op=line             appendLine: the payload's JCS form, signed, base64url, the line
//	BenchmarkSign/op=line-presigned   the same, signed with a nonce drawn ahead (nonce.go): what the
//	                                  signer does when its pool has one ready
//	BenchmarkSign/op=draw             drawing one nonce, which the pool does on goroutines of its own
//
// Without the pool the first bounds the records per second of one Log on
// one core, whatever else is cut; with it, the chain pays line-presigned
// and the cores share draw.
func BenchmarkSign(b *testing.B) {
	s := testSigner(1)
	p := samplePayload(2)
	p.Seq, p.KeyID, p.ReceiptID, p.TimestampMS = 123456, s.keyID, s.receiptID(123456), 1_780_000_000_000
	payload := appendPayload(nil, &p)
	b.Run("op=ed25519", func(b *testing.B) {
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for b.Loop() {
			ed25519.Sign(s.priv, payload)
		}
	})
	b.Run("op=line", func(b *testing.B) {
		var line []byte
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for b.Loop() {
			line = s.appendLine(line[:0], &p)
		}
	})
	b.Run("op=line-presigned", func(b *testing.B) {
		var line []byte
		var n nonce
		s.key.draw(&n) // one nonce signing many payloads: in a benchmark only
		sc := newSignScratch()
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for b.Loop() {
			line = s.appendLineWith(line[:0], &p, &n, sc)
		}
	})
	b.Run("op=draw", func(b *testing.B) {
		var n nonce
		b.ReportAllocs()
		for b.Loop() {
			s.key.draw(&n)
		}
	})
}
