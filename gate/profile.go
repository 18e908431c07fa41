package gate

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/bbdigest/bbdigest/canon"
)

// NumberProfiles chooses the number profile that the acts of each tool are
// read under (package act, Profiles): canon.Strict, whose numbers are
// integers of magnitude at most 2^53-1, or canon.RFC8785, which takes any
// number RFC 8785 does (a READ_ONLY lookup taking {"lat":47.37}). The act
// records its profile, so its digest, and the receipt's act_digest, say
// which one a call was read under.
//
// A tool's profile is its entry in Tools, else its class's entry in
// Classes, else the default: rfc8785 below the policy's threshold, strict
// at or above it. A tool the policy does not name is Unconfigured, and
// strict. rfc8785 is refused (Validate) for a class or a tool at or above
// the threshold: a call that needs authority is bound by its act, which an
// envelope option's action_digest names, and the envelope draft (§5.6,
// §6.3) admits only actions in the strict profile; a fraction has no
// strict act to approve.
type NumberProfiles struct {
	// Classes gives the profile of the tools of a class, by the class.
	Classes map[Class]canon.Profile
	// Tools gives the profile of one tool, by its name as calls carry it,
	// over its class's.
	Tools map[string]canon.Profile
}

// NumberProfile returns the profile that the acts of the tool named tool
// are read under (see NumberProfiles): canon.Strict or canon.RFC8785 for
// a valid policy.
func (p *Policy) NumberProfile(tool string) canon.Profile {
	if pr, ok := p.NumberProfiles.Tools[tool]; ok {
		return pr
	}
	return p.classProfile(p.classOf(tool))
}

// classOf returns the class of tool, Unconfigured for one the policy does
// not name.
func (p *Policy) classOf(tool string) Class {
	c, _ := p.class(tool)
	return c
}

// classProfile returns the profile of the tools of class c that
// NumberProfiles.Tools does not name.
func (p *Policy) classProfile(c Class) canon.Profile {
	if pr, ok := p.NumberProfiles.Classes[c]; ok {
		return pr
	}
	if c < p.threshold() {
		return canon.RFC8785
	}
	return canon.Strict
}

// validateProfiles reports what makes p.NumberProfiles unusable: a class
// that is not one of the five, a tool with an empty name, a profile other
// than canon.Strict and canon.RFC8785, rfc8785 at or above the threshold.
func (p *Policy) validateProfiles() *PolicyError {
	const at = "/number_profiles"
	classes := slices.Sorted(maps.Keys(p.NumberProfiles.Classes))
	for _, c := range classes {
		cat := at + "/classes/" + c.String()
		if !c.valid() {
			return policyErr(cat, "invalid class %v", c)
		}
		if err := p.checkProfile(cat, p.NumberProfiles.Classes[c], c, "class "+c.String()); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.NumberProfiles.Tools)) {
		if name == "" {
			return policyErr(at+"/tools/", "a tool with an empty name")
		}
		tat := at + "/tools/" + pointerEscaper.Replace(name)
		c, named := p.class(name)
		what := "tool " + jsonQuote(name) + ", " + c.String()
		if !named {
			what = "tool " + jsonQuote(name) + ", which tools does not name (" + c.String() + ")"
		}
		if err := p.checkProfile(tat, p.NumberProfiles.Tools[name], c, what); err != nil {
			return err
		}
	}
	return nil
}

// checkProfile refuses pr, the profile at pointer at for the tools of
// class c (what names them), unless it is canon.Strict, or canon.RFC8785
// below the threshold.
func (p *Policy) checkProfile(at string, pr canon.Profile, c Class, what string) *PolicyError {
	switch {
	case pr != canon.Strict && pr != canon.RFC8785:
		return policyErr(at, "profile %v: want strict or rfc8785 (canon.Strict, canon.RFC8785)", pr)
	case pr == canon.RFC8785 && c >= p.threshold():
		return policyErr(at, "rfc8785 for %s, at or above the threshold %v: a call that needs authority is bound by its act in the strict profile (an envelope's action_digest is a strict digest, §6.3)", what, p.threshold())
	}
	return nil
}

// jsonQuote writes s as a JSON string, as a policy spells a tool's name.
func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// parseNumberProfiles reads the number_profiles member: an object with
// classes (class name to profile name) and tools (tool name to profile
// name), each optional.
func parseNumberProfiles(at string, raw json.RawMessage) (NumberProfiles, *PolicyError) {
	var np NumberProfiles
	members, err := policyObject(at, raw, `{"classes":{...},"tools":{...}}`)
	if err != nil {
		return np, err
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		mat := at + "/" + pointerEscaper.Replace(name)
		entries, err := policyObject(mat, members[name], `{"NAME":"strict"|"rfc8785",...}`)
		if err != nil {
			return np, err
		}
		switch {
		case name != "classes" && name != "tools":
			return np, policyErr(mat, "unknown member (want classes, tools)")
		case len(entries) == 0: // nil, as MarshalJSON leaves it out
		case name == "classes":
			np.Classes = make(map[Class]canon.Profile, len(entries))
		default:
			np.Tools = make(map[string]canon.Profile, len(entries))
		}
		for _, key := range slices.Sorted(maps.Keys(entries)) {
			eat := mat + "/" + pointerEscaper.Replace(key)
			s, err := policyString(eat, entries[key])
			if err != nil {
				return np, err
			}
			var pr canon.Profile
			switch s {
			case "strict":
				pr = canon.Strict
			case "rfc8785":
				pr = canon.RFC8785
			default:
				return np, policyErr(eat, "unknown number profile %q (want strict or rfc8785)", s)
			}
			if name == "tools" {
				np.Tools[key] = pr
				continue
			}
			c, ok := lookupClass(key)
			if !ok {
				return np, policyErr(eat, "%s", unknownClass(key))
			}
			np.Classes[c] = pr
		}
	}
	return np, nil
}

// policyObject reads raw, the value at pointer at, as a JSON object, whose
// form want shows.
func policyObject(at string, raw json.RawMessage, want string) (map[string]json.RawMessage, *PolicyError) {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, policyErr(at, "must be an object %s, not %s", want, jsonKind(raw))
	}
	return m, nil
}

// toJSON returns the JSON form of np, nil when it sets nothing.
func (np NumberProfiles) toJSON() *profilesJSON {
	if len(np.Classes) == 0 && len(np.Tools) == 0 {
		return nil
	}
	out := &profilesJSON{}
	if len(np.Classes) > 0 {
		out.Classes = make(map[Class]string, len(np.Classes))
		for c, pr := range np.Classes {
			out.Classes[c] = pr.Name()
		}
	}
	if len(np.Tools) > 0 {
		out.Tools = make(map[string]string, len(np.Tools))
		for name, pr := range np.Tools {
			out.Tools[name] = pr.Name()
		}
	}
	return out
}

// profilesJSON is the number_profiles member as MarshalJSON writes it.
type profilesJSON struct {
	Classes map[Class]string  `json:"classes,omitempty"`
	Tools   map[string]string `json:"tools,omitempty"`
}

// clone returns a deep copy of np.
func (np NumberProfiles) clone() NumberProfiles {
	return NumberProfiles{Classes: maps.Clone(np.Classes), Tools: maps.Clone(np.Tools)}
}
