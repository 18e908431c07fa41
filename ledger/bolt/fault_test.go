package bolt

// Fault injection: a Ledger whose file was damaged (single bit flips,
// the unit of accidental damage) must never let a consumed envelope yield a
// second decision, never panic, and either open cleanly with every entry as
// it was, or fail with ledger.ErrCorrupt (at open or at the first call that
// meets the damage).

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

var (
	ledgerFlips = flag.Int("ledger.flips", 0, "random single-bit flips per ledger shape in TestBoltLedgerFaultInjection (default 400, 150 with -short)")
	ledgerSeed  = flag.Uint64("ledger.seed", 0, "seed of TestBoltLedgerFaultInjection (default random)")
	ledgerAll   = flag.Bool("ledger.exhaustive", false, "flip every bit of every byte TestBoltLedgerRootPageFlips and TestBoltLedgerPageHeaderFlips cover, not only the structural ones")
)

// faultLedger is a pristine ledger to damage: one envelope consumed by an
// authority as a Resolver consumes it (present), and filler entries, half
// of them resolved.
type faultLedger struct {
	db, hwm  []byte         // the two files' bytes
	consumed hashing.Digest // the envelope consumed by an authority
	entries  map[hashing.Digest]ledger.Entry
}

func newFaultLedger(t *testing.T, fillers int) *faultLedger {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pristine.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &faultLedger{consumed: hashing.Sum([]byte("consumed")), entries: map[hashing.Digest]ledger.Entry{}}
	if err := l.Emit(f.consumed); err != nil {
		t.Fatal(err)
	}
	if ok, err := present(l, f.consumed); err != nil || !ok {
		t.Fatal(ok, err)
	}
	for i := range fillers {
		d := hashing.Sum(fmt.Appendf(nil, "filler %d", i))
		l.Emit(d)
		if i%2 == 0 {
			l.Resolve(d, []ledger.Outcome{ledger.OutcomeAuthority, ledger.OutcomeDeclined, ledger.OutcomeAnswer, ledger.OutcomeQuestion}[i/2%4])
		}
	}
	for _, d := range append(f.digests(l, fillers), f.consumed) {
		e, err := l.Lookup(d)
		if err != nil {
			t.Fatal(err)
		}
		f.entries[d] = e
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	f.db, _ = os.ReadFile(path)
	f.hwm, _ = os.ReadFile(path + ".hwm")
	return f
}

func (f *faultLedger) digests(l *Ledger, fillers int) []hashing.Digest {
	var ds []hashing.Digest
	for i := range fillers {
		ds = append(ds, hashing.Sum(fmt.Appendf(nil, "filler %d", i)))
	}
	return ds
}

// faultOutcome is what one damaged copy did.
type faultOutcome int

const (
	faultOpenCorrupt faultOutcome = iota // Open: ledger.ErrCorrupt from the ledger's checks
	faultOpenPanic                       // Open: ledger.ErrCorrupt from a panic of bbolt's, recovered
	faultCallCorrupt                     // opened; a call found the damage
	faultClean                           // opened; every entry as it was
	faultOutcomes
)

var faultOutcomeNames = [faultOutcomes]string{"corrupt at open", "corrupt at open (bbolt panicked, recovered)", "corrupt at a call", "clean"}

// trial writes db and hwm as the ledger at path, opens it, presents the
// consumed authority again, and checks every entry. It fails the test on a
// second authority, on any error that is not ledger.ErrCorrupt, and on an
// entry read back other than it was written.
func (f *faultLedger) trial(t *testing.T, path string, db, hwm []byte, what string) faultOutcome {
	t.Helper()
	if err := os.WriteFile(path, db, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".hwm", hwm, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, &Options{})
	if err != nil {
		if !errors.Is(err, ledger.ErrCorrupt) {
			t.Fatalf("%s: Open: %v, want ledger.ErrCorrupt", what, err)
		}
		if strings.Contains(err.Error(), "bbolt panicked") {
			return faultOpenPanic
		}
		return faultOpenCorrupt
	}
	defer l.Close()
	corrupt := false
	check := func(call string, err error) bool {
		t.Helper()
		if err != nil && !errors.Is(err, ledger.ErrCorrupt) {
			t.Fatalf("%s: %s: %v, want nil or ledger.ErrCorrupt", what, call, err)
		}
		corrupt = corrupt || err != nil
		return err == nil
	}
	ok, err := present(l, f.consumed)
	if ok {
		t.Fatalf("%s: the consumed envelope gave authority again", what)
	}
	check("present", err)
	for d, want := range f.entries {
		if e, err := l.Lookup(d); check("Lookup", err) && e != want {
			t.Fatalf("%s: Lookup(%s) = %+v, want %+v", what, d, e, want)
		}
		if want.State != ledger.StateResolved {
			continue
		}
		if ok, err := l.Resolve(d, ledger.OutcomeAuthority); ok {
			t.Fatalf("%s: a resolved envelope resolved again", what)
		} else {
			check("Resolve", err)
		}
		if err := l.Emit(d); !errors.Is(err, ledger.ErrAlreadyResolved) {
			if err == nil {
				t.Fatalf("%s: a resolved envelope emitted again", what)
			}
			check("Emit", err)
		}
	}
	if corrupt {
		if testing.Verbose() {
			t.Logf("%s: damage found after open", what)
		}
		return faultCallCorrupt
	}
	return faultClean
}

// liveRanges returns, for each page below the high-water page of the
// pristine file, the bytes bbolt reads: the meta, the freelist ids, the
// elements and keys and values of a branch or leaf page (free pages
// included: they hold an older page).
func liveRanges(t *testing.T, db []byte) [][2]int {
	m, ps, err := checkBoltMetas(bytesReaderAt(db), int64(len(db)))
	if err != nil {
		t.Fatal(err)
	}
	var r [][2]int
	for id := 0; id < int(m.pgid); {
		p := db[id*ps:]
		overflow := int(ne.Uint32(p[12:]))
		if id < 2 {
			overflow = 0
		}
		end := boltMetaSize
		switch ne.Uint16(p[8:]) {
		case boltFreelistPage:
			end = boltPageHeader + 8*int(ne.Uint16(p[10:]))
		case boltLeafPage, boltBranchPage:
			count := int(ne.Uint16(p[10:]))
			end = boltPageHeader + count*boltElementSize
			for i := range count {
				at := boltPageHeader + i*boltElementSize
				e := p[at:]
				var stop int
				if ne.Uint16(p[8:]) == boltLeafPage {
					stop = at + int(ne.Uint32(e[4:])+ne.Uint32(e[8:])+ne.Uint32(e[12:]))
				} else {
					stop = at + int(ne.Uint32(e)+ne.Uint32(e[4:]))
				}
				end = max(end, stop)
			}
		}
		r = append(r, [2]int{id * ps, id*ps + min(end, (overflow+1)*ps)})
		id += overflow + 1
	}
	return r
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, errors.New("EOF")
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, errors.New("EOF")
	}
	return n, nil
}

