// Package ledgertest checks the contract of ledger.Ledger, for the tests of
// each implementation (ledger.Memory, the bolt ledger).
package ledgertest

import (
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// States walks one digest through the states of an empty ledger l: unknown,
// emitted (Emit is idempotent, and keeps the first emission time), resolved
// once (keeping the emission time), and never again; Resolve with an
// invalid outcome, or of a digest not emitted, changes nothing.
func States(t *testing.T, l ledger.Ledger) {
	t.Helper()
	d, other := hashing.Sum([]byte("a")), hashing.Sum([]byte("b"))
	state := func(want ledger.State) ledger.Entry {
		t.Helper()
		e, err := l.Lookup(d)
		if err != nil || e.State != want {
			t.Fatalf("Lookup = %+v, %v; want %v", e, err, want)
		}
		if want != ledger.StateResolved && (e.Outcome != 0 || !e.ResolvedAt.IsZero()) {
			t.Fatalf("Lookup = %+v: outcome or time before resolution", e)
		}
		if (want == ledger.StateUnknown) != e.EmittedAt.IsZero() {
			t.Fatalf("Lookup = %+v: an emission time in state %v", e, e.State)
		}
		return e
	}
	state(ledger.StateUnknown)
	if ok, err := l.Resolve(d, ledger.OutcomeAuthority); ok || err != nil {
		t.Fatalf("Resolve(unknown) = %v, %v", ok, err)
	}
	state(ledger.StateUnknown) // a failed Resolve changes nothing
	beforeEmit := time.Now()
	if err := l.Emit(d); err != nil {
		t.Fatal(err)
	}
	emitted := state(ledger.StateEmitted)
	if at := emitted.EmittedAt; at.Before(beforeEmit.Add(-time.Second)) || at.After(time.Now()) || at != at.Round(0) {
		t.Fatalf("EmittedAt = %v, emitted at %v", at, beforeEmit)
	}
	time.Sleep(2 * time.Millisecond)  // a second Emit would record a later time
	if err := l.Emit(d); err != nil { // idempotent while open
		t.Fatal(err)
	}
	if e := state(ledger.StateEmitted); !e.EmittedAt.Equal(emitted.EmittedAt) {
		t.Fatalf("a second Emit moved the emission time from %v to %v", emitted.EmittedAt, e.EmittedAt)
	}
	for _, o := range []ledger.Outcome{0, 5, 6, 7, 99, 255} {
		if ok, err := l.Resolve(d, o); ok || err == nil {
			t.Fatalf("Resolve(%d) = %v, %v; want an error", o, ok, err)
		}
	}
	state(ledger.StateEmitted) // a Resolve with an outcome that does not consume changes nothing
	before := time.Now()
	if ok, err := l.Resolve(d, ledger.OutcomeDeclined); !ok || err != nil {
		t.Fatalf("first Resolve = %v, %v", ok, err)
	}
	e := state(ledger.StateResolved)
	if e.Outcome != ledger.OutcomeDeclined || e.ResolvedAt.Before(before.Add(-time.Second)) || e.ResolvedAt.After(time.Now()) ||
		!e.EmittedAt.Equal(emitted.EmittedAt) {
		t.Fatalf("Lookup after Resolve = %+v, emitted %v", e, emitted.EmittedAt)
	}
	if ok, err := l.Resolve(d, ledger.OutcomeAuthority); ok || err != nil {
		t.Fatalf("second Resolve = %v, %v", ok, err)
	}
	if err := l.Emit(d); !errors.Is(err, ledger.ErrAlreadyResolved) {
		t.Fatalf("Emit(resolved) = %v, want ErrAlreadyResolved", err)
	}
	if e2 := state(ledger.StateResolved); e2 != e { // neither changes the entry
		t.Fatalf("entry changed from %+v to %+v", e, e2)
	}
	if e, _ := l.Lookup(other); e != (ledger.Entry{}) {
		t.Fatalf("Lookup(other) = %+v", e)
	}
}

// Outcomes are the outcomes a ledger records.
var Outcomes = []ledger.Outcome{ledger.OutcomeAuthority, ledger.OutcomeDeclined, ledger.OutcomeAnswer, ledger.OutcomeQuestion}

// OutcomeDigest is the digest RecordOutcomes resolves by o.
func OutcomeDigest(o ledger.Outcome) hashing.Digest { return hashing.Sum([]byte{byte(o)}) }

// RecordOutcomes emits one digest per outcome in l and resolves it by that
// outcome; CheckOutcomes checks them.
func RecordOutcomes(t *testing.T, l ledger.Ledger) {
	t.Helper()
	for _, o := range Outcomes {
		if err := l.Emit(OutcomeDigest(o)); err != nil {
			t.Fatalf("Emit: %v", err)
		}
		if ok, err := l.Resolve(OutcomeDigest(o), o); !ok || err != nil {
			t.Fatalf("Resolve(%v) = %v, %v", o, ok, err)
		}
	}
}

// CheckOutcomes checks that l holds the digests of RecordOutcomes, each
// resolved by its outcome, with the times of its emission and resolution.
func CheckOutcomes(t *testing.T, l ledger.Ledger) {
	t.Helper()
	for _, o := range Outcomes {
		if e, err := l.Lookup(OutcomeDigest(o)); err != nil || e.State != ledger.StateResolved || e.Outcome != o || e.ResolvedAt.IsZero() || e.EmittedAt.IsZero() {
			t.Errorf("Lookup after Resolve(%v) = %+v, %v", o, e, err)
		}
	}
}

// request returns a request for the act named by act, asked by the
// envelope named by env.
func request(act, env string) *ledger.Request {
	return &ledger.Request{
		EnvelopeDigest: hashing.Sum([]byte(env)), Envelope: []byte(`{"env":"` + env + `"}`),
		ActDigest: hashing.Sum([]byte(act)), Act: []byte(`{"act":"` + act + `"}`),
		Tool: "pay", Server: "shop", Class: "FINANCIAL",
	}
}

// Approvals walks the contract of ledger.Approvals on an empty store a: one
// open request per act (the same one while open, whatever envelope a later
// Ask brings), a request per act, a decision recorded once, Finish ending
// the request so that the act's next Ask opens a new one, an envelope
// never asked twice, refusals that change nothing, and concurrent Asks for
// one act ending with one request.
func Approvals(t *testing.T, a ledger.Approvals) {
	t.Helper()
	before := time.Now()
	first, created, err := a.Ask(request("pay 1999", "e1"))
	if err != nil || !created || first.State != ledger.RequestPending || first.EnvelopeDigest != hashing.Sum([]byte("e1")) ||
		first.EmittedAt.Before(before.Add(-time.Second)) || first.EmittedAt != first.EmittedAt.Round(0) ||
		string(first.Envelope) != `{"env":"e1"}` || string(first.Act) != `{"act":"pay 1999"}` || first.Tool != "pay" || first.Server != "shop" || first.Class != "FINANCIAL" {
		t.Fatalf("Ask = %+v, %v, %v", first, created, err)
	}
	// The same act again, with another envelope: the open request.
	again, created, err := a.Ask(request("pay 1999", "e2"))
	if err != nil || created || again.EnvelopeDigest != first.EnvelopeDigest || !again.EmittedAt.Equal(first.EmittedAt) {
		t.Fatalf("Ask(same act) = %+v, %v, %v; want the first request", again, created, err)
	}
	// Another act: its own request.
	other, created, err := a.Ask(request("pay 1990", "e3"))
	if err != nil || !created || other.EnvelopeDigest == first.EnvelopeDigest {
		t.Fatalf("Ask(other act) = %+v, %v, %v", other, created, err)
	}
	// Refused: an envelope asked before (for another act), a request
	// without its parts, one too large.
	if _, _, err := a.Ask(request("pay 5", "e1")); err == nil {
		t.Fatal("Ask with an envelope asked before succeeded")
	}
	for name, r := range map[string]*ledger.Request{
		"no envelope digest": {Envelope: []byte("x"), ActDigest: hashing.Sum([]byte("x")), Act: []byte("x")},
		"no act":             {EnvelopeDigest: hashing.Sum([]byte("y")), Envelope: []byte("x"), ActDigest: hashing.Sum([]byte("x"))},
		"too large":          {EnvelopeDigest: hashing.Sum([]byte("y")), Envelope: make([]byte, ledger.MaxRequestText), ActDigest: hashing.Sum([]byte("x")), Act: []byte("x")},
		"long name":          {EnvelopeDigest: hashing.Sum([]byte("y")), Envelope: []byte("x"), ActDigest: hashing.Sum([]byte("x")), Act: []byte("x"), Tool: string(make([]byte, ledger.MaxRequestName+1))},
		"nil":                nil,
	} {
		if _, _, err := a.Ask(r); err == nil {
			t.Errorf("Ask(%s) succeeded", name)
		}
	}
	if r, ok, err := a.Request(hashing.Sum([]byte("y"))); ok || err != nil {
		t.Fatalf("a refused Ask stored %+v, %v", r, err)
	}

	// Decide: unknown, bad state, empty decision; then once.
	if _, err := a.Decide(hashing.Sum([]byte("nope")), ledger.RequestGranted, []byte("doc")); !errors.Is(err, ledger.ErrNoRequest) {
		t.Fatalf("Decide(unknown) = %v, want ErrNoRequest", err)
	}
	for _, s := range []ledger.RequestState{0, ledger.RequestPending, ledger.RequestClosed, 9} {
		if _, err := a.Decide(first.EnvelopeDigest, s, []byte("doc")); err == nil {
			t.Fatalf("Decide(%v) succeeded", s)
		}
	}
	if _, err := a.Decide(first.EnvelopeDigest, ledger.RequestGranted, nil); err == nil {
		t.Fatal("Decide with no decision succeeded")
	}
	granted, err := a.Decide(first.EnvelopeDigest, ledger.RequestGranted, []byte("signed grant"))
	if err != nil || granted.State != ledger.RequestGranted || string(granted.Decision) != "signed grant" || granted.DecidedAt.IsZero() {
		t.Fatalf("Decide = %+v, %v", granted, err)
	}
	if _, err := a.Decide(first.EnvelopeDigest, ledger.RequestDenied, []byte("signed deny")); !errors.Is(err, ledger.ErrNotPending) {
		t.Fatalf("a second Decide = %v, want ErrNotPending", err)
	}
	if got, created, err := a.Ask(request("pay 1999", "e4")); err != nil || created || got.State != ledger.RequestGranted || string(got.Decision) != "signed grant" {
		t.Fatalf("Ask after Decide = %+v, %v, %v; want the granted request", got, created, err)
	}
	if _, err := a.Decide(other.EnvelopeDigest, ledger.RequestDenied, []byte("signed deny")); err != nil {
		t.Fatal(err)
	}

	// Finish: once; the act's next Ask opens a new request.
	if ok, err := a.Finish(first.EnvelopeDigest, "authority"); !ok || err != nil {
		t.Fatalf("Finish = %v, %v", ok, err)
	}
	if ok, err := a.Finish(first.EnvelopeDigest, "again"); ok || err != nil {
		t.Fatalf("a second Finish = %v, %v", ok, err)
	}
	if ok, err := a.Finish(hashing.Sum([]byte("nope")), "x"); ok || err != nil {
		t.Fatalf("Finish(unknown) = %v, %v", ok, err)
	}
	closed, ok, err := a.Request(first.EnvelopeDigest)
	if err != nil || !ok || closed.State != ledger.RequestClosed || closed.Closing != "authority" || closed.ClosedAt.IsZero() || string(closed.Decision) != "signed grant" {
		t.Fatalf("Request after Finish = %+v, %v, %v", closed, ok, err)
	}
	if _, err := a.Decide(first.EnvelopeDigest, ledger.RequestGranted, []byte("x")); !errors.Is(err, ledger.ErrNotPending) {
		t.Fatalf("Decide(closed) = %v, want ErrNotPending", err)
	}
	fresh, created, err := a.Ask(request("pay 1999", "e5"))
	if err != nil || !created || fresh.EnvelopeDigest != hashing.Sum([]byte("e5")) || fresh.State != ledger.RequestPending {
		t.Fatalf("Ask after Finish = %+v, %v, %v; want a new request", fresh, created, err)
	}

	rs, err := a.Requests()
	if err != nil || len(rs) != 3 {
		t.Fatalf("Requests = %d, %v; want 3", len(rs), err)
	}
	for i, want := range []hashing.Digest{first.EnvelopeDigest, other.EnvelopeDigest, fresh.EnvelopeDigest} {
		if rs[i].EnvelopeDigest != want {
			t.Errorf("Requests[%d] = %s, want %s (oldest first)", i, rs[i].EnvelopeDigest, want)
		}
	}
	if rs[1].State != ledger.RequestDenied || string(rs[1].Decision) != "signed deny" {
		t.Errorf("Requests[1] = %+v", rs[1])
	}
	// What Requests returns is a copy.
	rs[0].Envelope[0] = 'X'
	if r, _, _ := a.Request(first.EnvelopeDigest); r.Envelope[0] != '{' {
		t.Fatal("Requests returned the store's own memory")
	}

	// Concurrent Asks for one act: one request.
	const n = 8
	var wg sync.WaitGroup
	got := make([]ledger.Request, n)
	made := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			got[i], made[i], errs[i] = a.Ask(request("race", "race-"+strconv.Itoa(i)))
		})
	}
	wg.Wait()
	creators := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("concurrent Ask: %v", errs[i])
		}
		if made[i] {
			creators++
		}
		if got[i].EnvelopeDigest != got[0].EnvelopeDigest {
			t.Fatalf("concurrent Asks for one act got envelopes %s and %s", got[0].EnvelopeDigest, got[i].EnvelopeDigest)
		}
	}
	if creators != 1 {
		t.Fatalf("%d concurrent Asks created a request, want 1", creators)
	}
}
