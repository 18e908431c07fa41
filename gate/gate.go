package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// Reason is the stable code of a decision, as the receipt's reason member
// carries it. Allow has two reasons, ReasonPolicy and ReasonAuthority; every
// other reason is a deny.
type Reason string

// The reasons of a decision.
const (
	// ReasonPolicy: allowed without authority, because the tool's class is
	// below the policy's threshold.
	ReasonPolicy Reason = "policy"
	// ReasonAuthority: allowed on a verified, current, act-bound authority,
	// which this decision consumed.
	ReasonAuthority Reason = "authority"

	// ReasonMalformedCall: the call is not a tool call, or fails the strict
	// gate (a duplicate name, a number the profile refuses, invalid JSON).
	ReasonMalformedCall Reason = "malformed_call"
	// ReasonUnconfiguredTool: the policy does not name the tool, and the
	// call carries no authority.
	ReasonUnconfiguredTool Reason = "unconfigured_tool"
	// ReasonNoAuthority: the tool's class needs authority, and the call
	// carries none (or an incomplete one).
	ReasonNoAuthority Reason = "no_authority"
	// ReasonExpired: the authority's expiry has passed, or it has none;
	// or, under a policy with principals, the policy's MaxAuthorityAge
	// from the envelope's emission (as the ledger recorded it) has passed,
	// the ledger holds no emission time for it, or the principal signed
	// before the ledger recorded the emission (more than ClockSkew before).
	ReasonExpired Reason = "expired"
	// ReasonNotActBound: the resolution selects an option whose
	// action_digest is not this call's act digest (a record, §7.3).
	ReasonNotActBound Reason = "not_act_bound"
	// ReasonConsumed: the resolution names an envelope that the ledger does
	// not hold as pending: already resolved (consumed), never emitted, or a
	// different envelope from the one presented (a signed resolution of
	// another envelope among them).
	ReasonConsumed Reason = "consumed"
	// ReasonNotAuthority: the resolution is not a selection of an option
	// (a decline, an answer, a question) or is malformed.
	ReasonNotAuthority Reason = "not_authority"
	// ReasonUnsigned: the policy names principals, and the authority's
	// resolution is not a signed resolution document (an unsigned
	// resolution of §7.3, say): anyone who has seen the envelope could
	// have written it.
	ReasonUnsigned Reason = "unsigned"
	// ReasonUnknownPrincipal: the resolution is signed with a key that the
	// policy does not name among its principals.
	ReasonUnknownPrincipal Reason = "unknown_principal"
	// ReasonBadSignature: the resolution is a signed resolution document
	// that is malformed (ParseSignedResolution refuses it), or whose
	// signature does not verify under the principal's key.
	ReasonBadSignature Reason = "bad_signature"
	// ReasonLedgerError: the ledger failed, so single use cannot be proved.
	ReasonLedgerError Reason = "ledger_error"
	// ReasonCanceled: the context ended before the decision, or before an
	// allow was receipted (an authority it consumed stays consumed). Ended
	// before the decision, the detail is the context's cause
	// (context.Cause), so that a host whose deadline passed says why in the
	// receipt: bbdigest gate's --timeout, "the call on stdin did not end
	// within --timeout 5s" (TestFailClosed/canceled_with_a_cause).
	ReasonCanceled Reason = "canceled"
	// ReasonApprovalPending: the call needs authority and carries none,
	// and the gate has asked a principal for it (Config.Approvals): the
	// Decision's EnvelopeDigest and Approval name the request. Retry the
	// identical call once the principal has decided.
	ReasonApprovalPending Reason = "approval_pending"
	// ReasonApprovalDenied: a principal of the policy denied this act: the
	// Approvals hold the principal's signed selection of the request's
	// Deny option, which this decision spent.
	ReasonApprovalDenied Reason = "approval_denied"
	// ReasonElicitationNotAuthority: the MCP client's user allowed the
	// call through elicitation (Gate.AuthorizeElicited), and the policy
	// does not count an elicited answer as authority for the tool's class
	// (Policy.Elicitation; by default only READ_ONLY and ORDINARY) or does
	// not name the tool. The approval request stays pending for a
	// principal's signed grant.
	ReasonElicitationNotAuthority Reason = "elicitation_not_authority"
	// ReasonApprovalError: the Approvals store failed, or returned a
	// request that is not one for this act, so the call is denied.
	ReasonApprovalError Reason = "approval_error"
	// ReasonReceiptError: the decision's receipt could not be made durable.
	// It never appears in a receipt, since none could be written.
	ReasonReceiptError Reason = "receipt_error"
)

