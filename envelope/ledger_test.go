package envelope

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
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
			l, err := OpenBoltLedger(filepath.Join(t.TempDir(), "ledger.db"))
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
			state := func(want LedgerState) {
				t.Helper()
				if got, err := l.State(d); err != nil || got != want {
					t.Fatalf("State = %v, %v; want %v", got, err, want)
				}
			}
			state(StateUnknown)
			if ok, err := l.Resolve(d); ok || err != nil {
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
			if ok, err := l.Resolve(d); !ok || err != nil {
				t.Fatalf("first Resolve = %v, %v", ok, err)
			}
			state(StateResolved)
			if ok, err := l.Resolve(d); ok || err != nil {
				t.Fatalf("second Resolve = %v, %v", ok, err)
			}
			if err := l.Emit(d); !errors.Is(err, ErrAlreadyResolved) {
				t.Fatalf("Emit(resolved) = %v, want ErrAlreadyResolved", err)
			}
			state(StateResolved) // re-emitting does not reopen
			if s, _ := l.State(other); s != StateUnknown {
				t.Fatalf("State(other) = %v", s)
			}
		})
	}
	for s, name := range map[LedgerState]string{0: "unknown", 1: "emitted", 2: "resolved", 3: "invalid"} {
		if s.String() != name {
			t.Errorf("LedgerState(%d) = %q, want %q", s, s, name)
		}
	}
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
				if st, err := l.State(env.Digest()); err != nil || st != tt.final {
					t.Fatalf("final state %v, %v; want %v", st, err, tt.final)
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
	if s, _ := l.State(env.Digest()); s != StateEmitted {
		t.Fatalf("state after a cancelled Resolve = %v", s)
	}
}

// failingLedger fails every call.
type failingLedger struct{ err error }

func (f failingLedger) Emit(hashing.Digest) error                 { return f.err }
func (f failingLedger) Resolve(hashing.Digest) (bool, error)      { return false, f.err }
func (f failingLedger) State(hashing.Digest) (LedgerState, error) { return 0, f.err }

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
	l, err := OpenBoltLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := hashing.Sum([]byte("a")), hashing.Sum([]byte("b")), hashing.Sum([]byte("c"))
	l.Emit(a)
	l.Emit(b)
	before := time.Now()
	if ok, err := l.Resolve(a); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l, err = OpenBoltLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for d, want := range map[hashing.Digest]LedgerState{a: StateResolved, b: StateEmitted, c: StateUnknown} {
		if got, err := l.State(d); got != want || err != nil {
			t.Errorf("State(%s) = %v, %v; want %v", d, got, err, want)
		}
	}
	at, ok, err := l.ResolvedAt(a)
	if !ok || err != nil || at.Before(before.Add(-time.Second)) || at.After(time.Now()) {
		t.Errorf("ResolvedAt(a) = %v, %v, %v", at, ok, err)
	}
	if _, ok, _ := l.ResolvedAt(b); ok {
		t.Errorf("ResolvedAt(b) reports resolved")
	}
	if ok, _ := l.Resolve(a); ok {
		t.Errorf("a resolved again after reopening")
	}
}

func TestBoltLedgerCorruptEntry(t *testing.T) {
	l, err := OpenBoltLedger(filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := hashing.Sum([]byte("x"))
	l.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(boltBucket).Put(d[:], []byte{7}) })
	if _, err := l.State(d); !errors.Is(err, errCorruptEntry) {
		t.Errorf("State = %v", err)
	}
	if ok, err := l.Resolve(d); ok || !errors.Is(err, errCorruptEntry) {
		t.Errorf("Resolve = %v, %v", ok, err)
	}
	if err := l.Emit(d); !errors.Is(err, errCorruptEntry) {
		t.Errorf("Emit = %v", err)
	}
}

func TestOpenBoltLedgerError(t *testing.T) {
	if _, err := OpenBoltLedger(filepath.Join(t.TempDir(), "no", "such", "dir", "l.db")); err == nil {
		t.Fatal("OpenBoltLedger in a missing directory succeeded")
	}
}
