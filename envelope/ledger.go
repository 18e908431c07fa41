package envelope

// This file enforces the last paragraph of §7.3: an agent discards a
// resolution whose envelope_digest does not name an envelope it emitted and
// has not already resolved. A Ledger remembers which envelopes were emitted
// and which are resolved, and by which outcome; a Resolver runs Verify and
// consumes the envelope in the Ledger in one atomic step, so a resolution
// is acted on at most once (§12.5).

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
)

// LedgerState is what a Ledger knows about an envelope digest.
type LedgerState uint8

// Ledger states. The values are stored by BoltLedger and never renumbered.
const (
	StateUnknown  LedgerState = 0 // never emitted
	StateEmitted  LedgerState = 1 // emitted, not yet resolved
	StateResolved LedgerState = 2 // resolved: no further resolution is a decision
)

// String returns "unknown", "emitted" or "resolved" ("invalid" otherwise).
func (s LedgerState) String() string {
	switch s {
	case StateUnknown:
		return "unknown"
	case StateEmitted:
		return "emitted"
	case StateResolved:
		return "resolved"
	}
	return "invalid"
}

// Entry is what a Ledger holds for one envelope digest.
type Entry struct {
	State LedgerState
	// Outcome is the outcome that resolved the envelope, one of
	// OutcomeAuthority, OutcomeDeclined, OutcomeAnswer and OutcomeQuestion,
	// when State is StateResolved; zero (no outcome) otherwise.
	Outcome Outcome
	// ResolvedAt is when the ledger recorded the resolution, without a
	// monotonic clock reading; the zero Time unless State is StateResolved.
	ResolvedAt time.Time
}

// ErrAlreadyResolved is returned by Ledger.Emit for a digest that is already
// resolved. Two byte-identical envelopes share a digest (§12.5): an agent
// that asks the same question again must make the new envelope differ, for
// example in its synopsis or findings, or its resolution could not be told
// apart from the first one's.
var ErrAlreadyResolved = errors.New("envelope: envelope already resolved")

// A Ledger records the envelopes an agent has emitted, which of them are
// resolved, and by which outcome. Implementations must be safe for
// concurrent use, and Resolve must be an atomic test-and-set.
type Ledger interface {
	// Emit records that the envelope with digest d was emitted. Emitting
	// an emitted envelope again is a no-op; emitting a resolved one fails
	// with an error wrapping ErrAlreadyResolved and leaves it resolved.
	Emit(d hashing.Digest) error
	// Resolve marks the envelope with digest d resolved by outcome o,
	// which must be one that consumes an envelope: OutcomeAuthority,
	// OutcomeDeclined, OutcomeAnswer or OutcomeQuestion (any other is an
	// error, and changes nothing). It reports true exactly once for an
	// emitted envelope, and false when d is unknown or already resolved; a
	// false result changes nothing. The ledger records o and the time.
	Resolve(d hashing.Digest, o Outcome) (ok bool, err error)
	// Lookup reports what the ledger holds for d: the zero Entry
	// (StateUnknown) if d was never emitted.
	Lookup(d hashing.Digest) (Entry, error)
}

// checkResolveOutcome returns an error unless o consumes an envelope.
func checkResolveOutcome(o Outcome) error {
	if !o.marksResolved() {
		return fmt.Errorf("envelope: ledger: outcome %v does not resolve an envelope", o)
	}
	return nil
}

// MemLedger is a Ledger held in memory, for tests and for hosts whose
// envelopes do not outlive the process. The zero value is not usable; call
// NewMemLedger. It is safe for concurrent use. It has no Close.
type MemLedger struct {
	mu      sync.Mutex
	entries map[hashing.Digest]Entry
}

// NewMemLedger returns an empty MemLedger.
func NewMemLedger() *MemLedger {
	return &MemLedger{entries: make(map[hashing.Digest]Entry)}
}

// Emit implements Ledger.
func (l *MemLedger) Emit(d hashing.Digest) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch l.entries[d].State {
	case StateResolved:
		return fmt.Errorf("%w: %s", ErrAlreadyResolved, d)
	case StateUnknown:
		l.entries[d] = Entry{State: StateEmitted}
	}
	return nil
}