// Receipts makes decisions durable. *receipt.Log implements it: Append
// returns only once the receipt is on disk (fsync), and an error otherwise.
type Receipts interface {
	Append(ctx context.Context, p receipt.Payload) (receipt.Receipt, error)
}

// Config is what New needs. Policy, Ledger and Receipts are required.
type Config struct {
	// Policy classes the tools. New copies it: later changes to it do not
	// reach the Gate.
	Policy *Policy
	// Ledger is the single-use ledger that records the envelopes the host
	// emitted and consumes them (ledger/bolt on disk, ledger.Memory in
	// tests and short-lived hosts).
	Ledger ledger.Ledger
	// Receipts receives one receipt per decision.
	Receipts Receipts
	// Approvals, when set, is where the gate asks a principal to approve a
	// call that needs authority and carries none, and finds the
	// principal's decision when the call is retried (see Approvals). It
	// needs a policy with Principals: New refuses it otherwise.
	// *ledger.Memory and ledger/bolt's Ledger implement it, beside the
	// envelopes of the same ledger.
	Approvals Approvals
	// Now returns the time that authority expiry is checked against and
	// receipts carry; nil means time.Now. Under a policy with principals
	// an authority's age is Now minus the emission time the ledger
	// recorded, on the ledger's clock (time.Now): Now must keep that
	// clock's time.
	Now func() time.Time
}

// ClockSkew is how far before the ledger recorded an envelope's emission a
// principal's signing time (signed_at_ms, by the principal's clock) may lie
// and still be accepted, for clocks that disagree a little. A signature
// older than that was not made for this emission of the envelope (it
// predates it: a ledger that was reset and the envelope emitted again, say),
// and is refused.
const ClockSkew = time.Minute

// Gate decides tool calls. It is safe for concurrent use.
type Gate struct {
	policy     Policy
	threshold  Class
	principals map[string]Principal // by key id; nil without principals
	maxAge     time.Duration        // with principals
	ledger     ledger.Ledger
	resolver   *envelope.Resolver
	receipts   Receipts
	approvals  Approvals // nil: a call without authority is denied, and no one is asked
	now        func() time.Time
	parsers    sync.Pool // *act.Parser with Server set
}

// ConfigError reports a Config that New refuses because it lacks a part:
// Field names the Config field ("Ledger", "Receipts", "Approvals"). A policy that New
// refuses is a *PolicyError instead.
type ConfigError struct {
	Field  string
	Reason string
}

// Error returns "gate: REASON", such as "gate: no ledger".
func (e *ConfigError) Error() string { return "gate: " + e.Reason }

// New returns a Gate for c, or an error if c lacks a part (a *ConfigError)
// or its policy is not valid (the *PolicyError of Policy.Validate).
func New(c Config) (*Gate, error) {
	if err := c.Policy.Validate(); err != nil {
		return nil, err
	}
	if c.Ledger == nil {
		return nil, &ConfigError{Field: "Ledger", Reason: "no ledger"}
	}
	if c.Receipts == nil {
		return nil, &ConfigError{Field: "Receipts", Reason: "no receipts log: every decision needs its receipt"}
	}
	if c.Approvals != nil && len(c.Policy.Principals) == 0 {
		return nil, &ConfigError{Field: "Approvals", Reason: "approvals need a policy that names its principals: an unsigned approval is a bearer token that whoever writes the store can forge"}
	}
	g := &Gate{
		approvals: c.Approvals,
		policy:    c.Policy.clone(),
		threshold: c.Policy.threshold(),
		ledger:    c.Ledger,
		resolver:  envelope.NewResolver(c.Ledger),
		receipts:  c.Receipts,
		now:       c.Now,
	}
	if len(g.policy.Principals) > 0 {
		g.principals = make(map[string]Principal, len(g.policy.Principals))
		for _, p := range g.policy.Principals {
			g.principals[p.KeyID()] = p
		}
		g.maxAge = g.policy.maxAuthorityAge()
	}
	if g.now == nil {
		g.now = time.Now
	}
	server, profileOf := g.policy.Server, g.policy.NumberProfile
	g.parsers.New = func() any { return &act.Parser{Server: server, ProfileOf: profileOf} }
	return g, nil
}

