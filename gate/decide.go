package gate

// This file is the principal's side of the approval loop: Decide signs a
// principal's grant or deny of a pending request (SignGrant, SignDeny) and
// records it in the store the gate asks (ledger.Approvals.Decide), where
// the gate finds it when the agent retries the identical call.
//
// It is a function of package gate, not a package of its own, because it
// is the other half of Approvals: the gate's side builds the request
// (NewRequest) and reads the decision back (a signed resolution document
// under the policy's principals), and Decide writes exactly that
// document, with SignGrant and SignDeny, which live here for the same
// reason. A Go host that routes approvals to its own interface shows the
// requests of its store (ledger.Approvals.Requests) and delivers each
// decision with Decide; bbdigest approve grant and deny, and the approval
// page of approve serve, decide with it over the bolt ledger.

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// DecisionStore is what Decide needs of the store of approval requests:
// the requests (ledger.Approvals, whose Decide records the decision) and
// the state of their envelopes in the gate's ledger (Lookup). *ledger.Memory
// and ledger/bolt's *Ledger are both.
type DecisionStore interface {
	ledger.Approvals
	Lookup(d hashing.Digest) (ledger.Entry, error)
}

// DecideKind says why Decide refused a decision.
type DecideKind uint8

// The kinds of *DecideError.
const (
	// DecidedAlready: the request is not pending (granted, denied or
	// closed): a request is decided once.
	DecidedAlready DecideKind = iota + 1
	// EnvelopeSpent: the request's envelope is not emitted in the ledger
	// any more (consumed, or resolved otherwise): a decision on it would
	// authorize nothing.
	EnvelopeSpent
	// NotSigned: the decision could not be signed for the request: the
	// option does not authorize its act, there is no such option, or the
	// request's envelope is not the one its digest names (SignGrant's or
	// SignDeny's error, in Err).
	NotSigned
)

// DecideError is a decision Decide refused for what the request is, not
// for a store that failed: nothing was recorded. Reason says why in a
// sentence that names the request (what bbdigest approve prints after
// "approve grant: "), Hint, when not empty, what to do instead.
type DecideError struct {
	Kind    DecideKind
	Request hashing.Digest // the request's envelope digest
	Reason  string
	Hint    string
	Err     error // the cause: ledger.ErrNotPending, or the signing error; nil otherwise
}

// Error returns "gate: decide: " and Reason.
func (e *DecideError) Error() string { return "gate: decide: " + e.Reason }

// Unwrap returns Err.
func (e *DecideError) Unwrap() error { return e.Err }

// Decide signs the principal's decision on the request r, as read from
// store, with priv at now, and records it in store: a grant of option
// (zero-based, SignGrant; AllowOption for the gate's requests) when grant
// is true, else a deny (SignDeny, option ignored). It returns a
// *DecideError when r is not pending (DecidedAlready), its envelope is no
// longer emitted in store (EnvelopeSpent), or the decision cannot be
// signed for r (NotSigned), and the store's error when store fails; either
// way nothing was recorded. A decision recorded by another principal
// between the caller's read of r and Decide is refused by the store
// (ledger.ErrNotPending), as DecidedAlready.
func Decide(store DecisionStore, r *ledger.Request, grant bool, option int, priv ed25519.PrivateKey, now time.Time) error {
	if r.State != ledger.RequestPending {
		what := r.State.String()
		if r.Closing != "" {
			what += " (" + r.Closing + ")"
		}
		e := &DecideError{Kind: DecidedAlready, Request: r.EnvelopeDigest,
			Reason: fmt.Sprintf("request %s is %s: a request is decided once", r.EnvelopeDigest, what)}
		if r.State == ledger.RequestClosed {
			e.Hint = "the agent's next identical call asks anew, with a new envelope"
		}
		return e
	}
	// Its envelope must be emitted and not yet consumed: a decision on a
	// spent envelope would authorize nothing.
	entry, err := store.Lookup(r.EnvelopeDigest)
	if err != nil {
		return err
	}
	if entry.State != ledger.StateEmitted {
		return &DecideError{Kind: EnvelopeSpent, Request: r.EnvelopeDigest,
			Reason: fmt.Sprintf("the envelope of request %s is %v in the ledger, not emitted: nothing can be decided on it", r.EnvelopeDigest, entry.State)}
	}
	var doc []byte
	state := ledger.RequestDenied
	if grant {
		state = ledger.RequestGranted
		doc, err = SignGrant(r, option, priv, now)
	} else {
		doc, err = SignDeny(r, priv, now)
	}
	if err != nil {
		return &DecideError{Kind: NotSigned, Request: r.EnvelopeDigest, Reason: err.Error(), Err: err}
	}
	if _, err := store.Decide(r.EnvelopeDigest, state, doc); err != nil {
		if errors.Is(err, ledger.ErrNotPending) {
			reason := err.Error()
			if le, ok := errors.AsType[*ledger.Error](err); ok {
				reason = le.Detail()
			}
			return &DecideError{Kind: DecidedAlready, Request: r.EnvelopeDigest, Reason: reason, Err: err}
		}
		return err
	}
	return nil
}
