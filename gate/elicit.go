package gate

// This file is the elicitation channel: the answer of an MCP client's user,
// asked by a host (package mcpgate) through MCP elicitation to approve or
// deny a pending approval request, decided on by the gate. The answer is
// signed by no one: the gate takes it only through AuthorizeElicited, a Go
// call the host makes after asking, never from a call's bytes.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// Channel is how the decision behind an authority reached the gate, as
// Decision.Channel and the receipt's channel member carry it. What each
// proves about who decided is in the package doc (Channels).
type Channel string

// The channels.
const (
	// ChannelSigned: a resolution signed with the key of a principal of the
	// policy, whose signature verified (a grant or deny of bbdigest
	// approve, the approval page, SignGrant or SignDeny, or a signed
	// resolution the call carried). It proves that the holder of that key
	// decided.
	ChannelSigned Channel = receipt.ChannelSigned
	// ChannelElicitation: the answer of the MCP client's user to the
	// gate's question, asked through MCP elicitation (AuthorizeElicited).
	// It proves only that whoever controls the MCP client's interface
	// answered.
	ChannelElicitation Channel = receipt.ChannelElicitation
)

// ElicitDeclined is the Option of an Elicited answer whose user declined
// the question (elicitation's "decline") rather than choose an option: a
// denial.
const ElicitDeclined = -1

// Elicited is the answer of an MCP client's user to the gate's question
// about one approval request, as a host that asked through elicitation
// hands it to AuthorizeElicited.
type Elicited struct {
	// EnvelopeDigest names the approval request whose envelope the user
	// was shown (Decision.EnvelopeDigest of the approval_pending decision
	// the host asked about).
	EnvelopeDigest hashing.Digest
	// Option is what the user chose: AllowOption, DenyOption, or
	// ElicitDeclined.
	Option int
	// AskedAt is when the host put the question to the user. An answer is
	// authority only within the policy's MaxAuthorityAge of it.
	AskedAt time.Time
}

// ElicitedDecisionVersion is the "@version" of the decision the gate
// records in its Approvals for an elicited answer (the Decision of the
// request, written by DecisionRecorder.Decide):
//
//	{"@version":"bbdigest-elicited-decision/v1","act_digest":"sha256:...",
//	 "answered_at_ms":N,"channel":"elicitation","envelope_digest":"sha256:...",
//	 "option_idx":N}
//
// in its JCS form, option_idx -1 for a decline. It is a record, signed by
// no one: read back from the store it is never authority (a grant so
// recorded that the gate did not consume in the call it answered is
// refused, not_authority), and a denial so recorded is honoured.
const ElicitedDecisionVersion = "bbdigest-elicited-decision/v1"

// elicitedPrefix starts every elicited decision.
var elicitedPrefix = []byte(`{"@version":"` + ElicitedDecisionVersion + `",`)

// elicitedDecision returns the record of the elicited answer option to r,
// given at t.
func elicitedDecision(r *ledger.Request, option int, t time.Time) []byte {
	b := append([]byte(nil), elicitedPrefix...)
	b = append(b, `"act_digest":"`...)
	b = r.ActDigest.AppendTo(b)
	b = append(b, `","answered_at_ms":`...)
	b = strconv.AppendInt(b, t.UnixMilli(), 10)
	b = append(b, `,"channel":"`+ChannelElicitation+`","envelope_digest":"`...)
	b = r.EnvelopeDigest.AppendTo(b)
	b = append(b, `","option_idx":`...)
	b = strconv.AppendInt(b, int64(option), 10)
	return append(b, '}')
}

// DecisionRecorder is an Approvals store that records a decision on a
// pending request: ledger.Approvals' Decide, which *ledger.Memory and
// ledger/bolt's Ledger implement. A gate takes elicited answers only with
// Approvals that implement it, so that every answer it decides on is
// recorded beside the request, as a principal's is.
type DecisionRecorder interface {
	Decide(d hashing.Digest, state ledger.RequestState, decision []byte) (ledger.Request, error)
}

// Elicits reports whether the gate takes an elicited answer as authority
// for a tool of class c that its policy names: it has Approvals that
// record decisions (DecisionRecorder), and its policy lists c in
// Elicitation (by default READ_ONLY and ORDINARY). A host asks the MCP
// client's user only when it does (package mcpgate).
func (g *Gate) Elicits(c Class) bool {
	if _, ok := g.approvals.(DecisionRecorder); !ok {
		return false
	}
	return c != Unconfigured && g.policy.elicits(c)
}