// TestBoltLedgerMetaFlipRollback is issue 14's double spend: after an
// authority, one bit of the checksum of the newest meta page is flipped.
// bbolt then silently opens the older meta page, where the envelope is
// only emitted, and the same resolution would be authority again. The
// ledger must refuse the file.
func TestBoltLedgerMetaFlipRollback(t *testing.T) {
	f := newFaultLedger(t, 0)
	m, ps, err := checkBoltMetas(bytesReaderAt(f.db), int64(len(f.db)))
	if err != nil {
		t.Fatal(err)
	}
	db := append([]byte(nil), f.db...)
	db[m.index*ps+boltPageHeader+boltChecksummed] ^= 1 // the checksum's lowest bit
	path := filepath.Join(t.TempDir(), "ledger.db")
	os.WriteFile(path, db, 0o600)
	os.WriteFile(path+".hwm", f.hwm, 0o600)
	l, err := Open(path, nil)
	if err == nil {
		ok, perr := present(l, f.consumed)
		l.Close()
		t.Fatalf("Open accepted a rolled-back file; presenting the consumed authority again consumes it: %v (%v)", ok, perr)
	}
	if !errors.Is(err, ledger.ErrCorrupt) {
		t.Fatalf("Open = %v, want ledger.ErrCorrupt", err)
	}
	t.Log(err)
}

