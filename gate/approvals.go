package gate

// This file is the approval loop: a call that needs authority and carries
// none becomes a binding-moment envelope asked of the policy's principals
// (Config.Approvals), and the identical call, retried once a principal has
// decided, is allowed once on the principal's signed grant or denied on the
// signed deny.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// Approvals is where a gate asks its principals to approve calls, and finds
// their decisions: the store of approval requests (ledger.Request), each
// the binding-moment envelope the gate built for one act. *ledger.Memory
// and ledger/bolt's Ledger implement it (ledger.Approvals, which adds what
// a principal's tool needs: Decide, Request, Requests); a Go host that
// routes approvals to its own interface implements it over its own store,
// showing each new request to a principal and recording the decision, a
// signed resolution document made by SignGrant or SignDeny, where its Ask
// returns it.
//
// The contract, which the gate relies on:
//
//   - Ask returns the open request of r.ActDigest, unchanged, when there
//     is one (pending, or holding a principal's decision), with created
//     false; otherwise it stores r, pending, and returns it with created
//     true. It is atomic: concurrent Asks for one act, in any number of
//     gates sharing the store, end with one request. The returned request
//     carries its Envelope, whose digest is its EnvelopeDigest, its Act and
//     ActDigest, its State, and the Decision once one is recorded.
//   - Finish closes the open request d with the gate's reason; the act's
//     next Ask opens a new request, with a new envelope.
//   - An error fails the call: the gate denies it (ReasonApprovalError),
//     never allows it.
//
// What a store holds is not trusted: a grant is authority only as a
// signed resolution document that a principal of the policy signed, for
// this envelope and this act, within the policy's MaxAuthorityAge of the
// envelope's emission in the gate's Ledger, and it is consumed there like
// any other authority.
type Approvals interface {
	Ask(r *ledger.Request) (open ledger.Request, created bool, err error)
	Finish(d hashing.Digest, why string) (bool, error)
}

// The options of an approval envelope: option AllowOption authorizes the
// act, once; option DenyOption authorizes its denial (DenyAction).
const (
	AllowOption = 0
	DenyOption  = 1
)

// DenyActionVersion is the "@version" of the deny document of an approval
// envelope (DenyAction).
const DenyActionVersion = "bbdigest-approval-deny/v1"

// DenyAction returns the action of an approval envelope's Deny option for
// the act whose digest is actDigest: the JCS bytes of
//
//	{"@version":"bbdigest-approval-deny/v1","act_digest":"sha256:<64 hex>"}
//
// Its digest is the option's action_digest, so a principal's selection of
// Deny, signed as any selection is (SignResolution), is a signed denial of
// that act, and never authority for a call: no act's canonical form is
// this document.
func DenyAction(actDigest hashing.Digest) []byte {
	return []byte(`{"@version":"` + DenyActionVersion + `","act_digest":"` + actDigest.String() + `"}`)
}

// The bounds of what an approval envelope shows of a call.
const (
	// maxShownArguments is how many arguments the findings list, one
	// each.
	maxShownArguments = 16
	// maxShownValue is how many bytes of an argument's JSON value, or of
	// a tool's or server's name, a finding shows.
	maxShownValue = 512
)

// cutText returns s cut to at most n bytes at a character boundary, and
// whether it was cut.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// shown returns s as a finding shows it: whole, or cut to maxShownValue
// bytes and saying so.
func shown(s string) string {
	c, cut := cutText(s, maxShownValue)
	if !cut {
		return c
	}
	return fmt.Sprintf("%s... (cut: %d bytes of %d shown; the act digest covers them all)", c, len(c), len(s))
}