// Policy returns a copy of the gate's policy.
func (g *Gate) Policy() Policy { return g.policy.clone() }

// Authenticated reports whether the gate authenticates authority: true when
// its policy names principals, so that only a resolution signed by one of
// them, within the policy's MaxAuthorityAge of the envelope's emission, is
// authority. When false, an authority is a bearer token: anything that can
// present one (write params._meta, say) and has seen the envelope can
// approve a call. Hosts should log it at start.
func (g *Gate) Authenticated() bool { return g.principals != nil }

// Call is a tool call presented to the gate, in one of three forms (the
// first that is set is used): an act already read (Act); the call as the
// model emitted it, in one of the shapes package act reads (Src); or the
// call already split into its tool name and raw arguments (Tool and
// Arguments, as an MCP server receives them). With it comes the authority
// the host holds for it, if any, as a Go value or in its JSON form.
type Call struct {
	// Act, if not nil, is the act itself. Its Server must be the policy's,
	// and its Profile the one the policy gives its tool
	// (Policy.NumberProfile: a host reads it with an act.Parser whose
	// ProfileOf is that method); otherwise the call is denied as
	// malformed.
	Act *act.Act
	// Src is the tool call (an Anthropic tool_use block, an OpenAI
	// tool_calls entry or Responses function_call item, an MCP tools/call
	// request or its params). It is read, never kept.
	Src []byte
	// Shape is Src's shape; act.ShapeAuto recognises any.
	Shape act.Shape
	// Tool and Arguments are the call split: the tool's name and its
	// arguments as the JSON text received (nil for none, which is {}).
	// They are used when Act and Src are both nil.
	Tool      string
	Arguments []byte

	// Authority is the principal's resolution that authorizes the act, or
	// nil.
	Authority *Authority
	// AuthorityJSON, when Authority is nil, is the authority in the JSON
	// form ParseAuthority reads (as an MCP call carries it in _meta under
	// MetaKey), or nil. An authority that does not parse is denied as
	// ReasonNoAuthority.
	AuthorityJSON []byte
	// AuthorityErr, if not nil, says the host could not produce the
	// authority it meant to present (a failed lookup, say): the call is
	// denied as ReasonNoAuthority, with this error, when its class needs
	// authority.
	AuthorityErr error
}

// Decision is the gate's answer to one call. Only Allow true lets the host
// invoke the tool; every other field explains.
type Decision struct {
	// Allow is true only when the call may be invoked: allowed by policy or
	// by authority, AND its receipt is durable.
	Allow bool
	// Reason is the decision's stable code.
	Reason Reason
	// Detail says, for a person, why.
	Detail string
	// Class is the tool's consequence class (Unconfigured when the policy
	// does not name the tool, or the call could not be read).
	Class Class
	// Act is the act read from the call; nil when it could not be read.
	Act *act.Act
	// EnvelopeDigest names the envelope of the authority presented, if any.
	EnvelopeDigest hashing.Digest
	// Outcome is the resolution's outcome when an authority was checked
	// against the ledger, else zero.
	Outcome envelope.Outcome
	// PrincipalKeyID is the key id of the principal whose signature on the
	// resolution verified (a gate whose policy names principals), and
	// PrincipalName the principal's name in the policy; both "" otherwise.
	PrincipalKeyID, PrincipalName string
	// Channel is how the decision the gate decided on reached it:
	// ChannelSigned when a principal's signature verified (then
	// PrincipalKeyID names the key), ChannelElicitation for the answer of
	// an MCP client's user (AuthorizeElicited), "" otherwise. The receipt
	// records it (its member channel).
	Channel Channel
	// Approval is the approval request this decision asked or answered
	// (reasons approval_pending and approval_denied, and a decision on a
	// principal's grant), as the Approvals returned it; nil otherwise.
	Approval *ledger.Request
	// Receipt is the decision's durable receipt; nil when none could be
	// written (and then Allow is false).
	Receipt *receipt.Receipt
	// Err is the underlying error of a deny that came from one: the act's
	// *act.Error, the ledger's, the receipt log's.
	Err error
}

