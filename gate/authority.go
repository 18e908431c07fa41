package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
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

// ParseAuthority reads an authority from its JSON form:
//
//	{"envelope": <binding_moment value>, "resolution": <resolution>, "expires": "<RFC 3339 time>"}
//
// The text must be one JSON object with exactly these three members and no
// duplicate member name at any level; envelope must pass envelope.Parse (as a
// bare binding_moment value) and resolution (a resolution of §7.3, or a
// signed resolution document) is kept as given, for the gate to check.
func ParseAuthority(src []byte) (*Authority, error) {
	if err := canon.Validate(src, canon.RFC8785); err != nil {
		return nil, fmt.Errorf("gate: authority: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(src, &members); err != nil || members == nil {
		return nil, errors.New("gate: authority: not a JSON object")
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
			return nil, fmt.Errorf("gate: authority: unknown member %q (want envelope, resolution, expires)", name)
		}
	}
	for _, name := range []string{"envelope", "resolution", "expires"} {
		if _, ok := members[name]; !ok {
			return nil, fmt.Errorf("gate: authority: missing %q", name)
		}
	}
	a := new(Authority)
	var err error
	var ep envelope.Parser
	if a.Envelope, err = ep.Parse(members["envelope"]); err != nil {
		return nil, fmt.Errorf("gate: authority: envelope: %w", err)
	}
	if ep.Placement() != envelope.PlacementBare {
		return nil, errors.New("gate: authority: envelope: not a bare binding_moment value")
	}
	a.Resolution = append([]byte(nil), members["resolution"]...)
	var exp string
	if err := json.Unmarshal(members["expires"], &exp); err != nil {
		return nil, errors.New("gate: authority: expires: not a string")
	}
	if a.Expires, err = time.Parse(time.RFC3339Nano, exp); err != nil {
		return nil, fmt.Errorf("gate: authority: expires: %v", err)
	}
	return a, nil
}