// AuthorizeElicited decides call on e, the answer the MCP client's user
// gave when the host asked about the call's approval request through
// elicitation, commits the decision's receipt (its channel "elicitation"),
// and returns the decision. Only a host that asked calls it: the answer is
// a Go value, never read from a call's bytes, so a call cannot claim one
// (call's Authority, AuthorityJSON and AuthorityErr are not read).
//
// A tool below the threshold is allowed on policy, as by Authorize. For
// the rest, the gate asks its Approvals for the act's open request, as
// Authorize does, and:
//
//   - if that request is not e's envelope, the answer is to a question no
//     longer asked: denied, ReasonConsumed;
//   - if a principal has decided it already, decides on the principal's
//     signed decision, as Authorize would (channel "signed");
//   - if the user chose Deny or declined: records the denial in the
//     Approvals, resolves the envelope in the ledger (declined) and closes
//     the request: denied, ReasonApprovalDenied. A denial is honoured for
//     any class: it can only stop a call;
//   - if the user chose Allow, and the policy does not count an elicited
//     answer as authority for the tool's class (Policy.Elicitation), or
//     the policy does not name the tool: denied,
//     ReasonElicitationNotAuthority, and the request stays pending for a
//     principal's signed grant;
//   - if the user chose Allow at or after MaxAuthorityAge from AskedAt (or
//     AskedAt is zero): denied, ReasonExpired, the request pending;
//   - otherwise records the grant in the Approvals, consumes the envelope
//     in the ledger by selecting its Allow option, exactly as a
//     principal's grant is consumed, and closes the request: allowed once,
//     ReasonAuthority. A second answer, or the identical call again, finds
//     the envelope consumed and the request closed.
//
// A gate without Approvals that record decisions denies,
// ReasonApprovalError.
func (g *Gate) AuthorizeElicited(ctx context.Context, call Call, e Elicited) Decision {
	d := Decision{Class: Unconfigured}
	g.decideElicited(ctx, &call, e, &d)
	g.commit(ctx, &d)
	return d
}