// Message is a one-line account of d for the model or an operator:
// "allow (authority): ...; receipt sha256:..." or "deny (no_authority): ...".
func (d *Decision) Message() string {
	verb := "deny"
	if d.Allow {
		verb = "allow"
	}
	m := fmt.Sprintf("%s (%s): %s", verb, d.Reason, d.Detail)
	if d.Receipt != nil {
		m += fmt.Sprintf("; receipt %d %s", d.Receipt.Seq, d.Receipt.Digest)
	}
	return m
}

// Authorize decides call, commits the decision's receipt, and returns the
// decision. It is fail-closed: Allow is true only when
//
//   - the call reads as a tool call (package act) under the number profile
//     the policy gives its tool (Policy.NumberProfiles: strict unless the
//     tool is below the threshold), and
//   - the tool's class is below the policy's threshold (ReasonPolicy), or the
//     call carries an Authority that is current (its Expires is set and in
//     the future) and whose resolution, checked by envelope.Resolver against
//     the presented envelope and this call's act, is OutcomeAuthority: the
//     selected option's action_digest is this act's digest, and this call is
//     the one that consumed the envelope in the ledger (ReasonAuthority);
//     under a policy with principals, that resolution must moreover be a
//     signed resolution document that verifies under a principal's key,
//     names this envelope and this act, and is younger than the policy's
//     MaxAuthorityAge counted from the ledger's emission time (see the
//     package documentation, Authority), and
//   - the receipt of that decision is durable.
//
// Every other path denies: an unreadable call, an unconfigured tool without
// authority, no authority, an expired one, an unsigned one or one signed by
// no principal or with a bad signature (under principals), a resolution
// bound to another act,
// an envelope already consumed or never emitted, a resolution that selects no
// option, a ledger error, a canceled ctx. Each deny is receipted too, where
// the log can take it; a decision whose receipt cannot be written is a deny
// (ReasonReceiptError) with no receipt, whatever it would have been. An
// authority consumed by a decision that then fails to be receipted stays
// consumed (single use is at most once; see package ledger); so does one
// consumed for a caller whose ctx ends before the allow is receipted, and
// that deny (ReasonCanceled) is receipted like the others.
//
// Below the threshold an authority, if present, is neither checked nor
// consumed: policy alone allows the call.
func (g *Gate) Authorize(ctx context.Context, call Call) Decision {
	d := Decision{Class: Unconfigured}
	g.decide(ctx, &call, &d)
	g.commit(ctx, &d)
	return d
}

// decide fills d's decision, without its receipt.
func (g *Gate) decide(ctx context.Context, call *Call, d *Decision) {
	a, configured, done := g.readAct(ctx, call, d)
	if done {
		return
	}
	class := d.Class
	auth := call.Authority
	if call.AuthorityErr != nil {
		d.deny(ReasonNoAuthority, call.AuthorityErr, "the authority could not be had: %v", call.AuthorityErr)
		return
	}
	if auth == nil && call.AuthorityJSON != nil {
		var err error
		if auth, err = ParseAuthority(call.AuthorityJSON); err != nil {
			d.deny(ReasonNoAuthority, err, "%v", err)
			return
		}
	}
	if auth == nil && g.approvals != nil {
		g.approve(ctx, a, d)
		return
	}
	if auth == nil {
		if !configured {
			d.deny(ReasonUnconfiguredTool, nil, "tool %q is not in policy %q, and the call carries no authority", a.Tool, g.policy.Version)
		} else {
			d.deny(ReasonNoAuthority, nil, "tool %q is %v (threshold %v), and the call carries no authority", a.Tool, class, g.threshold)
		}
		return
	}
	g.withAuthority(ctx, a, auth, d)
}

