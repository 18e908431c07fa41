package bolt

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// benchLedger creates a ledger of n entries, half of them resolved, and
// returns its path.
func benchLedger(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Now()
	for start := 0; start < n; start += 10_000 { // bbolt splits pages as one insert at a time would
		err = l.db.Update(func(tx *bbolt.Tx) error {
			bk := tx.Bucket(boltBucket)
			for i := start; i < min(start+10_000, n); i++ {
				var k [8]byte
				binary.BigEndian.PutUint64(k[:], uint64(i))
				d := hashing.Sum(k[:])
				e := ledger.Entry{State: ledger.StateEmitted, EmittedAt: at}
				if i%2 == 0 {
					e = ledger.Entry{State: ledger.StateResolved, Outcome: ledger.OutcomeAuthority, ResolvedAt: at, EmittedAt: at}
				}
				if err := bk.Put(d[:], appendEntry(nil, d, e)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	if l, err = Open(path, nil); err != nil { // the mark catches up
		b.Fatal(err)
	}
	l.Close()
	return path
}

// BenchmarkBoltLedgerOpen measures what one CLI invocation pays to open a
// ledger of N entries and close it: open=ledger is Open with
// every check (meta pages, high-water file, the walk of every page and
// entry), open=bbolt is bbolt's Open and Close of the same file alone.
// Their difference is the cost of the checks.
func BenchmarkBoltLedgerOpen(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		path := benchLedger(b, n)
		st, _ := os.Stat(path)
		b.Run(fmt.Sprintf("entries=%d/open=ledger", n), func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				l, err := Open(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				l.Close()
			}
		})
		b.Run(fmt.Sprintf("entries=%d/open=bbolt", n), func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				db, err := bbolt.Open(path, 0o600, nil)
				if err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
		})
	}
}

// BenchmarkBoltLedgerCheck measures the walk of every page and entry alone
// (checkBoltTree).
func BenchmarkBoltLedgerCheck(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		path := benchLedger(b, n)
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		st, _ := f.Stat()
		m, ps, err := checkBoltMetas(f, st.Size())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				got, err := checkBoltTree(f, st.Size(), m, ps, func(k, v []byte) error {
					_, err := decodeEntry(k, v)
					return err
				}, nil)
				if err != nil || got != n {
					b.Fatal(got, err)
				}
			}
		})
		f.Close()
	}
}

// BenchmarkResolve consumes one emitted envelope per iteration as the
// Resolver of package envelope does, Lookup then Resolve: the ledger's part
// of envelope's BenchmarkResolve. The envelopes are emitted in one
// transaction before the timer starts. It sets bbolt's NoSync for the
// benchmark only, so that it measures the ledger's code rather than the
// disk's fsync latency (which Open never turns off: with it, each Resolve
// costs one fsync).
func BenchmarkResolve(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "ledger.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	l.db.NoSync = true // benchmark only; see above
	digestOf := func(i int) hashing.Digest {
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], uint64(i))
		return hashing.Sum(k[:])
	}
	err = l.db.Update(func(tx *bbolt.Tx) error {
		bk := tx.Bucket(boltBucket)
		for i := range b.N {
			d := digestOf(i)
			if err := bk.Put(d[:], appendEntry(nil, d, ledger.Entry{State: ledger.StateEmitted, EmittedAt: time.Now()})); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if ok, err := present(l, digestOf(i)); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
