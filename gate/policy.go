package gate

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/receipt"
)

// Policy is the host's configuration of a gate: the consequence class of
// each tool, the threshold at and above which a call needs authority, the
// server identity its acts bind, a version that every receipt names, and
// the principals whose signature an authority must carry.
type Policy struct {
	// Version names this policy in every receipt (policy_version), so that
	// an auditor can tell which rules a decision was made under.
	Version string `json:"policy_version"`

	// Server is the identity of the tool server whose calls this gate
	// sees, bound into every act (see package act); "" binds none.
	Server string `json:"server,omitempty"`

	// Threshold is the lowest class that needs authority. The zero value
	// means Financial. It may be ReadOnly, Ordinary or Financial, never
	// higher: for Financial, Physical and NetworkControl fail-closed is the
	// only conforming behaviour (draft-das-agentic-tool-binding-03), so no
	// policy can let those through without authority.
	Threshold Class `json:"threshold,omitempty"`

	// Tools gives each tool's class, by the tool's name as calls carry it.
	// A tool not named here is Unconfigured, and always needs authority.
	Tools map[string]Class `json:"tools"`

	// NumberProfiles chooses the number profile each tool's acts are read
	// under: by default rfc8785 below the threshold, strict at or above it.
	NumberProfiles NumberProfiles

	// Principals are the people who may authorize a call, by the Ed25519
	// public keys they sign resolutions with (SignResolution). With
	// principals, an authority is accepted only with a signed resolution
	// document (ParseSignedResolution) that verifies under one of these
	// keys, and only for MaxAuthorityAge after the ledger recorded the
	// envelope's emission. Without them (nil), authority is
	// unauthenticated: anything that can present an authority (write
	// params._meta, say) can approve a call whose envelope it has seen
	// (see Gate.Authenticated and the package documentation, Authority).
	Principals []Principal

	// MaxAuthorityAge is how long after the ledger recorded an envelope's
	// emission (ledger.Entry.EmittedAt) a principal's signed resolution of
	// it is authority; an authority's own Expires may end it sooner, never
	// later. Zero means DefaultMaxAuthorityAge. It may be set only with
	// Principals, and at most MaxAuthorityAgeLimit.
	MaxAuthorityAge time.Duration

	// Elicitation lists the classes for which the answer of the MCP
	// client's user, asked through elicitation (package mcpgate), counts
	// as authority (Gate.AuthorizeElicited). Such an answer is signed by
	// no principal: it proves only that whoever controls the MCP client's
	// interface chose "Allow this call once". nil means the default,
	// READ_ONLY and ORDINARY: not FINANCIAL, PHYSICAL or NETWORK_CONTROL
	// (the package doc, Channels, says why); an empty, non-nil list means
	// no class. A tool the
	// policy does not name never takes an elicited answer as authority.
	// It may be set only with Principals (approvals need them).
	Elicitation []Class
}

// defaultElicitation is the classes for which an elicited answer counts as
// authority under a policy that sets no Elicitation: those below
// FINANCIAL. FINANCIAL is left out with PHYSICAL and NETWORK_CONTROL
// because the tool-binding draft puts it with them (fail-closed is the only
// conforming behaviour for all three), and because an MCP client's
// elicitation handler may be code (an agent runtime that answers for the
// model) as well as a person: listing FINANCIAL is the operator's statement
// that the clients of this server are driven by people (see the package
// doc, Channels).
var defaultElicitation = []Class{ReadOnly, Ordinary}

// Principal is a person whose signature makes a resolution authority, named
// by the Ed25519 public key of the tool they sign with.
type Principal struct {
	// Name is what receipts and diagnostics call the principal, beside the
	// key id; it may be empty.
	Name string
	// PublicKey is the principal's Ed25519 public key
	// (ed25519.PublicKeySize bytes).
	PublicKey ed25519.PublicKey
}

// KeyID returns the key id of p's public key: "sha256:" and the lowercase
// hex SHA-256 of its SubjectPublicKeyInfo DER (receipt.KeyID), as signed
// resolutions and receipts name keys.
func (p Principal) KeyID() string { return receipt.KeyID(p.PublicKey) }