// TestBoltLedgerMetaFlips flips, one at a time, every bit bbolt reads of
// both meta pages (the page header and the meta: 2 x 80 x 8 files).
func TestBoltLedgerMetaFlips(t *testing.T) {
	f := newFaultLedger(t, 6)
	_, ps, _ := checkBoltMetas(bytesReaderAt(f.db), int64(len(f.db)))
	path := filepath.Join(t.TempDir(), "ledger.db")
	var count [faultOutcomes]int
	db := append([]byte(nil), f.db...)
	for page := range 2 {
		for bit := range boltMetaSize * 8 {
			at := page*ps + bit/8
			db[at] ^= 1 << (bit % 8)
			count[f.trial(t, path, db, f.hwm, fmt.Sprintf("meta page %d, byte %d, bit %d", page, bit/8, bit%8))]++
			db[at] ^= 1 << (bit % 8)
		}
	}
	logFaultCounts(t, "meta-page flips", count)
}

// TestBoltLedgerRootPageFlips flips, one at a time, every bit of the
// structure of the root page of a small ledger: its header, the bucket's
// element, name and header, and the inline page's header and elements
// (with -ledger.exhaustive, every byte bbolt reads of the page, the keys
// and values of every entry too; TestLedgerEntryEncoding covers those bit
// by bit). A flip of the inline page's count, for one, drops its last
// entries without breaking a checksum: a resolved envelope would read as
// never emitted, and could be emitted and resolved again.
func TestBoltLedgerRootPageFlips(t *testing.T) {
	const fillers = 8
	f := newFaultLedger(t, fillers)
	m, ps, _ := checkBoltMetas(bytesReaderAt(f.db), int64(len(f.db)))
	var root [2]int
	for _, r := range liveRanges(t, f.db) {
		if r[0] == int(m.root)*ps {
			root = r
		}
	}
	if root[1]-root[0] < 60*fillers {
		t.Fatalf("root page: %d bytes read, want the inline bucket", root[1]-root[0])
	}
	end := root[1]
	if !*ledgerAll {
		end = root[0] + 2*boltPageHeader + boltElementSize + len(boltBucket) + boltBucketHeader + (fillers+1)*boltElementSize
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	var count [faultOutcomes]int
	db := append([]byte(nil), f.db...)
	for at := root[0]; at < end; at++ {
		for bit := range 8 {
			db[at] ^= 1 << bit
			count[f.trial(t, path, db, f.hwm, fmt.Sprintf("root page byte %d, bit %d", at-root[0], bit))]++
			db[at] ^= 1 << bit
		}
	}
	logFaultCounts(t, fmt.Sprintf("root-page flips (bytes %d to %d)", 0, end-root[0]), count)
}

// TestBoltLedgerPageHeaderFlips flips, one at a time, every bit of the
// type, element count and overflow of every page below the high-water
// page of a ledger large enough for branch and leaf pages (with
// -ledger.exhaustive, the page id too). A smaller count on a leaf page
// drops its last entries with every checksum intact.
func TestBoltLedgerPageHeaderFlips(t *testing.T) {
	f := newFaultLedger(t, 300)
	m, ps, _ := checkBoltMetas(bytesReaderAt(f.db), int64(len(f.db)))
	path := filepath.Join(t.TempDir(), "ledger.db")
	var count [faultOutcomes]int
	db := append([]byte(nil), f.db...)
	branches := 0
	for id := range int(m.pgid) {
		if ne.Uint16(db[id*ps+8:]) == boltBranchPage {
			branches++
		}
		first := 8 // flags, count, overflow
		if *ledgerAll {
			first = 0
		}
		for bit := first * 8; bit < boltPageHeader*8; bit++ {
			at := id*ps + bit/8
			db[at] ^= 1 << (bit % 8)
			count[f.trial(t, path, db, f.hwm, fmt.Sprintf("page %d, header byte %d, bit %d", id, bit/8, bit%8))]++
			db[at] ^= 1 << (bit % 8)
		}
	}
	if branches == 0 {
		t.Fatal("no branch page: the ledger is too small for this test")
	}
	logFaultCounts(t, fmt.Sprintf("page-header flips (%d pages)", m.pgid), count)
}

// TestBoltLedgerHWMFlips flips every bit of both slots of the high-water
// file.
func TestBoltLedgerHWMFlips(t *testing.T) {
	f := newFaultLedger(t, 6)
	path := filepath.Join(t.TempDir(), "ledger.db")
	var count [faultOutcomes]int
	hwm := append([]byte(nil), f.hwm...)
	for slot := range 2 {
		for bit := range hwmSlotSize * 8 {
			at := slot*hwmSlotStride + bit/8
			hwm[at] ^= 1 << (bit % 8)
			count[f.trial(t, path, f.db, hwm, fmt.Sprintf("high-water slot %d, byte %d, bit %d", slot, bit/8, bit%8))]++
			hwm[at] ^= 1 << (bit % 8)
		}
	}
	logFaultCounts(t, "high-water flips", count)
}

// TestBoltLedgerFaultInjection flips one random bit per trial in a copy of
// a small ledger (its bucket inline in the root page) and of a larger one
// (branch and leaf pages): a third of the flips anywhere in the file, two
// thirds in the bytes bbolt reads (see liveRanges). -ledger.flips sets the
// number per shape; the seed is logged.
func TestBoltLedgerFaultInjection(t *testing.T) {
	n := *ledgerFlips
	if n == 0 {
		n = 400
		if testing.Short() {
			n = 150
		}
	}
	seed := *ledgerSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (-ledger.seed)", seed)
	for _, fillers := range []int{8, 300} {
		t.Run(fmt.Sprintf("entries=%d", fillers+1), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(fillers)))
			f := newFaultLedger(t, fillers)
			live := liveRanges(t, f.db)
			liveBytes := 0
			for _, r := range live {
				liveBytes += r[1] - r[0]
			}
			path := filepath.Join(t.TempDir(), "ledger.db")
			var count, liveCount [faultOutcomes]int
			db := append([]byte(nil), f.db...)
			for trial := range n {
				at := rng.IntN(len(db))
				inLive := trial%3 != 0
				if inLive {
					k := rng.IntN(liveBytes)
					for _, r := range live {
						if k < r[1]-r[0] {
							at = r[0] + k
							break
						}
						k -= r[1] - r[0]
					}
				}
				bit := byte(1) << rng.IntN(8)
				db[at] ^= bit
				o := f.trial(t, path, db, f.hwm, fmt.Sprintf("trial %d: byte %d ^= %#x", trial, at, bit))
				db[at] ^= bit
				count[o]++
				if inLive {
					liveCount[o]++
				}
			}
			t.Logf("file %d bytes, %d read by bbolt", len(db), liveBytes)
			logFaultCounts(t, "all flips", count)
			logFaultCounts(t, "flips in bytes bbolt reads", liveCount)
		})
	}
}

func logFaultCounts(t *testing.T, what string, count [faultOutcomes]int) {
	t.Helper()
	total := 0
	for _, c := range count {
		total += c
	}
	s := fmt.Sprintf("%s: %d trials:", what, total)
	for i, c := range count {
		s += fmt.Sprintf(" %s %d;", faultOutcomeNames[i], c)
	}
	t.Log(s + " second authority 0, panics 0")
}
