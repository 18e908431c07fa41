package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/internal/ledgertest"
)

// TestLedgerStates and TestLedgerRecordsOutcome run the checks the memory
// ledger runs in package ledger.

func TestLedgerStates(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ledgertest.States(t, l)
}

// TestLedgerRecordsOutcome: each outcome that consumes an envelope is the
// one Lookup reports, also after reopening the ledger.
func TestLedgerRecordsOutcome(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.RecordOutcomes(t, l)
	ledgertest.CheckOutcomes(t, l)
	l.Close()
	if l, err = Open(path, nil); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ledgertest.CheckOutcomes(t, l)
}

func TestBoltLedgerReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := hashing.Sum([]byte("a")), hashing.Sum([]byte("b")), hashing.Sum([]byte("c"))
	l.Emit(a)
	l.Emit(b)
	before := time.Now()
	if ok, err := l.Resolve(a, ledger.OutcomeAuthority); !ok || err != nil {
		t.Fatal(ok, err)
	}
	ea, _ := l.Lookup(a)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for d, want := range map[hashing.Digest]ledger.State{a: ledger.StateResolved, b: ledger.StateEmitted, c: ledger.StateUnknown} {
		if got, err := l.Lookup(d); got.State != want || err != nil {
			t.Errorf("Lookup(%s) = %+v, %v; want %v", d, got, err, want)
		}
	}
	got, err := l.Lookup(a)
	if err != nil || got != ea || got.Outcome != ledger.OutcomeAuthority || got.ResolvedAt.Before(before.Add(-time.Second)) || got.ResolvedAt.After(time.Now()) {
		t.Errorf("Lookup(a) after reopening = %+v, %v; before closing %+v", got, err, ea)
	}
	if ok, _ := l.Resolve(a, ledger.OutcomeAuthority); ok {
		t.Errorf("a resolved again after reopening")
	}
}

// TestLedgerEntryEncoding: an entry round-trips, and every single-bit flip
// of its key or value, and every value length but the right one, is an
// error: a damaged entry is never read as another one. The same holds for
// the entries of legacyEntrySize that earlier versions wrote.
func TestLedgerEntryEncoding(t *testing.T) {
	d := hashing.Sum([]byte("entry"))
	at := time.Unix(0, 1_790_000_000_123_456_789)
	emitted := time.Unix(0, 1_789_999_000_987_654_321)
	legacy := func(e ledger.Entry) []byte {
		v := make([]byte, 10, legacyEntrySize)
		v[0] = byte(e.State)
		if e.State == ledger.StateResolved {
			v[1] = byte(e.Outcome)
			binary.BigEndian.PutUint64(v[2:], uint64(e.ResolvedAt.UnixNano()))
		}
		return binary.BigEndian.AppendUint32(v, entryChecksum(d[:], append(v, 0, 0, 0, 0)))
	}
	for _, e := range []ledger.Entry{
		{State: ledger.StateEmitted, EmittedAt: emitted},
		{State: ledger.StateResolved, Outcome: ledger.OutcomeAuthority, ResolvedAt: at, EmittedAt: emitted},
		{State: ledger.StateResolved, Outcome: ledger.OutcomeDeclined, ResolvedAt: at, EmittedAt: emitted},
		{State: ledger.StateResolved, Outcome: ledger.OutcomeAnswer, ResolvedAt: at, EmittedAt: emitted},
		{State: ledger.StateResolved, Outcome: ledger.OutcomeQuestion, ResolvedAt: at, EmittedAt: emitted},
		{State: ledger.StateResolved, Outcome: ledger.OutcomeAuthority, ResolvedAt: at}, // resolved from a legacy entry
	} {
		v := appendEntry(nil, d, e)
		checkEntryEncoding(t, d, v, e)
		if e.EmittedAt.IsZero() || e.State == ledger.StateEmitted {
			// The same entry as an earlier version wrote it: read with no
			// emission time.
			old := e
			old.EmittedAt = time.Time{}
			checkEntryEncoding(t, d, legacy(old), old)
		}
	}
	// A well-formed checksum over an inconsistent entry is refused too.
	for _, v := range [][]byte{
		{byte(ledger.StateEmitted), 1, 0, 0, 0, 0, 0, 0, 0, 0},  // emitted with an outcome
		{byte(ledger.StateEmitted), 0, 0, 0, 0, 0, 0, 0, 0, 1},  // emitted with a time
		{byte(ledger.StateResolved), 0, 0, 0, 0, 0, 0, 0, 0, 1}, // resolved without an outcome
		{byte(ledger.StateResolved), 1, 0, 0, 0, 0, 0, 0, 0, 0}, // resolved without a time
		{byte(ledger.StateResolved), 5, 0, 0, 0, 0, 0, 0, 0, 1}, // unknown outcome code
		{3, 0, 0, 0, 0, 0, 0, 0, 0, 0},                          // unknown state
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0},                          // unknown state
	} {
		for _, emittedAt := range [][]byte{nil, {0, 0, 0, 0, 0, 0, 0, 1}} { // legacy, current
			v := append(slices.Clip(v), emittedAt...)
			v = binary.BigEndian.AppendUint32(v, entryChecksum(d[:], append(v, 0, 0, 0, 0)))
			if got, err := decodeEntry(d[:], v); err == nil {
				t.Errorf("% x decodes as %+v", v, got)
			}
		}
	}
	// An emitted entry of the current size must carry its emission time.
	v := []byte{byte(ledger.StateEmitted), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	v = binary.BigEndian.AppendUint32(v, entryChecksum(d[:], append(v, 0, 0, 0, 0)))
	if got, err := decodeEntry(d[:], v); err == nil {
		t.Errorf("an emitted entry without its emission time decodes as %+v", got)
	}
}

