package envelope

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
)

// resLedgers returns a constructor for each Ledger implementation.
func resLedgers() []struct {
	name string
	open func(t testing.TB) Ledger
} {
	return []struct {
		name string
		open func(t testing.TB) Ledger
	}{
		{"mem", func(t testing.TB) Ledger { return NewMemLedger() }},
		{"bolt", func(t testing.TB) Ledger {
			l, err := OpenBoltLedger(filepath.Join(t.TempDir(), "ledger.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		}},
	}
}

func TestLedgerStates(t *testing.T) {
	for _, lt := range resLedgers() {
		t.Run("ledger="+lt.name, func(t *testing.T) {
			l := lt.open(t)
			d, other := hashing.Sum([]byte("a")), hashing.Sum([]byte("b"))
			state := func(want LedgerState) Entry {
				t.Helper()
				e, err := l.Lookup(d)
				if err != nil || e.State != want {
					t.Fatalf("Lookup = %+v, %v; want %v", e, err, want)
				}
				if want != StateResolved && (e.Outcome != 0 || !e.ResolvedAt.IsZero()) {
					t.Fatalf("Lookup = %+v: outcome or time before resolution", e)
				}
				return e
			}
			state(StateUnknown)
			if ok, err := l.Resolve(d, OutcomeAuthority); ok || err != nil {
				t.Fatalf("Resolve(unknown) = %v, %v", ok, err)
			}
			state(StateUnknown) // a failed Resolve changes nothing
			if err := l.Emit(d); err != nil {
				t.Fatal(err)
			}
			state(StateEmitted)
			if err := l.Emit(d); err != nil { // idempotent while open
				t.Fatal(err)
			}
			state(StateEmitted)
			for _, o := range []Outcome{0, OutcomeRecord, OutcomeDiscarded, OutcomeMalformed, 99} {
				if ok, err := l.Resolve(d, o); ok || err == nil {
					t.Fatalf("Resolve(%v) = %v, %v; want an error", o, ok, err)
				}
			}
			state(StateEmitted) // a Resolve with an outcome that does not consume changes nothing
			before := time.Now()
			if ok, err := l.Resolve(d, OutcomeDeclined); !ok || err != nil {
				t.Fatalf("first Resolve = %v, %v", ok, err)
			}
			e := state(StateResolved)
			if e.Outcome != OutcomeDeclined || e.ResolvedAt.Before(before.Add(-time.Second)) || e.ResolvedAt.After(time.Now()) {
				t.Fatalf("Lookup after Resolve = %+v", e)
			}
			if ok, err := l.Resolve(d, OutcomeAuthority); ok || err != nil {
				t.Fatalf("second Resolve = %v, %v", ok, err)
			}
			if err := l.Emit(d); !errors.Is(err, ErrAlreadyResolved) {
				t.Fatalf("Emit(resolved) = %v, want ErrAlreadyResolved", err)
			}
			if e2 := state(StateResolved); e2 != e { // neither changes the entry
				t.Fatalf("entry changed from %+v to %+v", e, e2)
			}
			if e, _ := l.Lookup(other); e != (Entry{}) {
				t.Fatalf("Lookup(other) = %+v", e)
			}
		})
	}
	for s, name := range map[LedgerState]string{0: "unknown", 1: "emitted", 2: "resolved", 3: "invalid"} {
		if s.String() != name {
			t.Errorf("LedgerState(%d) = %q, want %q", s, s, name)
		}
	}
}

// TestLedgerRecordsOutcome: each outcome that consumes an envelope is the
// one Lookup reports, in both ledgers and after reopening a BoltLedger.
func TestLedgerRecordsOutcome(t *testing.T) {
	outcomes := []Outcome{OutcomeAuthority, OutcomeDeclined, OutcomeAnswer, OutcomeQuestion}
	digest := func(o Outcome) hashing.Digest { return hashing.Sum([]byte{byte(o)}) }
	check := func(t *testing.T, l Ledger) {
		for _, o := range outcomes {
			if e, err := l.Lookup(digest(o)); err != nil || e.State != StateResolved || e.Outcome != o || e.ResolvedAt.IsZero() {
				t.Errorf("Lookup after Resolve(%v) = %+v, %v", o, e, err)
			}
		}
	}
	for _, lt := range resLedgers() {
		t.Run("ledger="+lt.name, func(t *testing.T) {
			l := lt.open(t)
			for _, o := range outcomes {
				l.Emit(digest(o))
				if ok, err := l.Resolve(digest(o), o); !ok || err != nil {
					t.Fatalf("Resolve(%v) = %v, %v", o, ok, err)
				}
			}
			check(t, l)
		})
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := OpenBoltLedger(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		l.Emit(digest(o))
		l.Resolve(digest(o), o)
	}
	l.Close()
	if l, err = OpenBoltLedger(path, nil); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	check(t, l)
}

// TestResolver runs the rules of §7.3 through a ledger: which outcomes
// consume the envelope, and that a consumed envelope discards every later
// resolution, the same one included (§12.5).
func TestResolver(t *testing.T) {
	ctx := context.Background()
	type step struct {
		res    []byte
		action string
		want   Outcome
	}
	// Each case gets a fresh, emitted envelope; d is its digest.
	type testCase struct {
		name   string
		steps  func(d string) []step
		final  LedgerState
		noEmit bool
	}
	opt := func(d string, i int) []byte { return resJSON(d, "option", fmt.Sprintf(`"option_idx":%d`, i)) }
	tests := []testCase{
		{name: "authority/then-replay", final: StateResolved, steps: func(d string) []step {
			return []step{
				{opt(d, 0), resAction0, OutcomeAuthority},
				{opt(d, 0), resAction0, OutcomeDiscarded}, // replay
				{opt(d, 1), resAction1, OutcomeDiscarded}, // another option
				{resJSON(d, "declined", ""), "", OutcomeDiscarded},
			}
		}},
		{name: "record/does-not-consume", final: StateResolved, steps: func(d string) []step {
			return []step{
				{opt(d, 0), resAction1, OutcomeRecord}, // wrong action
				{opt(d, 0), "", OutcomeRecord},         // dry run, no action
				{opt(d, 0), resAction0, OutcomeAuthority},
				{opt(d, 0), resAction0, OutcomeDiscarded},
			}
		}},
		{name: "record/only", final: StateEmitted, steps: func(d string) []step {
			return []step{{opt(d, 1), resAction0, OutcomeRecord}}
		}},
		{name: "declined/consumes", final: StateResolved, steps: func(d string) []step {
			return []step{
				{resJSON(d, "declined", ""), "", OutcomeDeclined},
				{resJSON(d, "declined", ""), "", OutcomeDiscarded},
				{opt(d, 0), resAction0, OutcomeDiscarded}, // no authority after a decline
			}
		}},
		{name: "question/consumes", final: StateResolved, steps: func(d string) []step {
			return []step{
				{resJSON(d, "question", ""), "", OutcomeQuestion},
				{resJSON(d, "question", ""), "", OutcomeDiscarded},
				{opt(d, 0), resAction0, OutcomeDiscarded},
			}
		}},
		{name: "answer/consumes", final: StateResolved, steps: func(d string) []step {
			return []step{
				{resJSON(d, "answer", `"answer":"dates only"`), "", OutcomeAnswer},
				{resJSON(d, "answer", `"answer":"dates only"`), "", OutcomeDiscarded},
				{opt(d, 0), resAction0, OutcomeDiscarded},
			}
		}},
		{name: "malformed/does-not-consume", final: StateResolved, steps: func(d string) []step {
			return []step{
				{opt(d, 2), resAction0, OutcomeMalformed},                                                                       // out of range
				{resJSON(d, "option", ""), resAction0, OutcomeMalformed},                                                        // option_idx missing
				{resJSON(d, "declined", `"option_idx":0`), "", OutcomeMalformed},                                                // option_idx present
				{[]byte(`{"envelope_digest":"` + d + `","resolution":"declined","resolution":"option"}`), "", OutcomeMalformed}, // canon gate
				{[]byte(`not json`), "", OutcomeMalformed},
				{opt(d, 0), resAction0, OutcomeAuthority},
			}
		}},
		{name: "discarded/other-envelope", final: StateEmitted, steps: func(d string) []step {
			o := resExampleDigest // the unmodified §6.4 envelope: not the one held
			return []step{
				{opt(o, 0), resAction0, OutcomeDiscarded},
				{resJSON(o, "declined", ""), "", OutcomeDiscarded},
			}
		}},
		{name: "discarded/not-emitted", final: StateUnknown, noEmit: true, steps: func(d string) []step {
			return []step{
				{opt(d, 0), resAction0, OutcomeDiscarded},
				{opt(d, 0), resAction1, OutcomeDiscarded}, // unknown beats record
				{opt(d, 9), resAction0, OutcomeDiscarded}, // and malformed range
				{resJSON(d, "declined", ""), "", OutcomeDiscarded},
				{resJSON(d, "question", ""), "", OutcomeDiscarded},
				{resJSON(d, "answer", `"answer":"x"`), "", OutcomeDiscarded},
			}
		}},
	}
	for _, lt := range resLedgers() {
		for i, tt := range tests {
			t.Run("ledger="+lt.name+"/"+tt.name, func(t *testing.T) {
				l := lt.open(t)
				r := NewResolver(l)
				env := resTestEnvelope(t, fmt.Sprintf("%s Case %d.", resExampleSynopsis, i), true, true)
				if !tt.noEmit {
					if err := l.Emit(env.Digest()); err != nil {
						t.Fatal(err)
					}
				}
				for j, s := range tt.steps(env.Digest().String()) {
					var action []byte
					if s.action != "" {
						action = []byte(s.action)
					}
					got, err := r.Resolve(ctx, env, s.res, action)
					if err != nil {
						t.Fatalf("step %d: Resolve: %v", j, err)
					}
					if got.Outcome != s.want || got.Reason == "" {
						t.Fatalf("step %d: Resolve(%s) = %v (%s), want %v", j, s.res, got.Outcome, got.Reason, s.want)
					}
				}
				if e, err := l.Lookup(env.Digest()); err != nil || e.State != tt.final {
					t.Fatalf("final state %v, %v; want %v", e.State, err, tt.final)
				}
			})
		}
	}
}

func TestResolverContext(t *testing.T) {
	l := NewMemLedger()
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	l.Emit(env.Digest())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := NewResolver(l).Resolve(ctx, env, resJSON(env.Digest().String(), "option", `"option_idx":0`), []byte(resAction0))
	if !errors.Is(err, context.Canceled) || got.Authorizes() || got != (Result{}) {
		t.Fatalf("Resolve(cancelled) = %+v, %v", got, err)
	}
	if e, _ := l.Lookup(env.Digest()); e.State != StateEmitted {
		t.Fatalf("state after a cancelled Resolve = %v", e.State)
	}
}

// failingLedger fails every call.
type failingLedger struct{ err error }

func (f failingLedger) Emit(hashing.Digest) error                     { return f.err }
func (f failingLedger) Resolve(hashing.Digest, Outcome) (bool, error) { return false, f.err }
func (f failingLedger) Lookup(hashing.Digest) (Entry, error)          { return Entry{}, f.err }

func TestResolverLedgerError(t *testing.T) {
	boom := errors.New("disk on fire")
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	got, err := NewResolver(failingLedger{boom}).Resolve(context.Background(), env,
		resJSON(env.Digest().String(), "option", `"option_idx":0`), []byte(resAction0))
	if !errors.Is(err, boom) || got.Authorizes() {
		t.Fatalf("Resolve = %+v, %v; want the ledger's error", got, err)
	}
}

// TestResolverConcurrent: 50 goroutines present the same authority at
// once; exactly one gets it (§7.3, last paragraph). Run with -race.
func TestResolverConcurrent(t *testing.T) {
	const n = 50
	for _, lt := range resLedgers() {
		t.Run("ledger="+lt.name, func(t *testing.T) {
			l := lt.open(t)
			r := NewResolver(l)
			env := resTestEnvelope(t, resExampleSynopsis, true, true)
			if err := l.Emit(env.Digest()); err != nil {
				t.Fatal(err)
			}
			src := resJSON(env.Digest().String(), "option", `"option_idx":0`)
			var (
				wg      sync.WaitGroup
				start   = make(chan struct{})
				results = make([]Result, n)
				errs    = make([]error, n)
			)
			for i := range n {
				wg.Go(func() {
					<-start
					results[i], errs[i] = r.Resolve(context.Background(), env, src, []byte(resAction0))
				})
			}
			close(start)
			wg.Wait()
			count := map[Outcome]int{}
			for i, res := range results {
				if errs[i] != nil {
					t.Fatalf("goroutine %d: %v", i, errs[i])
				}
				count[res.Outcome]++
			}
			if count[OutcomeAuthority] != 1 || count[OutcomeDiscarded] != n-1 {
				t.Fatalf("outcomes %v; want 1 authority, %d discarded", count, n-1)
			}
		})
	}
}

// TestResolverConcurrentMixed: 50 goroutines present different decisions
// on the same envelope; exactly one decision wins, and records never do.
func TestResolverConcurrentMixed(t *testing.T) {
	const n = 50
	for _, lt := range resLedgers() {
		t.Run("ledger="+lt.name, func(t *testing.T) {
			l := lt.open(t)
			r := NewResolver(l)
			env := resTestEnvelope(t, resExampleSynopsis, true, true)
			l.Emit(env.Digest())
			d := env.Digest().String()
			srcs := [][]byte{
				resJSON(d, "option", `"option_idx":0`),
				resJSON(d, "declined", ""),
				resJSON(d, "question", ""),
				resJSON(d, "answer", `"answer":"x"`),
				resJSON(d, "option", `"option_idx":1`), // with action 0: a record
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			count := map[Outcome]int{}
			for i := range n {
				wg.Go(func() {
					res, err := r.Resolve(context.Background(), env, srcs[i%len(srcs)], []byte(resAction0))
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					count[res.Outcome]++
					mu.Unlock()
				})
			}
			wg.Wait()
			decisions := count[OutcomeAuthority] + count[OutcomeDeclined] + count[OutcomeQuestion] + count[OutcomeAnswer]
			if decisions != 1 || count[OutcomeRecord]+count[OutcomeDiscarded] != n-1 {
				t.Fatalf("outcomes %v; want exactly one decision", count)
			}
		})
	}
}

func TestBoltLedgerReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := OpenBoltLedger(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := hashing.Sum([]byte("a")), hashing.Sum([]byte("b")), hashing.Sum([]byte("c"))
	l.Emit(a)
	l.Emit(b)
	before := time.Now()
	if ok, err := l.Resolve(a, OutcomeAuthority); !ok || err != nil {
		t.Fatal(ok, err)
	}
	ea, _ := l.Lookup(a)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l, err = OpenBoltLedger(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for d, want := range map[hashing.Digest]LedgerState{a: StateResolved, b: StateEmitted, c: StateUnknown} {
		if got, err := l.Lookup(d); got.State != want || err != nil {
			t.Errorf("Lookup(%s) = %+v, %v; want %v", d, got, err, want)
		}
	}
	got, err := l.Lookup(a)
	if err != nil || got != ea || got.Outcome != OutcomeAuthority || got.ResolvedAt.Before(before.Add(-time.Second)) || got.ResolvedAt.After(time.Now()) {
		t.Errorf("Lookup(a) after reopening = %+v, %v; before closing %+v", got, err, ea)
	}
	if ok, _ := l.Resolve(a, OutcomeAuthority); ok {
		t.Errorf("a resolved again after reopening")
	}
}

// TestResolverDiscardNamesOutcome: a resolution presented after the
// envelope was consumed is discarded with the outcome that consumed it.
func TestResolverDiscardNamesOutcome(t *testing.T) {
	l := NewMemLedger()
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	l.Emit(env.Digest())
	r := NewResolver(l)
	d := env.Digest().String()
	if got, err := r.Resolve(context.Background(), env, resJSON(d, "declined", ""), nil); err != nil || got.Outcome != OutcomeDeclined {
		t.Fatal(got, err)
	}
	got, err := r.Resolve(context.Background(), env, resJSON(d, "option", `"option_idx":0`), []byte(resAction0))
	if err != nil || got.Outcome != OutcomeDiscarded || !strings.Contains(got.Reason, "(declined at ") {
		t.Fatalf("Resolve after a decline = %+v, %v", got, err)
	}
}

// TestLedgerEntryEncoding: an entry round-trips, and every single-bit flip
// of its key or value, and every value length but the right one, is an
// error: a damaged entry is never read as another one.
func TestLedgerEntryEncoding(t *testing.T) {
	d := hashing.Sum([]byte("entry"))
	at := time.Unix(0, 1_790_000_000_123_456_789)
	for _, e := range []Entry{
		{State: StateEmitted},
		{State: StateResolved, Outcome: OutcomeAuthority, ResolvedAt: at},
		{State: StateResolved, Outcome: OutcomeDeclined, ResolvedAt: at},
		{State: StateResolved, Outcome: OutcomeAnswer, ResolvedAt: at},
		{State: StateResolved, Outcome: OutcomeQuestion, ResolvedAt: at},
	} {
		v := appendEntry(nil, d, e)
		if got, err := decodeEntry(d[:], v); err != nil || got != e {
			t.Fatalf("decodeEntry(appendEntry(%+v)) = %+v, %v", e, got, err)
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
			if n != entrySize {
				if _, err := decodeEntry(d[:], append(v[:0:0], append(v, v...)[:n]...)); err == nil {
					t.Fatalf("a value of %d bytes decodes", n)
				}
			}
		}
	}
	// A well-formed checksum over an inconsistent entry is refused too.
	for _, v := range [][]byte{
		{byte(StateEmitted), 1, 0, 0, 0, 0, 0, 0, 0, 0},  // emitted with an outcome
		{byte(StateEmitted), 0, 0, 0, 0, 0, 0, 0, 0, 1},  // emitted with a time
		{byte(StateResolved), 0, 0, 0, 0, 0, 0, 0, 0, 1}, // resolved without an outcome
		{byte(StateResolved), 1, 0, 0, 0, 0, 0, 0, 0, 0}, // resolved without a time
		{byte(StateResolved), 5, 0, 0, 0, 0, 0, 0, 0, 1}, // unknown outcome code
		{3, 0, 0, 0, 0, 0, 0, 0, 0, 0},                   // unknown state
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0},                   // unknown state
	} {
		v = binary.BigEndian.AppendUint32(v, entryChecksum(d[:], append(v, 0, 0, 0, 0)))
		if got, err := decodeEntry(d[:], v); err == nil {
			t.Errorf("% x decodes as %+v", v, got)
		}
	}
}

func TestBoltLedgerCorruptEntry(t *testing.T) {
	l, err := OpenBoltLedger(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d, other := hashing.Sum([]byte("x")), hashing.Sum([]byte("y"))
	l.Emit(other)
	v := appendEntry(nil, d, Entry{State: StateResolved, Outcome: OutcomeAuthority, ResolvedAt: time.Now()})
	v[0] = byte(StateEmitted) // a resolved entry whose state byte now says emitted
	l.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(boltBucket).Put(d[:], v) })
	if ok, err := l.Resolve(d, OutcomeAuthority); ok || !errors.Is(err, ErrLedgerCorrupt) {
		t.Errorf("Resolve = %v, %v", ok, err)
	}
	// The ledger now refuses every call, also for an intact entry.
	if _, err := l.Lookup(other); !errors.Is(err, ErrLedgerCorrupt) {
		t.Errorf("Lookup after corruption = %v", err)
	}
	if err := l.Emit(other); !errors.Is(err, ErrLedgerCorrupt) {
		t.Errorf("Emit after corruption = %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close after corruption = %v", err)
	}
}

func TestOpenBoltLedgerError(t *testing.T) {
	if _, err := OpenBoltLedger(filepath.Join(t.TempDir(), "no", "such", "dir", "l.db"), nil); err == nil {
		t.Fatal("OpenBoltLedger in a missing directory succeeded")
	}
	if _, err := OpenBoltLedger(filepath.Join(t.TempDir(), "l.db"), &BoltOptions{Wait: -1}); err == nil {
		t.Fatal("OpenBoltLedger with a negative wait succeeded")
	}
	// A file that is not a ledger is refused, and left as it was.
	path := filepath.Join(t.TempDir(), "envelope.json")
	content := bytes.Repeat([]byte(`{"binding_moment":{}}`), 1000)
	os.WriteFile(path, content, 0o600)
	if _, err := OpenBoltLedger(path, nil); !errors.Is(err, ErrLedgerCorrupt) {
		t.Fatalf("OpenBoltLedger(a JSON file) = %v, want ErrLedgerCorrupt", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
		t.Fatal("OpenBoltLedger changed a file that is not a ledger")
	}
}

// TestBoltLedgerLarge opens a ledger of 40,000 entries written in four
// transactions: branch pages, and a freelist long enough to need overflow
// pages (more than 511 free pages), which the open-time walk must read
// whole.
func TestBoltLedgerLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := OpenBoltLedger(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	digest := func(i int) hashing.Digest { return hashing.Sum(binary.BigEndian.AppendUint64(nil, uint64(i))) }
	for start := 0; start < 40_000; start += 10_000 {
		err := l.db.Update(func(tx *bolt.Tx) error {
			for i := start; i < start+10_000; i++ {
				d := digest(i)
				if err := tx.Bucket(boltBucket).Put(d[:], appendEntry(nil, d, Entry{State: StateEmitted})); err != nil {
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
	if l, err = OpenBoltLedger(path, nil); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, i := range []int{0, 12_345, 39_999} {
		if ok, err := l.Resolve(digest(i), OutcomeAnswer); !ok || err != nil {
			t.Fatalf("Resolve(%d) = %v, %v", i, ok, err)
		}
	}
}