// The bounds of Policy.MaxAuthorityAge.
const (
	// DefaultMaxAuthorityAge is the age bound of a policy with principals
	// that sets none: a binding moment is a present decision, answered in
	// minutes.
	DefaultMaxAuthorityAge = 5 * time.Minute
	// MaxAuthorityAgeLimit is the largest MaxAuthorityAge a policy may set.
	MaxAuthorityAgeLimit = 24 * time.Hour
)

// maxPrincipalName bounds a principal's name, in bytes: it goes into the
// detail of every receipt the principal's authority allows.
const maxPrincipalName = 128

// PolicyError reports what makes a policy unusable, and where: Pointer is
// the JSON Pointer (RFC 6901) of the member at fault in the policy's JSON
// form ("" for the whole policy), also for a Policy built in Go.
type PolicyError struct {
	Pointer string
	Reason  string
}

// Error returns `gate: policy: "POINTER": REASON`.
func (e *PolicyError) Error() string {
	return "gate: policy: " + strconv.Quote(e.Pointer) + ": " + e.Reason
}

func policyErr(pointer, format string, args ...any) *PolicyError {
	return &PolicyError{Pointer: pointer, Reason: fmt.Sprintf(format, args...)}
}

// pointerEscaper escapes a member name as a JSON Pointer reference token.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// threshold returns the effective threshold.
func (p *Policy) threshold() Class {
	if p.Threshold == 0 {
		return Financial
	}
	return p.Threshold
}

// maxAuthorityAge returns the effective age bound of a policy with
// principals.
func (p *Policy) maxAuthorityAge() time.Duration {
	if p.MaxAuthorityAge == 0 {
		return DefaultMaxAuthorityAge
	}
	return p.MaxAuthorityAge
}

// Validate reports what makes p unusable, as a *PolicyError: a threshold
// above Financial or not a class, a tool with an empty name, a tool whose
// class is not one of the five, a principal whose key is not an Ed25519
// public key, two principals with one key or one name, a name that is not
// UTF-8 or longer than 128 bytes, a MaxAuthorityAge that is negative,
// above MaxAuthorityAgeLimit, or set without principals; a number profile
// that is neither canon.Strict nor canon.RFC8785, for a tool with an empty
// name or a class not one of the five, or rfc8785 at or above the
// threshold (see NumberProfiles).
func (p *Policy) Validate() error {
	if p == nil {
		return policyErr("", "no policy")
	}
	if t := p.threshold(); !t.valid() || t > Financial {
		return policyErr("/threshold", "%v: must be %v, %v or %v (%v and above are always fail-closed)", t, ReadOnly, Ordinary, Financial, Financial)
	}
	names := make([]string, 0, len(p.Tools))
	for name := range p.Tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "" {
			return policyErr("/tools/", "a tool with an empty name")
		}
		if c := p.Tools[name]; !c.valid() {
			return policyErr("/tools/"+pointerEscaper.Replace(name), "invalid class %v", c)
		}
	}
	if err := p.validateProfiles(); err != nil {
		return err
	}
	if p.Principals != nil && len(p.Principals) == 0 {
		return policyErr("/principals", "no principals: leave the member out for unauthenticated authority, or name at least one")
	}
	keys := make(map[string]int, len(p.Principals))
	byName := make(map[string]int, len(p.Principals))
	for i, pr := range p.Principals {
		at := "/principals/" + strconv.Itoa(i)
		if len(pr.PublicKey) != ed25519.PublicKeySize {
			return policyErr(at+"/public_key", "an Ed25519 public key has %d bytes, not %d", ed25519.PublicKeySize, len(pr.PublicKey))
		}
		id := pr.KeyID()
		if j, dup := keys[id]; dup {
			return policyErr(at+"/public_key", "the key of principal %d again (key id %s)", j, id)
		}
		keys[id] = i
		if pr.Name == "" {
			continue
		}
		switch j, dup := byName[pr.Name]; {
		case !utf8.ValidString(pr.Name):
			return policyErr(at+"/name", "not valid UTF-8")
		case len(pr.Name) > maxPrincipalName:
			return policyErr(at+"/name", "longer than %d bytes", maxPrincipalName)
		case dup:
			return policyErr(at+"/name", "the name of principal %d again", j)
		}
		byName[pr.Name] = i
	}
	switch a := p.MaxAuthorityAge; {
	case a < 0:
		return policyErr("/max_authority_age", "negative duration %v", a)
	case a > MaxAuthorityAgeLimit:
		return policyErr("/max_authority_age", "%v is longer than %v", a, MaxAuthorityAgeLimit)
	case a != 0 && len(p.Principals) == 0:
		return policyErr("/max_authority_age", "bounds the authority of principals, and the policy names none")
	}
	if err := p.validateElicitation(); err != nil {
		return err
	}
	return nil
}

