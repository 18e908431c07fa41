package gate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
)

// MetaKey is the _meta member of an MCP tools/call request's params that
// carries an authority in its JSON form (ParseAuthority), for hosts whose
// gate sits in another process (bbdigest gate) or past an MCP hop
// (package mcpgate). The act digest never covers _meta, so attaching an
// authority to a call does not change the call's act.
const MetaKey = "dev.bbdigest/authority"

// Authority is what the host holds to authorize one act: the envelope it
// emitted (and recorded in the ledger), the principal's resolution of it,
// and until when the host accepts that resolution as current.
type Authority struct {
	// Envelope is the binding-moment envelope the host emitted.
	Envelope *envelope.Envelope
	// Resolution is the principal's resolution as received (a JSON text):
	// a resolution of §7.3, or a signed resolution document
	// (SignResolution, ParseSignedResolution), which a gate whose policy
	// names principals requires.
	Resolution []byte
	// Expires is the instant from which the authority is no longer
	// current. The gate refuses an authority without one.
	Expires time.Time
}

// AuthorityError reports why ParseAuthority refuses a text, and where:
// Pointer is the JSON Pointer (RFC 6901) of the member at fault ("" for
// the whole text), as a *PolicyError names a policy's; Err is the error
// behind it, when there is one: the envelope's (envelope.Parse's, whose
// pointers are within the envelope member) or the expiry's time.Parse
// error.
type AuthorityError struct {
	Pointer string
	Reason  string
	Err     error
}

// Error returns `gate: authority: "POINTER": REASON`, followed by ": " and
// the message of Err when there is one.
func (e *AuthorityError) Error() string {
	s := "gate: authority: " + strconv.Quote(e.Pointer) + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns e.Err.
func (e *AuthorityError) Unwrap() error { return e.Err }

// ParseAuthority reads an authority from its JSON form:
//
//	{"envelope": <binding_moment value>, "resolution": <resolution>, "expires": "<RFC 3339 time>"}
//
// The text must be one JSON object with exactly these three members and no
// duplicate member name at any level; envelope must pass envelope.Parse (as a
// bare binding_moment value) and resolution (a resolution of §7.3, or a
// signed resolution document) is kept as given, for the gate to check.
//
// An error is an *AuthorityError naming the member at fault by its JSON
// Pointer, or, for text that is not JSON or has a duplicate name, the
// *canon.Error (with its own pointer) wrapped, as ParsePolicy's are.
func ParseAuthority(src []byte) (*Authority, error) {
	if err := canon.Validate(src, canon.RFC8785); err != nil {
		return nil, fmt.Errorf("gate: authority: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(src, &members); err != nil || members == nil {
		return nil, &AuthorityError{Pointer: "", Reason: "not a JSON object"}
	}
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		switch name {
		case "envelope", "resolution", "expires":
		default:
			return nil, &AuthorityError{Pointer: "/" + pointerEscaper.Replace(name), Reason: "unknown member (want envelope, resolution, expires)"}
		}
	}
	for _, name := range []string{"envelope", "resolution", "expires"} {
		if _, ok := members[name]; !ok {
			return nil, &AuthorityError{Pointer: "/" + name, Reason: "required member missing"}
		}
	}
	a := new(Authority)
	var err error
	var ep envelope.Parser
	if a.Envelope, err = ep.Parse(members["envelope"]); err != nil {
		return nil, &AuthorityError{Pointer: "/envelope", Reason: "not an envelope", Err: err}
	}
	if ep.Placement() != envelope.PlacementBare {
		return nil, &AuthorityError{Pointer: "/envelope", Reason: "not a bare binding_moment value"}
	}
	a.Resolution = append([]byte(nil), members["resolution"]...)
	var exp string
	if raw := members["expires"]; len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &exp) != nil {
		return nil, &AuthorityError{Pointer: "/expires", Reason: "must be a string, not " + jsonKind(raw)}
	}
	if a.Expires, err = time.Parse(time.RFC3339Nano, exp); err != nil {
		return nil, &AuthorityError{Pointer: "/expires", Reason: "not an RFC 3339 time", Err: err}
	}
	return a, nil
}
