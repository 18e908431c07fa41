package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
)

// RequestState is the state of an approval request (a Request).
type RequestState uint8

// The states of a Request. The values are stored by the bolt ledger and
// never renumbered. Pending, granted and denied are open: the request is
// the one its act gets (Approvals.Ask returns it). Closed is final.
const (
	RequestPending RequestState = 1 // asked, not decided
	RequestGranted RequestState = 2 // a principal's decision selects an option that authorizes the act
	RequestDenied  RequestState = 3 // a principal's decision denies the act
	RequestClosed  RequestState = 4 // done with: Request.Closing says how; the act's next Ask opens a new request
)

var requestStateNames = [...]string{
	RequestPending: "pending",
	RequestGranted: "granted",
	RequestDenied:  "denied",
	RequestClosed:  "closed",
}

// Valid reports whether s is one of the four states.
func (s RequestState) Valid() bool { return s != 0 && int(s) < len(requestStateNames) }

// Open reports whether s is pending, granted or denied.
func (s RequestState) Open() bool {
	return s == RequestPending || s == RequestGranted || s == RequestDenied
}

// String returns "pending", "granted", "denied" or "closed"; "invalid"
// otherwise.
func (s RequestState) String() string {
	if !s.Valid() {
		return "invalid"
	}
	return requestStateNames[s]
}

// Request is an approval request: a binding-moment envelope that a gate
// built to ask a principal about one act, and what became of it. The
// ledger stores it as bytes; package gate makes its envelope and reads the
// decision.
type Request struct {
	// EnvelopeDigest names the request: the digest of Envelope.
	EnvelopeDigest hashing.Digest
	// Envelope is the canonical binding_moment value asked.
	Envelope []byte
	// ActDigest is the digest of Act, the act the envelope asks about.
	ActDigest hashing.Digest
	// Act is the canonical act (package act's Act.Canonical).
	Act []byte
	// Tool, Server and Class are the act's tool, its server and the
	// consequence class the gate's policy gives the tool, for listings.
	Tool, Server, Class string
	// State is the request's state.
	State RequestState
	// EmittedAt is when the store recorded the request, on its wall clock,
	// without a monotonic clock reading.
	EmittedAt time.Time
	// Decision is the principal's decision, as recorded by Decide (for
	// package gate, a signed resolution document); nil while pending.
	Decision []byte
	// DecidedAt is when Decide recorded Decision; zero while pending.
	DecidedAt time.Time
	// Closing says why the request was closed (package gate writes its
	// Reason: "authority" for a grant that allowed the call once,
	// "approval_denied", "expired", ...); "" while open.
	Closing string
	// ClosedAt is when Finish recorded it; zero while open.
	ClosedAt time.Time
}

// Clone returns a copy of r that shares no memory with it.
func (r *Request) Clone() Request {
	c := *r
	c.Envelope = bytes.Clone(r.Envelope)
	c.Act = bytes.Clone(r.Act)
	c.Decision = bytes.Clone(r.Decision)
	return c
}

// MaxRequestText bounds the bytes of a Request's Envelope, Act and
// Decision together, and MaxRequestName those of its Tool, Server, Class
// and Closing each: a store refuses a larger request, so that a hostile
// call cannot fill the ledger's file with one entry.
const (
	MaxRequestText = 8 << 20
	MaxRequestName = 4 << 10
)

// Errors of an Approvals store, for errors.Is; a store of this module
// returns them as the cause of an *Error.
var (
	// ErrNoRequest: no request has this envelope digest.
	ErrNoRequest = errors.New("no approval request")
	// ErrNotPending: the request is decided or closed already; a decision
	// is recorded once.
	ErrNotPending = errors.New("approval request not pending")
)

// Approvals stores approval requests, each named by its envelope digest,
// and at most one open request per act digest. It is the store package
// gate asks through (its Approvals), and where a principal's tool (bbdigest
// approve) lists requests and records decisions. Memory and the bolt
// ledger implement it, in the same store as their envelopes.
//
// Implementations must be safe for concurrent use, and Ask, Decide and
// Finish must each be atomic: of concurrent Asks for one act, one stores its
// request and the others get it.
type Approvals interface {
	// Ask returns the open request for r.ActDigest, with created false, if
	// there is one; otherwise it stores r as a new pending request (its
	// State, EmittedAt, Decision, DecidedAt, Closing and ClosedAt set by
	// the store) and returns it with created true. It refuses r when a
	// request with r's envelope digest was stored before (a new question
	// must be a new envelope, draft-morrison-binding-moment-envelope-04
	// §12.5), or when r lacks a digest, its envelope or its act, or exceeds
	// MaxRequestText or MaxRequestName.
	Ask(r *Request) (open Request, created bool, err error)
	// Decide records a principal's decision on the pending request d:
	// state is RequestGranted or RequestDenied, decision is the decision's
	// bytes. It fails with ErrNoRequest for an unknown d and ErrNotPending
	// for a request decided or closed, and changes nothing then.
	Decide(d hashing.Digest, state RequestState, decision []byte) (Request, error)
	// Finish closes the open request d, recording why; the act's next Ask
	// opens a new request. It reports false, and changes nothing, when d
	// is unknown or closed already.
	Finish(d hashing.Digest, why string) (bool, error)
	// Request returns the request d (ok false if there is none).
	Request(d hashing.Digest) (r Request, ok bool, err error)
	// Requests returns every request, oldest first (by EmittedAt, then by
	// envelope digest).
	Requests() ([]Request, error)
}

