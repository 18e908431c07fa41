package envelope

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/internal/demo"
	"github.com/bbdigest/bbdigest/ledger"
)

// resLedger makes an empty ledger of one implementation.
type resLedger struct {
	name string
	open func(t testing.TB) ledger.Ledger
}

// resLedgers are the ledgers the Resolver is tested over: the memory
// ledger, and the bolt ledger where bbolt builds (resolver_bolt_test.go).
var resLedgers = []resLedger{
	{"mem", func(t testing.TB) ledger.Ledger { return ledger.NewMemory() }},
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
		name   casename.CaseName
		steps  func(d string) []step
		final  ledger.State
		noEmit bool
	}
	opt := func(d string, i int) []byte { return resJSON(d, "option", fmt.Sprintf(`"option_idx":%d`, i)) }
	tests := []testCase{
		{name: casename.Name("authority/then-replay"), final: ledger.StateResolved, steps: func(d string) []step {
			return []step{
				{opt(d, 0), resAction0, OutcomeAuthority},
				{opt(d, 0), resAction0, OutcomeDiscarded}, // replay
				{opt(d, 1), resAction1, OutcomeDiscarded}, // another option
				{resJSON(d, "declined", ""), "", OutcomeDiscarded},
			}
		}},
		{name: casename.Name("record/does-not-consume"), final: ledger.StateResolved, steps: func(d string) []step {
			return []step{
				{opt(d, 0), resAction1, OutcomeRecord}, // wrong action
				{opt(d, 0), "", OutcomeRecord},         // dry run, no action
				{opt(d, 0), resAction0, OutcomeAuthority},
				{opt(d, 0), resAction0, OutcomeDiscarded},
			}
		}},
		{name: casename.Name("record/only"), final: ledger.StateEmitted, steps: func(d string) []step {
			return []step{{opt(d, 1), resAction0, OutcomeRecord}}
		}},
		{name: casename.Name("declined/consumes"), final: ledger.StateResolved, steps: func(d string) []step {
			return []step{
				{resJSON(d, "declined", ""), "", OutcomeDeclined},
				{resJSON(d, "declined", ""), "", OutcomeDiscarded},
				{opt(d, 0), resAction0, OutcomeDiscarded}, // no authority after a decline
			}
		}},
		{name: casename.Name("question/consumes"), final: ledger.StateResolved, steps: func(d string) []step {
			return []step{
				{resJSON(d, "question", ""), "", OutcomeQuestion},
				{resJSON(d, "question", ""), "", OutcomeDiscarded},
				{opt(d, 0), resAction0, OutcomeDiscarded},
			}
		}},
		{name: casename.Name("answer/consumes"), final: ledger.StateResolved, steps: func(d string) []step {
			return []step{
				{resJSON(d, "answer", `"answer":"dates only"`), "", OutcomeAnswer},
				{resJSON(d, "answer", `"answer":"dates only"`), "", OutcomeDiscarded},
				{opt(d, 0), resAction0, OutcomeDiscarded},
			}
		}},
		{name: casename.Name("malformed/does-not-consume"), final: ledger.StateResolved, steps: func(d string) []step {
			return []step{
				{opt(d, 2), resAction0, OutcomeMalformed},                                                                       // out of range
				{resJSON(d, "option", ""), resAction0, OutcomeMalformed},                                                        // option_idx missing
				{resJSON(d, "declined", `"option_idx":0`), "", OutcomeMalformed},                                                // option_idx present
				{[]byte(`{"envelope_digest":"` + d + `","resolution":"declined","resolution":"option"}`), "", OutcomeMalformed}, // canon gate
				{[]byte(`not json`), "", OutcomeMalformed},
				{opt(d, 0), resAction0, OutcomeAuthority},
			}
		}},
		{name: casename.Name("discarded/other-envelope"), final: ledger.StateEmitted, steps: func(d string) []step {
			o := demo.DraftEnvelopeDigest // the unmodified §6.4 envelope: not the one held
			return []step{
				{opt(o, 0), resAction0, OutcomeDiscarded},
				{resJSON(o, "declined", ""), "", OutcomeDiscarded},
			}
		}},
		{name: casename.Name("discarded/not-emitted"), final: ledger.StateUnknown, noEmit: true, steps: func(d string) []step {
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
	for _, lt := range resLedgers {
		for i, tt := range tests {
			t.Run("ledger="+lt.name+"/"+tt.name.Name, func(t *testing.T) {
				l := lt.open(t)
				r := NewResolver(l)
				env := resTestEnvelope(t, fmt.Sprintf("%s Case %d.", resExampleSynopsis, i), true, true)
				if !tt.noEmit {
					if err := l.Emit(env.Digest()); err != nil {
						t.Fatalf("%s: Emit: %v", tt.name.Where, err)
					}
				}
				for j, s := range tt.steps(env.Digest().String()) {
					var action []byte
					if s.action != "" {
						action = []byte(s.action)
					}
					got, err := r.Resolve(ctx, env, s.res, action)
					if err != nil {
						t.Fatalf("%s: step %d: Resolve: %v", tt.name.Where, j, err)
					}
					if got.Outcome != s.want || got.Reason == "" {
						t.Fatalf("%s: step %d: Resolve(%s) = %v (%s), want %v", tt.name.Where, j, s.res, got.Outcome, got.Reason, s.want)
					}
				}
				if e, err := l.Lookup(env.Digest()); err != nil || e.State != tt.final {
					t.Fatalf("%s: final state %v, %v; want %v", tt.name.Where, e.State, err, tt.final)
				}
			})
		}
	}
}

func TestResolverContext(t *testing.T) {
	l := ledger.NewMemory()
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	l.Emit(env.Digest())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := NewResolver(l).Resolve(ctx, env, resJSON(env.Digest().String(), "option", `"option_idx":0`), []byte(resAction0))
	if !errors.Is(err, context.Canceled) || got.Authorizes() || got != (Result{}) {
		t.Fatalf("Resolve(cancelled) = %+v, %v", got, err)
	}
	if e, _ := l.Lookup(env.Digest()); e.State != ledger.StateEmitted {
		t.Fatalf("state after a cancelled Resolve = %v", e.State)
	}
}

// failingLedger fails every call.
type failingLedger struct{ err error }

func (f failingLedger) Emit(hashing.Digest) error                            { return f.err }
func (f failingLedger) Resolve(hashing.Digest, ledger.Outcome) (bool, error) { return false, f.err }
func (f failingLedger) Lookup(hashing.Digest) (ledger.Entry, error)          { return ledger.Entry{}, f.err }

func TestResolverLedgerError(t *testing.T) {
	boom := errors.New("disk on fire")
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	got, err := NewResolver(failingLedger{boom}).Resolve(context.Background(), env,
		resJSON(env.Digest().String(), "option", `"option_idx":0`), []byte(resAction0))
	if !errors.Is(err, boom) || got.Authorizes() {
		t.Fatalf("Resolve = %+v, %v; want the ledger's error", got, err)
	}
	// Another Ledger's error becomes the cause of a *ledger.Error.
	if le, ok := errors.AsType[*ledger.Error](err); !ok || le.Err != boom || err.Error() != "ledger: disk on fire" {
		t.Errorf("Resolve: %v, want a *ledger.Error of %v", err, boom)
	}
}

// TestResolverConcurrent: 50 goroutines present the same authority at
// once; exactly one gets it (§7.3, last paragraph). Run with -race.
func TestResolverConcurrent(t *testing.T) {
	const n = 50
	for _, lt := range resLedgers {
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
	for _, lt := range resLedgers {
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

// TestResolverDiscardNamesOutcome: a resolution presented after the
// envelope was consumed is discarded with the outcome that consumed it.
func TestResolverDiscardNamesOutcome(t *testing.T) {
	l := ledger.NewMemory()
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

// TestResolverRecordsOutcome: each decision is recorded in the ledger as
// the ledger outcome of the same name, which the discard of a later
// resolution names.
func TestResolverRecordsOutcome(t *testing.T) {
	for _, tc := range []struct {
		kind, extra string
		action      string
		want        Outcome
		recorded    ledger.Outcome
	}{
		{"option", `"option_idx":0`, resAction0, OutcomeAuthority, ledger.OutcomeAuthority},
		{"declined", "", "", OutcomeDeclined, ledger.OutcomeDeclined},
		{"answer", `"answer":"x"`, "", OutcomeAnswer, ledger.OutcomeAnswer},
		{"question", "", "", OutcomeQuestion, ledger.OutcomeQuestion},
	} {
		l := ledger.NewMemory()
		env := resTestEnvelope(t, resExampleSynopsis, true, true)
		l.Emit(env.Digest())
		r := NewResolver(l)
		src := resJSON(env.Digest().String(), tc.kind, tc.extra)
		var action []byte
		if tc.action != "" {
			action = []byte(tc.action)
		}
		if got, err := r.Resolve(context.Background(), env, src, action); err != nil || got.Outcome != tc.want {
			t.Fatalf("%s: Resolve = %+v, %v; want %v", tc.kind, got, err, tc.want)
		}
		if e, err := l.Lookup(env.Digest()); err != nil || e.State != ledger.StateResolved || e.Outcome != tc.recorded || e.ResolvedAt.IsZero() {
			t.Fatalf("%s: Lookup = %+v, %v; want resolved by %v", tc.kind, e, err, tc.recorded)
		}
		got, err := r.Resolve(context.Background(), env, src, action)
		if err != nil || got.Outcome != OutcomeDiscarded || !strings.Contains(got.Reason, "("+tc.want.String()+" at ") {
			t.Fatalf("%s: Resolve again = %+v, %v", tc.kind, got, err)
		}
	}
}
