package gate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
)

// Policy is the host's configuration of a gate: the consequence class of
// each tool, the threshold at and above which a call needs authority, the
// server identity its acts bind, and a version that every receipt names.
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
}

// threshold returns the effective threshold.
func (p *Policy) threshold() Class {
	if p.Threshold == 0 {
		return Financial
	}
	return p.Threshold
}

// Validate reports what makes p unusable: a threshold above Financial or not
// a class, a tool with an empty name, or a tool whose class is not one of the
// five.
func (p *Policy) Validate() error {
	if p == nil {
		return fmt.Errorf("gate: no policy")
	}
	if t := p.threshold(); !t.valid() || t > Financial {
		return fmt.Errorf("gate: policy threshold %v: must be READ_ONLY, ORDINARY or FINANCIAL (FINANCIAL and above are always fail-closed)", t)
	}
	names := make([]string, 0, len(p.Tools))
	for name := range p.Tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "" {
			return fmt.Errorf("gate: policy names a tool with an empty name")
		}
		if c := p.Tools[name]; !c.valid() {
			return fmt.Errorf("gate: policy tool %q: invalid class %v", name, c)
		}
	}
	return nil
}

// class returns the class of tool and whether the policy names it.
func (p *Policy) class(tool string) (Class, bool) {
	c, ok := p.Tools[tool]
	if !ok {
		return Unconfigured, false
	}
	return c, true
}

// ParsePolicy reads a policy from its JSON form:
//
//	{
//	  "policy_version": "2026-12-01",
//	  "server": "mcp://travel.example",
//	  "threshold": "FINANCIAL",
//	  "tools": {"search_hotels": "READ_ONLY", "book_hotel": "FINANCIAL"}
//	}
//
// server and threshold may be omitted. The text must be one JSON object with
// exactly these members (a misspelt member is an error, not ignored),
// no duplicate member names at any level, and a valid policy (Validate).
func ParsePolicy(src []byte) (*Policy, error) {
	if err := canon.Validate(src, canon.RFC8785); err != nil {
		return nil, fmt.Errorf("gate: policy: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(src, &members); err != nil {
		return nil, fmt.Errorf("gate: policy: not a JSON object: %w", err)
	}
	p := new(Policy)
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	sort.Strings(names) // the first error is the same on every run
	for _, name := range names {
		raw := members[name]
		var err error
		switch name {
		case "policy_version":
			err = json.Unmarshal(raw, &p.Version)
		case "server":
			err = json.Unmarshal(raw, &p.Server)
		case "threshold":
			var s string
			if err = json.Unmarshal(raw, &s); err == nil {
				p.Threshold, err = ParseClass(s)
			}
		case "tools":
			var tools map[string]string
			if err = json.Unmarshal(raw, &tools); err == nil {
				if tools == nil {
					err = fmt.Errorf("not an object")
					break
				}
				p.Tools = make(map[string]Class, len(tools))
				for tool, cls := range tools {
					c, cerr := ParseClass(cls)
					if cerr != nil {
						err = fmt.Errorf("tool %q: %w", tool, cerr)
						break
					}
					p.Tools[tool] = c
				}
			}
		default:
			err = fmt.Errorf("unknown member (want policy_version, server, threshold, tools)")
		}
		if err != nil {
			return nil, fmt.Errorf("gate: policy: %q: %s", name, strings.TrimPrefix(err.Error(), "gate: "))
		}
	}
	if _, ok := members["policy_version"]; !ok {
		return nil, fmt.Errorf("gate: policy: missing \"policy_version\"")
	}
	if p.Tools == nil {
		return nil, fmt.Errorf("gate: policy: missing \"tools\"")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}
