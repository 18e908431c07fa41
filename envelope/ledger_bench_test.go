package envelope

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
)

// benchLedger creates a ledger of n entries, half of them resolved, and
// returns its path.
func benchLedger(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "ledger.db")
	l, err := OpenBoltLedger(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Now()
	for start := 0; start < n; start += 10_000 { // bbolt splits pages as one insert at a time would
		err = l.db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket(boltBucket)
			for i := start; i < min(start+10_000, n); i++ {
				var k [8]byte
				binary.BigEndian.PutUint64(k[:], uint64(i))
				d := hashing.Sum(k[:])
				e := Entry{State: StateEmitted}
				if i%2 == 0 {
					e = Entry{State: StateResolved, Outcome: OutcomeAuthority, ResolvedAt: at}
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
	if l, err = OpenBoltLedger(path, nil); err != nil { // the mark catches up
		b.Fatal(err)
	}
	l.Close()
	return path
}

// BenchmarkBoltLedgerOpen measures what one CLI invocation pays to open a
// ledger of N entries and close it: open=ledger is OpenBoltLedger with
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
				l, err := OpenBoltLedger(path, nil)
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
				db, err := bolt.Open(path, 0o600, nil)
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
				})
				if err != nil || got != n {
					b.Fatal(got, err)
				}
			}
		})
		f.Close()
	}
}
