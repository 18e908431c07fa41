package envelope

// This file enforces the last paragraph of §7.3: an agent discards a
// resolution whose envelope_digest does not name an envelope it emitted and
// has not already resolved. A ledger.Ledger remembers which envelopes were
// emitted and which are resolved, and by which outcome; a Resolver runs
// Verify and consumes the envelope in the ledger in one atomic step, so a
// resolution is acted on at most once (§12.5).

import (
	"context"
	"errors"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// Resolver checks resolutions against the envelopes an agent holds and
// enforces single use through a ledger.Ledger (§7.3, §12.5). It is safe for
// concurrent use if its ledger is.
//
// # Which outcomes consume the envelope
//
// OutcomeAuthority, OutcomeDeclined, OutcomeAnswer and OutcomeQuestion mark
// the envelope resolved: each is the principal's decision on that envelope,
// which the agent now acts on (or stops, or reopens deliberation on), so
// the same envelope must not yield a second decision. Presenting the same
// resolution again, or any other, is then OutcomeDiscarded. The ledger
// records which of the four consumed it, as the ledger.Outcome of the same
// name, and when (Ledger.Lookup).
//
// OutcomeRecord does not. A record arises on the verifier's side, not the
// principal's: no action was given, or the action about to be performed is
// not the one the selected option names. It authorizes nothing, so leaving
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
// error from Resolve, should ask the ledger (Ledger.Lookup):
// ledger.StateResolved with its Outcome and ResolvedAt says the decision
// was consumed, and by what; the host cannot tell from the ledger whether it acted on it, so it
// should check its own record of the action, and if the action was not
// taken, put the question to the principal again in a new envelope (one
// that differs, §12.5). ledger.StateEmitted says nothing was consumed, and
// the resolution can be presented again.
type Resolver struct {
	ledger ledger.Ledger
}

// NewResolver returns a Resolver that records single use in l.
func NewResolver(l ledger.Ledger) *Resolver { return &Resolver{ledger: l} }

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
// OutcomeQuestion. The error is non-nil only when the ledger fails (a
// *ledger.Error: the ledger's own, or one that carries the error of a
// Ledger that returns other errors) or ctx is done; the Result is then the
// zero Result, which authorizes nothing,
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
		return Result{}, ledgerError(err)
	}
	switch e.State {
	case ledger.StateUnknown:
		return newResult(OutcomeDiscarded, "envelope %s was not emitted", d), nil
	case ledger.StateResolved:
		return resolvedResult(d, e), nil
	}
	lo, consumes := v.Outcome.ledgerOutcome()
	if !consumes {
		return v, nil // record or malformed: the envelope stays open
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	ok, err := r.ledger.Resolve(d, lo)
	if err != nil {
		return Result{}, ledgerError(err)
	}
	if !ok {
		if e, err := r.ledger.Lookup(d); err == nil && e.State == ledger.StateResolved {
			return resolvedResult(d, e), nil
		}
		return newResult(OutcomeDiscarded, "envelope %s is already resolved", d), nil
	}
	return v, nil
}

// ledgerError returns err, an error of the Resolver's ledger, as a
// *ledger.Error: the ledgers of this module return nothing else, and the
// error of another Ledger becomes the cause of one.
func ledgerError(err error) error {
	if _, ok := errors.AsType[*ledger.Error](err); ok {
		return err
	}
	return &ledger.Error{Err: err}
}

// resolvedResult is the OutcomeDiscarded for an envelope resolved earlier,
// naming the outcome that consumed it.
func resolvedResult(d hashing.Digest, e ledger.Entry) Result {
	if e.Outcome == 0 || e.ResolvedAt.IsZero() {
		return newResult(OutcomeDiscarded, "envelope %s is already resolved", d)
	}
	return newResult(OutcomeDiscarded, "envelope %s is already resolved (%v at %s)",
		d, e.Outcome, e.ResolvedAt.UTC().Format(time.RFC3339Nano))
}

// ledgerOutcome returns the ledger.Outcome that records o, and whether o
// consumes an envelope at all (see Resolver): OutcomeAuthority,
// OutcomeDeclined, OutcomeAnswer and OutcomeQuestion do, each recorded as
// the ledger outcome of the same name.
func (o Outcome) ledgerOutcome() (ledger.Outcome, bool) {
	switch o {
	case OutcomeAuthority:
		return ledger.OutcomeAuthority, true
	case OutcomeDeclined:
		return ledger.OutcomeDeclined, true
	case OutcomeAnswer:
		return ledger.OutcomeAnswer, true
	case OutcomeQuestion:
		return ledger.OutcomeQuestion, true
	}
	return 0, false
}