// checkEntryEncoding checks that v, the stored value of d, decodes as e,
// and that no single-bit flip of d or v, and no other length of v, does.
func checkEntryEncoding(t *testing.T, d hashing.Digest, v []byte, e ledger.Entry) {
	t.Helper()
	if got, err := decodeEntry(d[:], v); err != nil || got != e {
		t.Fatalf("decodeEntry(% x) = %+v, %v; want %+v", v, got, err, e)
	}
	kv := append(d[:], v...)
	for bit := range len(kv) * 8 {
		kv[bit/8] ^= 1 << (bit % 8)
		if got, err := decodeEntry(kv[:hashing.Size], kv[hashing.Size:]); err == nil {
			t.Fatalf("%+v with bit %d flipped decodes as %+v", e, bit, got)
		}
		kv[bit/8] ^= 1 << (bit % 8)
	}
	for n := range 2 * entrySize {
		if n != len(v) {
			if got, err := decodeEntry(d[:], bytes.Repeat(v, 4)[:n]); err == nil {
				t.Fatalf("%+v: a value of %d bytes decodes as %+v", e, n, got)
			}
		}
	}
}

func TestBoltLedgerCorruptEntry(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d, other := hashing.Sum([]byte("x")), hashing.Sum([]byte("y"))
	l.Emit(other)
	v := appendEntry(nil, d, ledger.Entry{State: ledger.StateResolved, Outcome: ledger.OutcomeAuthority, ResolvedAt: time.Now()})
	v[0] = byte(ledger.StateEmitted) // a resolved entry whose state byte now says emitted
	l.db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(boltBucket).Put(d[:], v) })
	if ok, err := l.Resolve(d, ledger.OutcomeAuthority); ok || !errors.Is(err, ledger.ErrCorrupt) {
		t.Errorf("Resolve = %v, %v", ok, err)
	}
	// The ledger now refuses every call, also for an intact entry.
	if _, err := l.Lookup(other); !errors.Is(err, ledger.ErrCorrupt) {
		t.Errorf("Lookup after corruption = %v", err)
	}
	if err := l.Emit(other); !errors.Is(err, ledger.ErrCorrupt) {
		t.Errorf("Emit after corruption = %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close after corruption = %v", err)
	}
}

func TestOpenBoltLedgerError(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "no", "such", "dir", "l.db"), nil); err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "l.db"), &Options{Wait: -1}); err == nil {
		t.Fatal("Open with a negative wait succeeded")
	}
	// A file that is not a ledger is refused, and left as it was.
	path := filepath.Join(t.TempDir(), "envelope.json")
	content := bytes.Repeat([]byte(`{"binding_moment":{}}`), 1000)
	os.WriteFile(path, content, 0o600)
	if _, err := Open(path, nil); !errors.Is(err, ledger.ErrCorrupt) {
		t.Fatalf("Open(a JSON file) = %v, want ledger.ErrCorrupt", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
		t.Fatal("Open changed a file that is not a ledger")
	}
}