// readAct reads call's act into d (its Act and Class) and reports whether
// the policy names its tool. It returns done true when d is decided
// already: denied (a canceled ctx, a malformed call), or allowed on policy
// (a configured tool below the threshold).
func (g *Gate) readAct(ctx context.Context, call *Call, d *Decision) (a *act.Act, configured, done bool) {
	if err := ctx.Err(); err != nil {
		d.deny(ReasonCanceled, err, "%v", context.Cause(ctx))
		return nil, false, true
	}
	a = call.Act
	switch {
	case a != nil:
	case call.Src != nil:
		p := g.parsers.Get().(*act.Parser)
		var err error
		a, err = p.Parse(call.Src, call.Shape)
		g.parsers.Put(p)
		if err != nil {
			d.deny(ReasonMalformedCall, err, "%v", err)
			return nil, false, true
		}
	default:
		p := g.parsers.Get().(*act.Parser)
		var err error
		a, err = p.New(call.Tool, call.Arguments)
		g.parsers.Put(p)
		if err != nil {
			d.deny(ReasonMalformedCall, err, "%v", err)
			return nil, false, true
		}
	}
	if a.Server != g.policy.Server {
		d.deny(ReasonMalformedCall, nil, "the act binds server %q, and this gate serves %q", a.Server, g.policy.Server)
		return nil, false, true
	}
	if want := g.policy.NumberProfile(a.Tool); a.Profile != want {
		d.deny(ReasonMalformedCall, nil, "the act was read under the %v profile, and policy %q reads tool %q under %v", a.Profile, g.policy.Version, a.Tool, want)
		return nil, false, true
	}
	d.Act = a
	class, configured := g.policy.class(a.Tool)
	d.Class = class
	if configured && class < g.threshold {
		// The commonest decision, so built without fmt: the same text as
		// "tool %q is %v, below the threshold %v".
		d.Allow, d.Reason = true, ReasonPolicy
		d.Detail = cutDetail("tool " + strconv.Quote(a.Tool) + " is " + class.String() + ", below the threshold " + g.threshold.String())
		return a, true, true
	}
	return a, configured, false
}

// withAuthority decides the act a on the authority auth: the path of an
// authority the call carries, and of a principal's grant that the gate's
// Approvals hold.
func (g *Gate) withAuthority(ctx context.Context, a *act.Act, auth *Authority, d *Decision) {
	if auth.Envelope == nil || len(auth.Resolution) == 0 {
		d.deny(ReasonNoAuthority, nil, "the authority lacks its envelope or its resolution")
		return
	}
	d.EnvelopeDigest = auth.Envelope.Digest()
	now := g.now()
	switch {
	case auth.Expires.IsZero():
		d.deny(ReasonExpired, nil, "the authority carries no expiry")
		return
	case !now.Before(auth.Expires):
		d.deny(ReasonExpired, nil, "the authority expired at %s", auth.Expires.UTC().Format(time.RFC3339Nano))
		return
	}
	resolution := auth.Resolution
	signed, ok := g.checkSigned(a, auth, d)
	if !ok {
		return
	}
	if signed != nil {
		resolution = signed.inner
		if g.Authenticated() && !g.current(ctx, now, signed, d) {
			return
		}
	}
	res, err := g.resolver.Resolve(ctx, auth.Envelope, resolution, a.Canonical)
	if err != nil {
		if ctx.Err() != nil {
			d.deny(ReasonCanceled, err, "%v", err)
		} else {
			d.deny(ReasonLedgerError, err, "%v", err)
		}
		return
	}
	d.Outcome = res.Outcome
	switch res.Outcome {
	case envelope.OutcomeAuthority:
		if d.PrincipalKeyID != "" {
			d.allow(ReasonAuthority, "principal %s signed the resolution of envelope %s at %s; it selects this act, consumed now",
				principalLabel(d.PrincipalKeyID, d.PrincipalName), d.EnvelopeDigest, signed.SignedAt.Format(time.RFC3339Nano))
		} else {
			d.allow(ReasonAuthority, "resolution of envelope %s selects this act, consumed now", d.EnvelopeDigest)
		}
	case envelope.OutcomeRecord:
		d.deny(ReasonNotActBound, nil, "%s", res.Reason)
	case envelope.OutcomeDiscarded:
		d.deny(ReasonConsumed, nil, "%s", res.Reason)
	default:
		d.deny(ReasonNotAuthority, nil, "the resolution is %v: %s", res.Outcome, res.Reason)
	}
}

// principalLabel names a principal in a Detail: the key id first, so that
// no cut of the Detail loses it, then the name, if any.
func principalLabel(keyID, name string) string {
	if name == "" {
		return keyID
	}
	return fmt.Sprintf("%s (%q)", keyID, name)
}

