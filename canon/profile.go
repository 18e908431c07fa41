package canon

import (
	"errors"
	"fmt"
)

// DefaultMaxSize is the input size bound of the predefined profiles: 256 MiB.
const DefaultMaxSize = 256 << 20

// StrictMaxDepth is the nesting bound of the strict profile (envelope draft
// §6.3, EP §13.12): the outermost container is depth 1, 64 is accepted and
// 65 is rejected.
const StrictMaxDepth = 64

// DefaultRFC8785MaxDepth is the default nesting bound of the rfc8785 profile.
const DefaultRFC8785MaxDepth = 1000

// Profile selects the canonicalization rules. The zero Profile is the strict
// profile. Profiles are small values, compared with ==, and validated when
// they are built, so a Profile in hand is always usable.
type Profile struct {
	rfc8785  bool // false: strict integer profile
	maxDepth int  // 0: the profile's default
	maxSize  int  // 0: DefaultMaxSize
}

var (
	// Strict is the profile of draft-morrison-binding-moment-envelope-04
	// §6.3 (EP §13.12): RFC 8785 restricted to integers with |n| <= 2^53-1
	// judged by their exact decimal value, nesting at most 64.
	Strict = Profile{}

	// RFC8785 is plain RFC 8785 over I-JSON: every number that is a finite
	// IEEE-754 double after correct rounding, written as ECMAScript's
	// Number.prototype.toString; nesting at most DefaultRFC8785MaxDepth.
	RFC8785 = Profile{rfc8785: true}
)

// ProfileByName returns the profile called name: "strict" or "rfc8785".
func ProfileByName(name string) (Profile, error) {
	switch name {
	case "strict":
		return Strict, nil
	case "rfc8785":
		return RFC8785, nil
	}
	return Profile{}, fmt.Errorf("canon: unknown profile %q (want strict or rfc8785)", name)
}

// Name returns "strict" or "rfc8785".
func (p Profile) Name() string {
	if p.rfc8785 {
		return "rfc8785"
	}
	return "strict"
}

// IntegersOnly reports whether the profile accepts only safe integers.
func (p Profile) IntegersOnly() bool { return !p.rfc8785 }

// MaxDepth returns the deepest container nesting the profile accepts.
func (p Profile) MaxDepth() int {
	switch {
	case p.maxDepth > 0:
		return p.maxDepth
	case p.rfc8785:
		return DefaultRFC8785MaxDepth
	}
	return StrictMaxDepth
}

// MaxSize returns the longest input, in bytes, the profile accepts.
func (p Profile) MaxSize() int {
	if p.maxSize > 0 {
		return p.maxSize
	}
	return DefaultMaxSize
}

// WithMaxDepth returns p with its nesting bound set to n (n >= 1). The strict
// profile's bound is part of its definition and cannot be changed; asking
// for any other value is an error. The receiver is unchanged.
func (p Profile) WithMaxDepth(n int) (Profile, error) {
	if n < 1 || n > 1<<24 {
		return p, fmt.Errorf("canon: max depth %d out of range [1, %d]", n, 1<<24)
	}
	if !p.rfc8785 && n != StrictMaxDepth {
		return p, errors.New("canon: the strict profile's depth bound is fixed at 64")
	}
	p.maxDepth = n
	return p, nil
}

// WithMaxSize returns p with its input size bound set to n bytes (n >= 1).
// Longer inputs are rejected with class too-large before any work is done on
// them. The receiver is unchanged.
func (p Profile) WithMaxSize(n int) (Profile, error) {
	if n < 1 {
		return p, fmt.Errorf("canon: max size %d out of range", n)
	}
	p.maxSize = n
	return p, nil
}