// validateElicitation checks p.Elicitation: classes a policy can give,
// each once, only with principals.
func (p *Policy) validateElicitation() *PolicyError {
	if p.Elicitation == nil {
		return nil
	}
	if len(p.Principals) == 0 {
		return policyErr("/elicitation", "says when an elicited answer is authority in approvals, which need principals, and the policy names none")
	}
	for i, c := range p.Elicitation {
		if !c.valid() {
			return policyErr("/elicitation/"+strconv.Itoa(i), "invalid class %v", c)
		}
		if j := slices.Index(p.Elicitation, c); j < i {
			return policyErr("/elicitation/"+strconv.Itoa(i), "%v again (entry %d)", c, j)
		}
	}
	return nil
}

// elicits reports whether an elicited answer counts as authority for a
// tool of class c that the policy names.
func (p *Policy) elicits(c Class) bool {
	if p.Elicitation == nil {
		return slices.Contains(defaultElicitation, c)
	}
	return slices.Contains(p.Elicitation, c)
}

// class returns the class of tool and whether the policy names it.
func (p *Policy) class(tool string) (Class, bool) {
	c, ok := p.Tools[tool]
	if !ok {
		return Unconfigured, false
	}
	return c, true
}

// clone returns a deep copy of p.
func (p *Policy) clone() Policy {
	c := *p
	c.NumberProfiles = p.NumberProfiles.clone()
	if p.Tools != nil {
		c.Tools = make(map[string]Class, len(p.Tools))
		for name, cls := range p.Tools {
			c.Tools[name] = cls
		}
	}
	if p.Principals != nil {
		c.Principals = make([]Principal, len(p.Principals))
		for i, pr := range p.Principals {
			c.Principals[i] = Principal{Name: pr.Name, PublicKey: slices.Clone(pr.PublicKey)}
		}
	}
	c.Elicitation = slices.Clone(p.Elicitation)
	return c
}

// policyMembers are the members of a policy's JSON form, in the order the
// "want" of an unknown member names them.
const policyMembers = "policy_version, server, threshold, tools, number_profiles, principals, max_authority_age, elicitation"

