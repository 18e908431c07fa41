// Package ledgertest checks the contract of ledger.Ledger, for the tests of
// each implementation (ledger.Memory, the bolt ledger).
package ledgertest

import (
	"errors"
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