// decideElicited fills d's decision on the elicited answer e, without its
// receipt.
func (g *Gate) decideElicited(ctx context.Context, call *Call, e Elicited, d *Decision) {
	call.Authority, call.AuthorityJSON, call.AuthorityErr = nil, nil, nil
	a, configured, done := g.readAct(ctx, call, d)
	if done {
		return
	}
	rec, ok := g.approvals.(DecisionRecorder)
	if !ok {
		d.deny(ReasonApprovalError, nil, "the gate has no Approvals that record decisions, so it asks no one through elicitation, and an elicited answer is no answer to it")
		return
	}
	open, env, created, ok := g.ask(ctx, a, d)
	if !ok {
		return
	}
	switch {
	case open.EnvelopeDigest != e.EnvelopeDigest:
		d.Channel = ChannelElicitation
		d.deny(ReasonConsumed, nil, "the MCP client's user answered envelope %s, and the open approval request of act %s is envelope %s: the answer is to a question no longer asked",
			e.EnvelopeDigest, a.Digest, open.EnvelopeDigest)
		return
	case open.State != ledger.RequestPending:
		// A principal decided first: the signed decision is the one.
		g.onRequest(ctx, a, env, &open, created, d)
		return
	}
	d.Channel = ChannelElicitation
	now := g.now()
	switch e.Option {
	case DenyOption, ElicitDeclined:
		if !g.record(ctx, rec, a, &open, ledger.RequestDenied, e.Option, now, d) {
			return
		}
		what := `chose "Deny"`
		if e.Option == ElicitDeclined {
			what = "declined the question"
		}
		g.elicitedDenied(ctx, &open, what, d)
		return
	case AllowOption:
	default:
		d.deny(ReasonNotAuthority, nil, "the MCP client's user answered option %d of envelope %s, which has options %d (allow) and %d (deny)", e.Option, open.EnvelopeDigest, AllowOption, DenyOption)
		return
	}
	if !configured || !g.policy.elicits(d.Class) {
		d.deny(ReasonElicitationNotAuthority, nil, "the MCP client's user allowed this call through elicitation, and policy %q does not count an elicited answer as authority for %v tools (its elicitation member; by default only %v and %v): it proves only that whoever controls the MCP client's interface answered; envelope %s stays pending for a principal's signed grant",
			g.policy.Version, d.Class, ReadOnly, Ordinary, open.EnvelopeDigest)
		return
	}
	switch {
	case e.AskedAt.IsZero():
		d.deny(ReasonExpired, nil, "the elicited answer carries no time of asking, so its age cannot be bounded")
		return
	case !now.Before(e.AskedAt.Add(g.maxAge)):
		d.deny(ReasonExpired, nil, "the MCP client's user was asked at %s, %v (max_authority_age of policy %q) or more before the answer was decided on",
			e.AskedAt.UTC().Format(time.RFC3339Nano), g.maxAge, g.policy.Version)
		return
	}
	if !g.record(ctx, rec, a, &open, ledger.RequestGranted, AllowOption, now, d) {
		return
	}
	// The envelope is consumed as a principal's grant is: the Resolver
	// checks that the Allow option's action_digest is this act's, and
	// resolves the envelope in the ledger in the same step.
	sel := fmt.Appendf(nil, `{"envelope_digest":"%s","option_idx":%d,"resolution":"option"}`, open.EnvelopeDigest, AllowOption)
	res, err := g.resolver.Resolve(ctx, env, sel, a.Canonical)
	if err != nil {
		g.ledgerDeny(ctx, err, d)
		return
	}
	d.Outcome = res.Outcome
	switch res.Outcome {
	case envelope.OutcomeAuthority:
		d.allow(ReasonAuthority, "the MCP client's user chose %q in the elicitation of envelope %s (channel elicitation: whoever controls the client's interface answered; no principal signed); it selects this act, consumed now",
			"Allow this call once", open.EnvelopeDigest)
	case envelope.OutcomeRecord:
		d.deny(ReasonNotActBound, nil, "%s", res.Reason)
	case envelope.OutcomeDiscarded:
		d.deny(ReasonConsumed, nil, "%s", res.Reason)
	default:
		d.deny(ReasonNotAuthority, nil, "the resolution is %v: %s", res.Outcome, res.Reason)
	}
	g.finish(&open, d)
}

// record records the elicited answer option to the pending request r in
// the Approvals, as state. A principal who decided r in the meantime wins:
// the act is decided on that decision instead (d's channel "signed"), and
// record returns false, as it does when it denies d on the store's error.
func (g *Gate) record(ctx context.Context, rec DecisionRecorder, a *act.Act, r *ledger.Request, state ledger.RequestState, option int, now time.Time, d *Decision) bool {
	rr, err := rec.Decide(r.EnvelopeDigest, state, elicitedDecision(r, option, now))
	switch {
	case errors.Is(err, ledger.ErrNotPending):
		d.Channel = ""
		g.approve(ctx, a, d)
		return false
	case err != nil:
		d.deny(ReasonApprovalError, err, "the approvals store could not record the MCP client user's answer: %v", err)
		return false
	}
	*r = rr
	d.Approval = r
	return true
}

// elicitedDenied denies the call whose open request r holds the elicited
// denial: it resolves r's envelope in the ledger (declined), so that
// nothing presented later is authority under it, and closes r. what says
// what the user did.
func (g *Gate) elicitedDenied(ctx context.Context, r *ledger.Request, what string, d *Decision) {
	defer g.finish(r, d)
	d.Channel = ChannelElicitation
	if _, err := g.ledger.Resolve(r.EnvelopeDigest, ledger.OutcomeDeclined); err != nil {
		g.ledgerDeny(ctx, err, d)
		return
	}
	d.Outcome = envelope.OutcomeDeclined
	d.deny(ReasonApprovalDenied, nil, "the MCP client's user %s in the elicitation of envelope %s (channel elicitation: whoever controls the client's interface answered); the envelope is spent",
		what, r.EnvelopeDigest)
}

// isElicited reports whether a decision recorded in the Approvals is an
// elicited answer (ElicitedDecisionVersion) rather than a principal's
// signed resolution document.
func isElicited(decision []byte) bool { return bytes.HasPrefix(decision, elicitedPrefix) }