// ParsePolicy reads a policy from its JSON form:
//
//	{
//	  "policy_version": "2026-12-01",
//	  "server": "mcp://travel.example",
//	  "threshold": "FINANCIAL",
//	  "tools": {"search_hotels": "READ_ONLY", "book_hotel": "FINANCIAL"},
//	  "number_profiles": {"classes": {"ORDINARY": "strict"}, "tools": {"geocode": "rfc8785"}},
//	  "principals": [{"name": "alice", "public_key": "MCowBQYDK2VwAyEA..."}],
//	  "max_authority_age": "5m",
//	  "elicitation": ["ORDINARY", "FINANCIAL"]
//	}
//
// policy_version (a string) and tools are required; server, threshold,
// number_profiles, principals and max_authority_age may be omitted.
// number_profiles (NumberProfiles) has classes, by class name, and tools,
// by tool name, each optional, whose values are "strict" or "rfc8785".
// A principal's public_key is its Ed25519 public key in the form bbdigest keygen writes
// to KEYFILE.pub (receipt.MarshalPublicKey: base64url without padding of
// the SubjectPublicKeyInfo DER), spelt exactly so; name is optional.
// max_authority_age is a Go duration ("90s", "5m"), allowed only with
// principals. elicitation is an array of class names, each once (Policy.Elicitation;
// [] for none), allowed only with principals.
//
// The text must be one JSON object with exactly these members (a misspelt
// member is an error, not ignored), no duplicate member names at any
// level, every member of its type (null is no string), and a valid policy
// (Validate). An error is a *PolicyError naming the member at fault by its
// JSON Pointer, or, for text that is not JSON or has a duplicate name, the
// *canon.Error (with its own pointer) wrapped.
func ParsePolicy(src []byte) (*Policy, error) {
	if err := canon.Validate(src, canon.RFC8785); err != nil {
		return nil, fmt.Errorf("gate: policy: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(src, &members); err != nil || members == nil {
		return nil, policyErr("", "not a JSON object")
	}
	p := new(Policy)
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	sort.Strings(names) // the first error is the same on every run
	for _, name := range names {
		raw := members[name]
		at := "/" + pointerEscaper.Replace(name)
		var err *PolicyError
		switch name {
		case "policy_version":
			p.Version, err = policyString(at, raw)
		case "server":
			p.Server, err = policyString(at, raw)
		case "threshold":
			var s string
			if s, err = policyString(at, raw); err == nil {
				var ok bool
				if p.Threshold, ok = lookupClass(s); !ok {
					err = policyErr(at, "%s", unknownClass(s))
				}
			}
		case "tools":
			p.Tools, err = parseTools(at, raw)
		case "number_profiles":
			p.NumberProfiles, err = parseNumberProfiles(at, raw)
		case "principals":
			p.Principals, err = parsePrincipals(at, raw)
		case "elicitation":
			p.Elicitation, err = parseElicitation(at, raw)
		case "max_authority_age":
			var s string
			if s, err = policyString(at, raw); err == nil {
				var derr error
				if p.MaxAuthorityAge, derr = time.ParseDuration(s); derr != nil {
					err = policyErr(at, "not a duration such as \"5m\" or \"90s\": %q", s)
				} else if p.MaxAuthorityAge == 0 {
					err = policyErr(at, "zero: leave the member out for the default, %v", DefaultMaxAuthorityAge)
				}
			}
		default:
			err = policyErr(at, "unknown member (want %s)", policyMembers)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, ok := members["policy_version"]; !ok {
		return nil, policyErr("/policy_version", "required member missing")
	}
	if p.Tools == nil {
		return nil, policyErr("/tools", "required member missing")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// policyString reads raw, the value at pointer at, as a JSON string.
func policyString(at string, raw json.RawMessage) (string, *PolicyError) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", policyErr(at, "must be a string, not %s", jsonKind(raw))
	}
	return s, nil
}

// jsonKind names the type of the JSON value raw, with its article.
func jsonKind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// parseTools reads the tools member.
func parseTools(at string, raw json.RawMessage) (map[string]Class, *PolicyError) {
	var tools map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &tools) != nil {
		return nil, policyErr(at, "must be an object, not %s", jsonKind(raw))
	}
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make(map[string]Class, len(tools))
	for _, name := range names {
		tat := at + "/" + pointerEscaper.Replace(name)
		s, err := policyString(tat, tools[name])
		if err != nil {
			return nil, err
		}
		c, ok := lookupClass(s)
		if !ok {
			return nil, policyErr(tat, "%s", unknownClass(s))
		}
		out[name] = c
	}
	return out, nil
}

// parseElicitation reads the elicitation member: an array of class names.
func parseElicitation(at string, raw json.RawMessage) ([]Class, *PolicyError) {
	var list []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, policyErr(at, "must be an array of class names, not %s", jsonKind(raw))
	}
	out := make([]Class, 0, len(list))
	for i, el := range list {
		eat := at + "/" + strconv.Itoa(i)
		s, err := policyString(eat, el)
		if err != nil {
			return nil, err
		}
		c, ok := lookupClass(s)
		if !ok {
			return nil, policyErr(eat, "%s", unknownClass(s))
		}
		out = append(out, c)
	}
	return out, nil
}

// parsePrincipals reads the principals member: an array of objects with a
// public_key and an optional name.
func parsePrincipals(at string, raw json.RawMessage) ([]Principal, *PolicyError) {
	var list []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, policyErr(at, "must be an array of principals, not %s", jsonKind(raw))
	}
	out := make([]Principal, 0, len(list))
	for i, el := range list {
		pat := at + "/" + strconv.Itoa(i)
		var members map[string]json.RawMessage
		if len(el) == 0 || el[0] != '{' || json.Unmarshal(el, &members) != nil {
			return nil, policyErr(pat, "must be an object {\"name\":...,\"public_key\":...}, not %s", jsonKind(el))
		}
		names := make([]string, 0, len(members))
		for name := range members {
			names = append(names, name)
		}
		sort.Strings(names)
		var pr Principal
		for _, name := range names {
			mat := pat + "/" + pointerEscaper.Replace(name)
			switch name {
			case "name":
				s, err := policyString(mat, members[name])
				if err != nil {
					return nil, err
				}
				if s == "" {
					return nil, policyErr(mat, "empty: leave the member out for a principal without a name")
				}
				pr.Name = s
			case "public_key":
				s, err := policyString(mat, members[name])
				if err != nil {
					return nil, err
				}
				pub, kerr := receipt.ParsePublicKey([]byte(s))
				if kerr != nil {
					reason := kerr.Error() // ParsePublicKey's errors are *KeyErrors
					if ke, ok := errors.AsType[*receipt.KeyError](kerr); ok {
						reason = "public key: " + ke.Reason
					}
					return nil, policyErr(mat, "%s", reason)
				}
				// ParsePublicKey also reads PEM and skips space around the
				// key, for key files; a policy has one spelling of a key.
				if receipt.MarshalPublicKey(pub) != s {
					return nil, policyErr(mat, "not in the form 'bbdigest keygen' writes to KEYFILE.pub (base64url without padding of the SubjectPublicKeyInfo DER, nothing around it)")
				}
				pr.PublicKey = pub
			default:
				return nil, policyErr(mat, "unknown member (want name, public_key)")
			}
		}
		if pr.PublicKey == nil {
			return nil, policyErr(pat+"/public_key", "required member missing")
		}
		out = append(out, pr)
	}
	return out, nil
}