// Resolve implements Ledger.
func (l *MemLedger) Resolve(d hashing.Digest, o Outcome) (bool, error) {
	if err := checkResolveOutcome(o); err != nil {
		return false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.entries[d].State != StateEmitted {
		return false, nil
	}
	l.entries[d] = Entry{State: StateResolved, Outcome: o, ResolvedAt: time.Now().Round(0)}
	return true, nil
}

// Lookup implements Ledger.
func (l *MemLedger) Lookup(d hashing.Digest) (Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.entries[d], nil
}

// Resolver checks resolutions against the envelopes an agent holds and
// enforces single use through a Ledger (§7.3, §12.5). It is safe for
// concurrent use if its Ledger is.
//
// # Which outcomes consume the envelope
//
// OutcomeAuthority, OutcomeDeclined, OutcomeAnswer and OutcomeQuestion mark
// the envelope resolved: each is the principal's decision on that envelope,
// which the agent now acts on (or stops, or reopens deliberation on), so
// the same envelope must not yield a second decision. Presenting the same
// resolution again, or any other, is then OutcomeDiscarded. The ledger
// records which of the four consumed it, and when (Ledger.Lookup).
//
// OutcomeRecord does not. A record arises on the verifier's side, not the
// principal's: no action was given, or the action about to be performed is
// not the one the selected option names. It authorises nothing, so leaving
// the envelope open lets nothing through that single use should stop: the
// ledger still lets exactly one resolution become authority. Consuming it
// would instead let a mistaken or compromised relying party (§12.6) burn the
// principal's genuine selection by presenting the wrong action, and would
// make a dry run without an action destroy the decision it inspected.
//
// OutcomeDiscarded and OutcomeMalformed do not either: neither is a decision
// on the envelope (§7.3: a resolution naming an unknown or resolved envelope
// "is not a decision"), and letting them consume it would let anyone who
// knows a digest cancel the principal's pending binding moment.
//
// # At most once, not exactly once
//
// The envelope is consumed when the ledger commits, before Resolve returns.
// A host that stops between the two (killed, crashed, or given an error by
// a ledger that committed but could not confirm it) has consumed the
// envelope without learning its decision: the decision is lost, never
// applied twice. Presenting the resolution again then gives
// OutcomeDiscarded. A host that restarts after such a stop, or gets an
// error from Resolve, should ask the ledger (Ledger.Lookup): StateResolved
// with its Outcome and ResolvedAt says the decision was consumed, and by
// what; the host cannot tell from the ledger whether it acted on it, so it
// should check its own record of the action, and if the action was not
// taken, put the question to the principal again in a new envelope (one
// that differs, §12.5). StateEmitted says nothing was consumed, and the
// resolution can be presented again.
type Resolver struct {
	ledger Ledger
}

// NewResolver returns a Resolver that records single use in l.
func NewResolver(l Ledger) *Resolver { return &Resolver{ledger: l} }

// Resolve parses the resolution src (ParseResolution), checks it against
// env and action (Verify), and checks and updates the ledger:
//
//   - src that ParseResolution rejects is OutcomeMalformed;
//   - a resolution that does not name env, or names an envelope the ledger
//     does not hold as emitted (never emitted, or already resolved), is
//     OutcomeDiscarded;
//   - an outcome that consumes the envelope (see Resolver) is returned only
//     if this call is the one that marked it resolved; a call that loses
//     that race, or comes after it, gets OutcomeDiscarded.
//
// So among any number of concurrent calls with the same envelope, at most
// one returns OutcomeAuthority, OutcomeDeclined, OutcomeAnswer or
// OutcomeQuestion. The error is non-nil only when the ledger fails or ctx
// is done; the Result is then the zero Result, which authorises nothing,
// and the envelope may or may not have been consumed (see Resolver, "At
// most once").
func (r *Resolver) Resolve(ctx context.Context, env *Envelope, src, action []byte) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res, err := ParseResolution(src)
	if err != nil {
		return newResult(OutcomeMalformed, "%v", err), nil
	}
	v := Verify(env, res, action)
	if v.Outcome == OutcomeDiscarded {
		return v, nil
	}
	d := res.EnvelopeDigest
	e, err := r.ledger.Lookup(d)
	if err != nil {
		return Result{}, fmt.Errorf("envelope: ledger: %w", err)
	}
	switch e.State {
	case StateUnknown:
		return newResult(OutcomeDiscarded, "envelope %s was not emitted", d), nil
	case StateResolved:
		return resolvedResult(d, e), nil
	}
	if !v.Outcome.marksResolved() {
		return v, nil // record or malformed: the envelope stays open
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	ok, err := r.ledger.Resolve(d, v.Outcome)
	if err != nil {
		return Result{}, fmt.Errorf("envelope: ledger: %w", err)
	}
	if !ok {
		if e, err := r.ledger.Lookup(d); err == nil && e.State == StateResolved {
			return resolvedResult(d, e), nil
		}
		return newResult(OutcomeDiscarded, "envelope %s is already resolved", d), nil
	}
	return v, nil
}

// resolvedResult is the OutcomeDiscarded for an envelope resolved earlier,
// naming the outcome that consumed it.
func resolvedResult(d hashing.Digest, e Entry) Result {
	if e.Outcome == 0 || e.ResolvedAt.IsZero() {
		return newResult(OutcomeDiscarded, "envelope %s is already resolved", d)
	}
	return newResult(OutcomeDiscarded, "envelope %s is already resolved (%v at %s)",
		d, e.Outcome, e.ResolvedAt.UTC().Format(time.RFC3339Nano))
}