// NewRequest returns the approval request the gate asks for the act a of
// the consequence class class: a binding-moment envelope (§4, §5 of
// draft-morrison-binding-moment-envelope-04) whose synopsis names the tool
// and the server (when the policy names one), whose findings list the class, each argument as JSON (the
// first 16, each cut to 512 bytes, and saying so), the act digest and the
// request's nonce and time, and whose question has two options, "Allow
// this call once" (AllowOption, action_digest the act digest) and "Deny"
// (DenyOption, action_digest the digest of DenyAction), Deny recommended
// (the option that minimises the cost of being wrong, §5.7), with no hatch
// (the gate can take neither a free answer nor a dialogue). The nonce, 16
// random bytes from rand, makes every request a new envelope (§12.5),
// even for an act asked before. The text is the agent's, shown as written:
// the renderers escape it (envelope.RenderText).
func NewRequest(a *act.Act, class Class, policyVersion string, now time.Time, rand io.Reader) (*ledger.Request, error) {
	if a == nil || len(a.Canonical) == 0 {
		return nil, errors.New("gate: approval request: no act")
	}
	var nonce [16]byte
	if _, err := io.ReadFull(rand, nonce[:]); err != nil {
		return nil, fmt.Errorf("gate: approval request: nonce: %w", err)
	}
	tool := `"` + shown(a.Tool) + `"`
	server := "" // the policy names no server
	if a.Server != "" {
		server = ` on server "` + shown(a.Server) + `"`
	}
	first := fmt.Sprintf("Tool %s is %v under policy %q, which needs a principal's authority for it.", tool, class, policyVersion)
	if class == Unconfigured {
		first = fmt.Sprintf("Tool %s is not in policy %q, which needs a principal's authority for every tool it does not name.", tool, policyVersion)
	}
	findings := []string{first}
	args, err := argumentFindings(a.Arguments())
	if err != nil {
		return nil, fmt.Errorf("gate: approval request: %w", err)
	}
	findings = append(findings, args...)
	findings = append(findings,
		"Act digest "+a.Digest.String()+": an approval allows exactly this call, once.",
		fmt.Sprintf("Request %s, asked at %s.", hex.EncodeToString(nonce[:]), now.UTC().Format(time.RFC3339Nano)))
	decision := class.String()
	b := envelope.Builder{
		Synopsis: fmt.Sprintf("The agent asks to call tool %s%s, and the gate holds the call until a principal allows or denies it.", tool, server),
		Findings: findings,
		Recommendations: []string{
			"Allow it once if you expect this tool to run now with exactly these arguments.",
			"Deny it otherwise: the call does not run, and asking again is a new request.",
		},
		Offer:          "Ask the operator for the whole act, under the act digest above, before deciding.",
		Stem:           fmt.Sprintf("Should the call of tool %s run once, as listed?", tool),
		RecommendedIdx: DenyOption,
		Meta:           &envelope.Meta{DecisionClass: &decision},
	}
	b.Options = make([]envelope.BuildOption, 2)
	b.Options[AllowOption] = envelope.BuildOption{Label: "Allow this call once",
		Reasoning: "The tool runs once with exactly these arguments; any other call asks again.", ActionDigest: a.Digest}
	b.Options[DenyOption] = envelope.BuildOption{Label: "Deny",
		Reasoning: "The call does not run, and the agent is told that a principal denied it.", Action: DenyAction(a.Digest)}
	env, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("gate: approval request: %w", err)
	}
	return &ledger.Request{
		EnvelopeDigest: env.Digest(),
		Envelope:       env.Canonical(),
		ActDigest:      a.Digest,
		Act:            bytes.Clone(a.Canonical),
		Tool:           a.Tool,
		Server:         a.Server,
		Class:          class.String(),
	}, nil
}

// argumentFindings returns a finding per member of the canonical arguments
// object args: its name and its JSON value, shown, the first
// maxShownArguments of them, and a finding that says how many more there
// are.
func argumentFindings(args []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("the arguments are not an object")
	}
	var out []string
	n := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		n++
		if n <= maxShownArguments {
			q, _ := json.Marshal(name) // the name as the call's JSON writes it
			out = append(out, "Argument "+shown(string(q))+": "+shown(string(v)))
		}
	}
	switch {
	case n == 0:
		out = append(out, "The call has no arguments.")
	case n > maxShownArguments:
		out = append(out, fmt.Sprintf("%d more arguments, not listed here (%d in all): the act digest covers them all.", n-maxShownArguments, n))
	}
	return out, nil
}

// RequestEnvelope returns the envelope of r, checking that it is one
// (envelope.Parse, as a bare binding_moment value) and that its digest is
// r's EnvelopeDigest.
func RequestEnvelope(r *ledger.Request) (*envelope.Envelope, error) {
	var p envelope.Parser
	env, err := p.Parse(r.Envelope)
	if err != nil {
		return nil, fmt.Errorf("gate: approval request %s: %w", r.EnvelopeDigest, err)
	}
	if p.Placement() != envelope.PlacementBare {
		return nil, fmt.Errorf("gate: approval request %s: not a bare binding_moment value", r.EnvelopeDigest)
	}
	if env.Digest() != r.EnvelopeDigest {
		return nil, fmt.Errorf("gate: approval request %s: its envelope's digest is %s", r.EnvelopeDigest, env.Digest())
	}
	return env, nil
}

// SignGrant returns the principal's grant of the request r: the signed
// resolution document (SignResolution) selecting option (zero-based) of
// r's envelope, which must authorize r's act (its action_digest is r's
// ActDigest), signed with priv at now. A gate whose policy names priv's
// public key allows the identical call once on it.
func SignGrant(r *ledger.Request, option int, priv ed25519.PrivateKey, now time.Time) ([]byte, error) {
	env, err := RequestEnvelope(r)
	if err != nil {
		return nil, err
	}
	if o, ok := env.Option(option); ok && o.ActionDigest != r.ActDigest {
		return nil, fmt.Errorf("gate: grant: option %d (%q) does not authorize the act %s: deny instead", option+1, o.Label, r.ActDigest)
	}
	return SignResolution(env, &envelope.Resolution{EnvelopeDigest: r.EnvelopeDigest, Kind: envelope.KindOption, OptionIdx: option}, r.ActDigest, priv, now)
}