// MarshalJSON returns p in the JSON form ParsePolicy reads (threshold,
// server, number_profiles, principals and max_authority_age left out when
// zero, and number_profiles' classes and tools when empty), so that
// ParsePolicy(MarshalJSON(p)) is p for a valid p. It fails for a policy
// that Validate refuses.
func (p Policy) MarshalJSON() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	type principal struct {
		Name      string `json:"name,omitempty"`
		PublicKey string `json:"public_key"`
	}
	out := struct {
		Version    string           `json:"policy_version"`
		Server     string           `json:"server,omitempty"`
		Threshold  Class            `json:"threshold,omitempty"`
		Tools      map[string]Class `json:"tools"`
		Profiles   *profilesJSON    `json:"number_profiles,omitempty"`
		Principals []principal      `json:"principals,omitempty"`
		MaxAge     string           `json:"max_authority_age,omitempty"`
		Elicit     *[]Class         `json:"elicitation,omitempty"`
	}{Version: p.Version, Server: p.Server, Threshold: p.Threshold, Tools: p.Tools, Profiles: p.NumberProfiles.toJSON()}
	if out.Tools == nil {
		out.Tools = map[string]Class{}
	}
	for _, pr := range p.Principals {
		out.Principals = append(out.Principals, principal{pr.Name, receipt.MarshalPublicKey(pr.PublicKey)})
	}
	if p.MaxAuthorityAge != 0 {
		out.MaxAge = p.MaxAuthorityAge.String()
	}
	if p.Elicitation != nil { // [] is written: it means none, and nil the default
		out.Elicit = &p.Elicitation
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, errors.New("gate: policy: " + err.Error())
	}
	return b, nil
}
