package gate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// The benchmarks:
//
//	BenchmarkAuthorize/commit=group/callers=64                 64 goroutines deciding at once, receipts group-committed
//	BenchmarkAuthorize/commit=each/callers=64                  the same, one write and fsync per decision
//	BenchmarkAuthorize/authority=signed/ledger=group/callers=64  64 goroutines consuming authorities, ledger commits grouped
//	BenchmarkAuthorize/authority=signed/ledger=each/callers=64   the same, one ledger commit per consume
//	BenchmarkAuthorizeOne                                      one caller, the latency of a decision
//
// The commit= decisions are policy allows (a READ_ONLY tool), so what is
// measured is reading the act, deciding, and making the receipt durable.
// The authority= decisions are allows of a FINANCIAL tool on a principal's
// signed resolution, each call with its own envelope, emitted in a
// ledger/bolt ledger and signed before the timer starts: they add the
// envelope and signature checks, the ledger's lookup of the emission, and
// the consume, a ledger commit (three syncs) that concurrent consumes
// share (ledger=group) or that each consume makes alone (ledger=each);
// their receipts are group-committed. ledger-commits/op counts the
// ledger's commits per decision.
// Receipts (and the ledger) go to real files in $BBDIGEST_FSYNC_DIR, else
// in a directory beside this file (on the disk of the checkout: /tmp may be
// a tmpfs whose fsync costs nothing). On a disk, 64 callers are bound by
// its sync latency (two syncs per group of receipts); with
// BBDIGEST_FSYNC_DIR=/dev/shm the rate is the CPU's. The receipt log's
// signer is serial, but it signs with nonces its pool drew ahead on the
// other cores (receipt's nonce.go; BenchmarkSign's op=line-presigned
// against op=line), so the bound is the cores, not one goroutine's
// signatures: presigned/op is the share of receipts signed so. On an AMD
// EPYC Zen 5 (2 vCPUs), 2026-12-05, commit=group: 45k decisions/s before
// the pool, 79-84k with it, on /dev/shm; 26-28k before and 28-36k with it
// on the VM's disk, whose syncs bound it there (commit=each: 2.7k/s).
// Compare with
//
//	go test -run '^$' -bench 'Authorize/' -benchtime 2s -count 6 ./gate > /tmp/g.txt
//	benchstat -col /commit /tmp/g.txt
//	benchstat -col /ledger /tmp/g.txt

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
			b.ReportMetric(float64(log.Stats().Presigned)/float64(b.N), "presigned/op")
		})
	}
	for _, commit := range []string{"group", "each"} {
		b.Run("authority=signed/ledger="+commit+"/callers=64", func(b *testing.B) {
			dir := benchDir(b)
			bl, err := bolt.Open(filepath.Join(dir, "ledger.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { bl.Close() })
			s, _ := newSigner(b)
			log, err := receipt.Open(filepath.Join(dir, "receipts.jsonl"), s, receipt.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { log.Close() })
			var l ledger.Ledger = bl
			if commit == "each" {
				l = &oneConsumeAtATime{Ledger: bl}
			}
			g, err := gate.New(gate.Config{Policy: principalPolicy(b, ""), Ledger: l, Receipts: log})
			if err != nil {
				b.Fatal(err)
			}
			auths := benchAuthorities(b, bl, b.N)
			call := []byte(payCall)
			var next atomic.Int64
			commits0, syncs0 := bl.Stats().Commits, log.Stats().Syncs
			b.SetParallelism((callers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					auth := auths[next.Add(1)-1]
					if d := g.Authorize(context.Background(), gate.Call{Src: call, Authority: auth}); !d.Allow || d.Reason != gate.ReasonAuthority {
						b.Errorf("denied: %s", d.Message())
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			b.ReportMetric(float64(log.Stats().Syncs-syncs0)/float64(b.N), "fsyncs/op")
			b.ReportMetric(float64(bl.Stats().Commits-commits0)/float64(b.N), "ledger-commits/op")
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

// oneConsumeAtATime makes every Resolve wait for the one before it to be
// committed: the ledger with one commit (and its syncs) per consume, as
// without group commit.
type oneConsumeAtATime struct {
	mu sync.Mutex
	ledger.Ledger
}

func (o *oneConsumeAtATime) Resolve(d hashing.Digest, out ledger.Outcome) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.Ledger.Resolve(d, out)
}

// benchAuthorities emits n envelopes, each with the act of payCall as its
// first option (and payOther's as its second), in l (from 64 goroutines, so that their commits are
// grouped), and returns for each a principal's (alice's) signed selection
// of it.
func benchAuthorities(b *testing.B, l ledger.Ledger, n int) []*gate.Authority {
	b.Helper()
	a, other := parseAct(b, payCall), parseAct(b, payOther)
	auths := make([]*gate.Authority, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				eb := &envelope.Builder{
					Synopsis: fmt.Sprintf("Pay invoice %d from acct-7 today.", i), Offer: "Ask.", Stem: "Should the invoice be paid?",
					Hatches: envelope.Hatches{FreeText: true, Dialogue: true},
				}
				eb.AddOption("Pay 19.99", "It is due.", a.Canonical)
				eb.AddOption("Pay the other amount", "A different act.", other.Canonical)
				env, err := eb.Build()
				if err != nil {
					b.Error(err)
					return
				}
				if err := l.Emit(env.Digest()); err != nil {
					b.Error(err)
					return
				}
				res := &envelope.Resolution{EnvelopeDigest: env.Digest(), Kind: envelope.KindOption, OptionIdx: 0}
				doc, err := gate.SignResolution(env, res, a.Digest, aliceKey, time.Now())
				if err != nil {
					b.Error(err)
					return
				}
				auths[i] = &gate.Authority{Envelope: env, Resolution: doc, Expires: forever}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return auths
}

// BenchmarkParseSignedResolution reads a principal's signed selection, as
// every decision on a signed authority does before its signature is
// checked.
func BenchmarkParseSignedResolution(b *testing.B) {
	env := exampleEnvelope(b)
	opt, _ := env.Option(0)
	res := &envelope.Resolution{EnvelopeDigest: env.Digest(), Kind: envelope.KindOption, OptionIdx: 0}
	doc, err := gate.SignResolution(env, res, opt.ActionDigest, aliceKey, time.UnixMilli(1_796_209_200_000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gate.ParseSignedResolution(doc); err != nil {
			b.Fatal(err)
		}
	}
}