// SignDeny returns the principal's denial of the request r: the signed
// resolution document selecting r's Deny option (the option whose action
// is DenyAction of r's act), signed with priv at now.
func SignDeny(r *ledger.Request, priv ed25519.PrivateKey, now time.Time) ([]byte, error) {
	env, err := RequestEnvelope(r)
	if err != nil {
		return nil, err
	}
	deny := hashing.Sum(DenyAction(r.ActDigest))
	for i, o := range env.Options() {
		if o.ActionDigest == deny {
			return SignResolution(env, &envelope.Resolution{EnvelopeDigest: r.EnvelopeDigest, Kind: envelope.KindOption, OptionIdx: i}, deny, priv, now)
		}
	}
	return nil, fmt.Errorf("gate: deny: envelope %s has no Deny option for act %s", r.EnvelopeDigest, r.ActDigest)
}

// approve decides a, which needs authority and carries none, through the
// gate's Approvals: it asks for the act (a new request, or the act's open
// one), and denies while the request is pending, decides on the
// principal's grant as on any authority, or denies on the principal's
// signed deny.
func (g *Gate) approve(ctx context.Context, a *act.Act, d *Decision) {
	open, env, created, ok := g.ask(ctx, a, d)
	if !ok {
		return
	}
	g.onRequest(ctx, a, env, &open, created, d)
}

// ask asks the gate's Approvals for the act a: it returns the act's open
// request (a new one, created, or the one asked before) and its envelope,
// emitted in the ledger while pending. On failure it denies d and returns
// false.
func (g *Gate) ask(ctx context.Context, a *act.Act, d *Decision) (ledger.Request, *envelope.Envelope, bool, bool) {
	for attempt := 0; ; attempt++ {
		r, err := NewRequest(a, d.Class, g.policy.Version, g.now(), rand.Reader)
		if err != nil {
			d.deny(ReasonApprovalError, err, "%v", err)
			return ledger.Request{}, nil, false, false
		}
		open, created, err := g.approvals.Ask(r)
		if err != nil {
			d.deny(ReasonApprovalError, err, "the approvals store failed, so no principal can be asked: %v", err)
			return ledger.Request{}, nil, false, false
		}
		env, err := RequestEnvelope(&open)
		if err == nil && (open.ActDigest != a.Digest || !bytes.Equal(open.Act, a.Canonical)) {
			err = fmt.Errorf("the approvals store returned request %s of act %s for act %s", open.EnvelopeDigest, open.ActDigest, a.Digest)
		}
		if err != nil {
			d.deny(ReasonApprovalError, err, "%v", err)
			return ledger.Request{}, nil, false, false
		}
		d.EnvelopeDigest, d.Approval = open.EnvelopeDigest, &open
		if open.State != ledger.RequestPending {
			return open, env, created, true
		}
		// Emitted on every ask, not only the first: emitting again is a
		// no-op, and repairs a request stored by a gate that failed
		// before it emitted.
		err = g.ledger.Emit(open.EnvelopeDigest)
		if errors.Is(err, ledger.ErrAlreadyResolved) && attempt == 0 {
			// Its envelope was resolved by an authority presented with
			// a call: the request is spent, ask anew.
			if _, err := g.approvals.Finish(open.EnvelopeDigest, string(ReasonConsumed)); err != nil {
				d.deny(ReasonApprovalError, err, "the approvals store failed: %v", err)
				return ledger.Request{}, nil, false, false
			}
			continue
		}
		if err != nil {
			g.ledgerDeny(ctx, err, d)
			return ledger.Request{}, nil, false, false
		}
		return open, env, created, true
	}
}