// TestBoltLedgerLarge opens a ledger of 40,000 entries written in four
// transactions: branch pages, and a freelist long enough to need overflow
// pages (more than 511 free pages), which the open-time walk must read
// whole.
func TestBoltLedgerLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	digest := func(i int) hashing.Digest { return hashing.Sum(binary.BigEndian.AppendUint64(nil, uint64(i))) }
	for start := 0; start < 40_000; start += 10_000 {
		err := l.db.Update(func(tx *bbolt.Tx) error {
			for i := start; i < start+10_000; i++ {
				d := digest(i)
				if err := tx.Bucket(boltBucket).Put(d[:], appendEntry(nil, d, ledger.Entry{State: ledger.StateEmitted, EmittedAt: time.Now()})); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	raw, _ := os.ReadFile(path)
	m, ps, err := checkBoltMetas(bytesReaderAt(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if overflow := ne.Uint32(raw[int(m.freelist)*ps+12:]); overflow == 0 {
		t.Fatalf("the freelist has no overflow page: the test needs more free pages")
	}
	if l, err = Open(path, nil); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, i := range []int{0, 12_345, 39_999} {
		if ok, err := l.Resolve(digest(i), ledger.OutcomeAnswer); !ok || err != nil {
			t.Fatalf("Resolve(%d) = %v, %v", i, ok, err)
		}
	}
}

// present presents an authority for the envelope d as the Resolver of
// package envelope does: Lookup, then Resolve if d is emitted. It reports
// whether this call consumed d, which for an envelope consumed before is a
// second authority.
func present(l *Ledger, d hashing.Digest) (bool, error) {
	e, err := l.Lookup(d)
	if err != nil || e.State != ledger.StateEmitted {
		return false, err
	}
	return l.Resolve(d, ledger.OutcomeAuthority)
}

// TestOpenEarlierLedger opens a ledger written by the bbdigest of before
// this package existed (the bolt ledger of package envelope, commit
// 8b4c1e3; testdata/ledger-v1.db and its high-water file), whose entries
// are of legacyEntrySize and hold no emission time: it opens, every entry
// reads back as that version wrote it (with a zero EmittedAt), and it takes
// further writes, which are entries of entrySize, and reopens with both
// sizes in it. The entries' digests are the SHA-256 of the names below.
func TestOpenEarlierLedger(t *testing.T) {
	if ne.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the file was written on a little-endian machine, and bbolt's pages are in the machine's byte order")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	for _, suffix := range []string{"", ".hwm"} {
		b, err := os.ReadFile("testdata/ledger-v1.db" + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Open(path, &Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, want := range []struct {
		name    string
		state   ledger.State
		outcome ledger.Outcome
		at      int64 // ResolvedAt, Unix nanoseconds
	}{
		{"emitted", ledger.StateEmitted, 0, 0},
		{"authority", ledger.StateResolved, ledger.OutcomeAuthority, 1796178959338057026},
		{"declined", ledger.StateResolved, ledger.OutcomeDeclined, 1796178959338954886},
		{"answer", ledger.StateResolved, ledger.OutcomeAnswer, 1796178959339780320},
		{"question", ledger.StateResolved, ledger.OutcomeQuestion, 1796178959340639203},
		{"unknown", ledger.StateUnknown, 0, 0},
	} {
		e, err := l.Lookup(hashing.Sum([]byte(want.name)))
		if err != nil || e.State != want.state || e.Outcome != want.outcome ||
			(want.at == 0) != e.ResolvedAt.IsZero() || want.at != 0 && e.ResolvedAt.UnixNano() != want.at {
			t.Errorf("%s: Lookup = %+v, %v; want %v, %v, %d", want.name, e, err, want.state, want.outcome, want.at)
		}
	}
	for _, name := range []string{"emitted", "authority"} {
		if e, _ := l.Lookup(hashing.Sum([]byte(name))); !e.EmittedAt.IsZero() {
			t.Errorf("%s: an emission time %v the file never recorded", name, e.EmittedAt)
		}
	}
	// Emitting the legacy pending entry again keeps it as it is: no
	// emission time is made up for it.
	if err := l.Emit(hashing.Sum([]byte("emitted"))); err != nil {
		t.Fatal(err)
	}
	if e, _ := l.Lookup(hashing.Sum([]byte("emitted"))); e.State != ledger.StateEmitted || !e.EmittedAt.IsZero() {
		t.Errorf("emitted again: %+v", e)
	}
	if ok, err := l.Resolve(hashing.Sum([]byte("emitted")), ledger.OutcomeAnswer); !ok || err != nil {
		t.Errorf("Resolve(emitted) = %v, %v", ok, err)
	}
	if err := l.Emit(hashing.Sum([]byte("authority"))); !errors.Is(err, ledger.ErrAlreadyResolved) {
		t.Errorf("Emit(authority) = %v, want ErrAlreadyResolved", err)
	}
	before := time.Now()
	if err := l.Emit(hashing.Sum([]byte("new"))); err != nil {
		t.Fatal(err)
	}
	want, _ := l.Lookup(hashing.Sum([]byte("new")))
	if want.EmittedAt.Before(before.Add(-time.Second)) {
		t.Errorf("new entry: %+v", want)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err = Open(path, &Options{MustExist: true}); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if e, err := l.Lookup(hashing.Sum([]byte("new"))); err != nil || e != want {
		t.Errorf("new entry after reopening: %+v, %v; want %+v", e, err, want)
	}
	if e, err := l.Lookup(hashing.Sum([]byte("emitted"))); err != nil || e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeAnswer || !e.EmittedAt.IsZero() {
		t.Errorf("legacy entry resolved, after reopening: %+v, %v", e, err)
	}
	if e, err := l.Lookup(hashing.Sum([]byte("declined"))); err != nil || e.Outcome != ledger.OutcomeDeclined || e.ResolvedAt.UnixNano() != 1796178959338954886 {
		t.Errorf("legacy entry after reopening: %+v, %v", e, err)
	}
}
