package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// The benchmarks:
//
//	BenchmarkAuthorize/commit=group/callers=64  64 goroutines deciding at once, receipts group-committed
//	BenchmarkAuthorize/commit=each/callers=64   the same, one write and fsync per decision
//	BenchmarkAuthorizeOne                       one caller, the latency of a decision
//
// The decisions are policy allows (a READ_ONLY tool), so what is measured is
// reading the act, deciding, and making the receipt durable; an authority
// adds the envelope checks and a ledger commit (ledger/bolt syncs each one).
// Receipts go to a real file in $BBDIGEST_FSYNC_DIR, else in a directory
// beside this file (on the disk of the checkout: /tmp may be a tmpfs whose
// fsync costs nothing). Compare with
//
//	go test -run '^$' -bench 'Authorize/' -benchtime 2s -count 6 ./gate > /tmp/g.txt
//	benchstat -col /commit /tmp/g.txt

func benchDir(b *testing.B) string {
	parent := os.Getenv("BBDIGEST_FSYNC_DIR")
	if parent == "" {
		parent = "."
	}
	d, err := os.MkdirTemp(parent, "fsync-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(d) })
	abs, _ := filepath.Abs(d)
	return abs
}

// oneAtATime makes every Append wait for the one before it to be on disk:
// the gate with one write and one fsync per decision, as without group
// commit.
type oneAtATime struct {
	mu  sync.Mutex
	log *receipt.Log
}

func (o *oneAtATime) Append(ctx context.Context, p receipt.Payload) (receipt.Receipt, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.log.Append(ctx, p)
}

func benchGate(b *testing.B, each bool) (*gate.Gate, *receipt.Log) {
	s, _ := newSigner(b)
	log, err := receipt.Open(filepath.Join(benchDir(b), "receipts.jsonl"), s, receipt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { log.Close() })
	var r gate.Receipts = log
	if each {
		r = &oneAtATime{log: log}
	}
	g, err := gate.New(gate.Config{Policy: testPolicy, Ledger: ledger.NewMemory(), Receipts: r})
	if err != nil {
		b.Fatal(err)
	}
	return g, log
}

func BenchmarkAuthorize(b *testing.B) {
	const callers = 64
	for _, commit := range []string{"group", "each"} {
		b.Run("commit="+commit+"/callers=64", func(b *testing.B) {
			g, log := benchGate(b, commit == "each")
			call := gate.Call{Src: []byte(searchCall)}
			b.SetParallelism((callers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if d := g.Authorize(context.Background(), call); !d.Allow {
						b.Errorf("denied: %s", d.Message())
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			b.ReportMetric(float64(log.Stats().Syncs)/float64(b.N), "fsyncs/op")
		})
	}
}

func BenchmarkAuthorizeOne(b *testing.B) {
	g, _ := benchGate(b, false)
	call := gate.Call{Src: []byte(searchCall)}
	b.ReportAllocs()
	for b.Loop() {
		if d := g.Authorize(context.Background(), call); !d.Allow {
			b.Fatalf("denied: %s", d.Message())
		}
	}
}