// checkSigned reads auth's resolution as a signed resolution document when
// it is one, and checks what a signature must prove: under a policy with
// principals, that one of them signed it (else it denies d and returns
// false), and, with or without principals, that it names the envelope
// presented and the act of this call, which must be the selected option's.
// It returns the document, or nil for a resolution that is not signed
// (which only a gate without principals accepts).
func (g *Gate) checkSigned(a *act.Act, auth *Authority, d *Decision) (*SignedResolution, bool) {
	var signed *SignedResolution
	// A signed document has a member "@version". A resolution without the
	// text "@version" in quotes has none written plainly; one that spells
	// it with escapes is read as a §7.3 resolution, which it is not
	// (ParseResolution refuses the unknown member): the bytes check only
	// spares a plain resolution a second canonicalization. Under a policy
	// with principals anything but a signed document is unsigned.
	if looksSigned := bytes.Contains(auth.Resolution, []byte(`"@version"`)); looksSigned || g.Authenticated() {
		s, err := ParseSignedResolution(auth.Resolution)
		switch {
		case err == nil:
			signed = s
		case looksSigned && !errors.Is(err, ErrUnsigned):
			d.deny(ReasonBadSignature, err, "%v", err)
			return nil, false
		}
	}
	if g.Authenticated() {
		if signed == nil {
			d.deny(ReasonUnsigned, nil, "policy %q names the principals who may authorize, and the resolution is not signed by one (not a %s document): an unsigned resolution is not authority",
				g.policy.Version, SignedResolutionVersion)
			return nil, false
		}
		p, ok := g.principals[signed.KeyID]
		if !ok {
			d.deny(ReasonUnknownPrincipal, nil, "the resolution is signed by key %s, which is not a principal of policy %q", signed.KeyID, g.policy.Version)
			return nil, false
		}
		if err := signed.Verify(p.PublicKey); err != nil {
			d.deny(ReasonBadSignature, err, "the signature of principal %s does not verify: %v", principalLabel(signed.KeyID, p.Name), err)
			return nil, false
		}
		d.PrincipalKeyID, d.PrincipalName, d.Channel = signed.KeyID, p.Name, ChannelSigned
	}
	if signed == nil {
		return nil, true
	}
	if signed.EnvelopeDigest != d.EnvelopeDigest {
		d.deny(ReasonConsumed, nil, "the signed resolution names envelope %s, and the authority presents envelope %s", signed.EnvelopeDigest, d.EnvelopeDigest)
		return nil, false
	}
	if signed.ActDigest != a.Digest {
		d.deny(ReasonNotActBound, nil, "the resolution is signed for act %s, and this call's act is %s", signed.ActDigest, a.Digest)
		return nil, false
	}
	if opt, ok := auth.Envelope.Option(signed.Resolution.OptionIdx); ok && opt.ActionDigest != signed.ActDigest {
		d.deny(ReasonNotActBound, nil, "the resolution is signed for act %s, and option %d of the envelope authorizes %s", signed.ActDigest, signed.Resolution.OptionIdx, opt.ActionDigest)
		return nil, false
	}
	return signed, true
}

// current reports whether the principal's signed resolution is still
// authority at now: the ledger holds its envelope as emitted, with an
// emission time, less than the policy's MaxAuthorityAge ago, and the
// principal signed it no earlier than ClockSkew before that emission. If
// not, it denies d (a ledger error as ReasonLedgerError) and returns false.
// An envelope the ledger does not hold as emitted is left to the Resolver,
// which discards its resolution.
func (g *Gate) current(ctx context.Context, now time.Time, signed *SignedResolution, d *Decision) bool {
	e, err := g.ledger.Lookup(d.EnvelopeDigest)
	if err != nil {
		if ctx.Err() != nil {
			d.deny(ReasonCanceled, err, "%v", err)
		} else {
			d.deny(ReasonLedgerError, err, "%v", err)
		}
		return false
	}
	if e.State != ledger.StateEmitted {
		return true
	}
	if e.EmittedAt.IsZero() {
		d.deny(ReasonExpired, nil, "the ledger holds no emission time for envelope %s (recorded by an earlier bbdigest), so the age of its authority cannot be bounded: emit a new envelope", d.EnvelopeDigest)
		return false
	}
	emitted := e.EmittedAt.UTC().Format(time.RFC3339Nano)
	if end := e.EmittedAt.Add(g.maxAge); !now.Before(end) {
		d.deny(ReasonExpired, nil, "the authority ended at %s, %v (max_authority_age of policy %q) after the ledger recorded the envelope's emission at %s",
			end.UTC().Format(time.RFC3339Nano), g.maxAge, g.policy.Version, emitted)
		return false
	}
	if signed.SignedAt.Before(e.EmittedAt.Add(-ClockSkew).Truncate(time.Millisecond)) { // signed_at_ms is to the millisecond
		d.deny(ReasonExpired, nil, "the resolution was signed at %s, before the ledger recorded the envelope's emission at %s: a signature from before this emission is not authority for it",
			signed.SignedAt.Format(time.RFC3339Nano), emitted)
		return false
	}
	return true
}