// CheckAsk returns why r cannot be asked (see Approvals.Ask), or nil. Stores
// call it before they store r.
func CheckAsk(r *Request) error {
	switch {
	case r == nil:
		return errors.New("no request")
	case r.EnvelopeDigest == (hashing.Digest{}) || r.ActDigest == (hashing.Digest{}):
		return errors.New("a request needs its envelope digest and its act digest")
	case len(r.Envelope) == 0 || len(r.Act) == 0:
		return errors.New("a request needs its envelope and its act")
	case len(r.Envelope)+len(r.Act)+len(r.Decision) > MaxRequestText:
		return fmt.Errorf("a request of %d bytes, above %d", len(r.Envelope)+len(r.Act)+len(r.Decision), MaxRequestText)
	}
	for _, s := range []string{r.Tool, r.Server, r.Class, r.Closing} {
		if len(s) > MaxRequestName {
			return fmt.Errorf("a name of %d bytes, above %d", len(s), MaxRequestName)
		}
	}
	return nil
}

// CheckDecide returns why a decision cannot be recorded in state with
// decision, or nil.
func CheckDecide(state RequestState, decision []byte) error {
	switch {
	case state != RequestGranted && state != RequestDenied:
		return fmt.Errorf("a decision grants or denies, not %v", state)
	case len(decision) == 0:
		return errors.New("an empty decision")
	case len(decision) > MaxRequestText:
		return fmt.Errorf("a decision of %d bytes, above %d", len(decision), MaxRequestText)
	}
	return nil
}

// SortRequests sorts rs oldest first, by EmittedAt, then by envelope
// digest, as Approvals.Requests returns them.
func SortRequests(rs []Request) {
	slices.SortFunc(rs, func(a, b Request) int {
		if c := a.EmittedAt.Compare(b.EmittedAt); c != 0 {
			return c
		}
		return bytes.Compare(a.EnvelopeDigest[:], b.EnvelopeDigest[:])
	})
}

// Ask implements Approvals.
func (l *Memory) Ask(r *Request) (Request, bool, error) {
	if err := CheckAsk(r); err != nil {
		return Request{}, false, &Error{Op: "ask", Err: err}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if d, ok := l.open[r.ActDigest]; ok {
		return l.requests[d].Clone(), false, nil
	}
	if _, ok := l.requests[r.EnvelopeDigest]; ok {
		return Request{}, false, &Error{Op: "ask", Err: fmt.Errorf("envelope %s was asked before: a new request needs a new envelope", r.EnvelopeDigest)}
	}
	n := r.Clone()
	n.State, n.EmittedAt = RequestPending, time.Now().Round(0)
	n.Decision, n.DecidedAt, n.Closing, n.ClosedAt = nil, time.Time{}, "", time.Time{}
	if l.requests == nil {
		l.requests, l.open = make(map[hashing.Digest]*Request), make(map[hashing.Digest]hashing.Digest)
	}
	l.requests[n.EnvelopeDigest] = &n
	l.open[n.ActDigest] = n.EnvelopeDigest
	return n.Clone(), true, nil
}

// Decide implements Approvals.
func (l *Memory) Decide(d hashing.Digest, state RequestState, decision []byte) (Request, error) {
	if err := CheckDecide(state, decision); err != nil {
		return Request{}, &Error{Op: "decide", Err: err}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.requests[d]
	switch {
	case !ok:
		return Request{}, &Error{Op: "decide", Err: fmt.Errorf("%w: %s", ErrNoRequest, d)}
	case r.State != RequestPending:
		return Request{}, &Error{Op: "decide", Err: fmt.Errorf("%w: %s is %v", ErrNotPending, d, r.State)}
	}
	r.State, r.Decision, r.DecidedAt = state, bytes.Clone(decision), time.Now().Round(0)
	return r.Clone(), nil
}

// Finish implements Approvals.
func (l *Memory) Finish(d hashing.Digest, why string) (bool, error) {
	if len(why) > MaxRequestName {
		return false, &Error{Op: "finish", Err: fmt.Errorf("a reason of %d bytes, above %d", len(why), MaxRequestName)}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.requests[d]
	if !ok || !r.State.Open() {
		return false, nil
	}
	r.State, r.Closing, r.ClosedAt = RequestClosed, why, time.Now().Round(0)
	delete(l.open, r.ActDigest)
	return true, nil
}

// Request implements Approvals.
func (l *Memory) Request(d hashing.Digest) (Request, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.requests[d]
	if !ok {
		return Request{}, false, nil
	}
	return r.Clone(), true, nil
}

// Requests implements Approvals.
func (l *Memory) Requests() ([]Request, error) {
	l.mu.Lock()
	rs := make([]Request, 0, len(l.requests))
	for _, r := range l.requests {
		rs = append(rs, r.Clone())
	}
	l.mu.Unlock()
	SortRequests(rs)
	return rs, nil
}