// onRequest decides a on its open approval request r, whose envelope is
// env: pending, granted or denied by a principal.
func (g *Gate) onRequest(ctx context.Context, a *act.Act, env *envelope.Envelope, open *ledger.Request, created bool, d *Decision) {
	switch open.State {
	case ledger.RequestPending:
		verb := "asked"
		if !created {
			verb = "is still waiting for"
		}
		d.deny(ReasonApprovalPending, nil, "tool %q is %v (threshold %v), and the call carries no authority: the gate %s a principal's approval of envelope %s (act %s); retry the identical call once a principal has decided",
			a.Tool, d.Class, g.threshold, verb, open.EnvelopeDigest, a.Digest)
	case ledger.RequestGranted:
		if isElicited(open.Decision) {
			// Recorded by a gate that then failed before it consumed
			// the envelope: an elicited answer counts only in the call
			// it answered, and a store's bytes are no answer.
			d.Channel = ChannelElicitation
			d.deny(ReasonNotAuthority, nil, "the approvals store holds an elicited grant of envelope %s that was not consumed in the call it answered: an elicited answer counts only there; the request is closed, and the next call asks anew", open.EnvelopeDigest)
			g.finish(open, d)
			return
		}
		// The existing path of authority, unchanged: the signature, the
		// principal, the age from the ledger's emission and the single
		// use are checked there. Expires is no bound of its own:
		// MaxAuthorityAge is.
		g.withAuthority(ctx, a, &Authority{Envelope: env, Resolution: open.Decision, Expires: g.now().Add(g.maxAge + time.Minute)}, d)
		g.finish(open, d)
	case ledger.RequestDenied:
		if isElicited(open.Decision) {
			// A denial the gate recorded and did not finish: honoured.
			g.elicitedDenied(ctx, open, "denied it", d)
			return
		}
		g.denied(ctx, a, env, open, d)
	default:
		d.deny(ReasonApprovalError, nil, "the approvals store returned request %s, %v, as the open request of act %s", open.EnvelopeDigest, open.State, a.Digest)
	}
}

// ledgerDeny denies d on the ledger's error err.
func (g *Gate) ledgerDeny(ctx context.Context, err error, d *Decision) {
	if ctx.Err() != nil {
		d.deny(ReasonCanceled, err, "%v", err)
	} else {
		d.deny(ReasonLedgerError, err, "%v", err)
	}
}

// finish closes the request r once the decision d on its grant is final:
// allowed (and consumed), or refused for good. A ledger error or a
// cancellation leaves it open: the retry decides again, and finds it
// consumed if it was. If the store cannot record an allow, the allow
// becomes a deny: its authority stays consumed.
func (g *Gate) finish(r *ledger.Request, d *Decision) {
	if d.Reason == ReasonLedgerError || d.Reason == ReasonCanceled {
		return
	}
	if _, err := g.approvals.Finish(r.EnvelopeDigest, string(d.Reason)); err != nil {
		if d.Allow {
			d.deny(ReasonApprovalError, err, "the principal's grant of envelope %s was consumed, but the approvals store could not close it: %v", r.EnvelopeDigest, err)
		}
		return
	}
}

// denied decides a on the principal's deny recorded in r: a signed
// resolution document that a principal of the policy signed, selecting the
// Deny option of r's envelope for r's act. It resolves the envelope in the
// ledger (declined), so that nothing presented later can be authority under
// it, and closes the request; the act's next call asks anew. A deny that
// does not verify is refused for what it is, and closes the request too.
// Either way the call is denied.
func (g *Gate) denied(ctx context.Context, a *act.Act, env *envelope.Envelope, r *ledger.Request, d *Decision) {
	defer g.finish(r, d)
	s, err := ParseSignedResolution(r.Decision)
	if err != nil {
		d.deny(ReasonBadSignature, err, "the deny recorded for envelope %s: %v", r.EnvelopeDigest, err)
		return
	}
	p, ok := g.principals[s.KeyID]
	if !ok {
		d.deny(ReasonUnknownPrincipal, nil, "the deny recorded for envelope %s is signed by key %s, which is not a principal of policy %q", r.EnvelopeDigest, s.KeyID, g.policy.Version)
		return
	}
	if err := s.Verify(p.PublicKey); err != nil {
		d.deny(ReasonBadSignature, err, "the signature of principal %s on the deny of envelope %s does not verify: %v", principalLabel(s.KeyID, p.Name), r.EnvelopeDigest, err)
		return
	}
	deny := hashing.Sum(DenyAction(a.Digest))
	opt, _ := env.Option(s.Resolution.OptionIdx)
	switch {
	case s.EnvelopeDigest != r.EnvelopeDigest:
		d.deny(ReasonConsumed, nil, "the deny recorded for envelope %s is signed for envelope %s", r.EnvelopeDigest, s.EnvelopeDigest)
		return
	case s.ActDigest != deny || opt.ActionDigest != deny:
		d.deny(ReasonNotActBound, nil, "the deny recorded for envelope %s does not select its Deny option for act %s", r.EnvelopeDigest, a.Digest)
		return
	}
	d.PrincipalKeyID, d.PrincipalName, d.Channel = s.KeyID, p.Name, ChannelSigned
	if _, err := g.ledger.Resolve(r.EnvelopeDigest, ledger.OutcomeDeclined); err != nil {
		g.ledgerDeny(ctx, err, d)
		return
	}
	d.Outcome = envelope.OutcomeDeclined
	d.deny(ReasonApprovalDenied, nil, "principal %s denied this act in envelope %s at %s; the envelope is spent",
		principalLabel(s.KeyID, p.Name), r.EnvelopeDigest, s.SignedAt.Format(time.RFC3339Nano))
}