func (d *Decision) allow(r Reason, format string, args ...any) {
	d.Allow, d.Reason, d.Detail = true, r, detail(format, args...)
}

func (d *Decision) deny(r Reason, err error, format string, args ...any) {
	d.Allow, d.Reason, d.Detail, d.Err = false, r, detail(format, args...), err
}

// maxDetail bounds a decision's Detail, in bytes, so that a call whose
// names are huge (an error's JSON pointer quotes them) still fits its
// receipt's line: a hostile call must not escape its receipt.
const maxDetail = 1024

// detail formats a Detail, cut to maxDetail bytes at a character boundary
// with "..." after the cut.
func detail(format string, args ...any) string {
	return cutDetail(fmt.Sprintf(format, args...))
}

// cutDetail cuts s to maxDetail bytes at a character boundary, with "..."
// after the cut.
func cutDetail(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "") + "..."
}

// commit writes d's receipt and, if that fails, turns d into a deny.
func (g *Gate) commit(ctx context.Context, d *Decision) {
	// An allow for a caller whose ctx has ended becomes a deny before it is
	// receipted: the deny's receipt can still be written, and it names the
	// authority the decision may have consumed, which would otherwise be
	// consumed in the ledger with no receipt.
	if d.Allow {
		if err := ctx.Err(); err != nil {
			d.deny(ReasonCanceled, err, "%v before the decision (%s) was receipted", err, d.Reason)
		}
	}
	p := receipt.Payload{
		PolicyVersion:     g.policy.Version,
		Result:            "FAIL",
		Reason:            string(d.Reason),
		Detail:            d.Detail,
		Class:             d.Class.String(),
		Server:            g.policy.Server,
		EnvelopeDigest:    d.EnvelopeDigest,
		ResolutionOutcome: outcomeName(d.Outcome),
		Channel:           string(d.Channel),
		TimestampMS:       g.now().UnixMilli(),
	}
	if d.Allow {
		p.Result = "PASS"
	}
	if d.Act != nil {
		p.Tool = d.Act.Tool
		p.ActDigest = d.Act.Digest
		p.ArgumentsDigest = d.Act.ArgumentsDigest()
	}
	// A deny is receipted even when ctx has ended: the receipt is the
	// proof that the call was stopped. An allow is only as good as its
	// receipt, so it keeps ctx.
	rctx := ctx
	if !d.Allow {
		rctx = context.WithoutCancel(ctx)
	}
	r, err := g.receipts.Append(rctx, p)
	if err != nil {
		was := d.Reason
		d.Allow = false
		d.Reason = ReasonReceiptError
		d.Detail = detail("the receipt of this decision (%s) could not be written: %v", was, err)
		d.Err = err
		d.Receipt = nil
		return
	}
	d.Receipt = &r
}

// outcomeName is the receipt's resolution_outcome: "" when no resolution was
// checked.
func outcomeName(o envelope.Outcome) string {
	if o == 0 {
		return ""
	}
	return o.String()
}

// Summary is the JSON form of a decision that an answer to a denied call
// carries (package mcpgate's tool error, bbdigest gate's output).
type Summary struct {
	Allow         bool   `json:"allow"`
	Reason        Reason `json:"reason"`
	Detail        string `json:"detail"`
	ReceiptSeq    uint64 `json:"receipt_seq,omitempty"`
	ReceiptDigest string `json:"receipt_digest,omitempty"`
}

// Summary returns d's Summary.
func (d *Decision) Summary() Summary {
	s := Summary{Allow: d.Allow, Reason: d.Reason, Detail: d.Detail}
	if d.Receipt != nil {
		s.ReceiptSeq = d.Receipt.Seq
		s.ReceiptDigest = d.Receipt.Digest.String()
	}
	return s
}
