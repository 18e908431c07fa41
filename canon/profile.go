package canon

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// DefaultMaxSize is the input size bound of the predefined profiles: 256 MiB.
const DefaultMaxSize = 256 << 20

// MaxSizeLimit is the largest input size bound [Profile.WithMaxSize]
// accepts: 768 MiB. The engine keeps positions in the input and in the
// output in 32 bits, to keep its per-member records small, and the output
// of n bytes of input is at most 5.25n bytes (1e20 is written with 21
// digits), below 2^32 for n up to this bound.
const MaxSizeLimit = 768 << 20

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

// ProfileByName returns the profile called name: "strict" or "rfc8785",
// in any mix of ASCII upper and lower case.
func ProfileByName(name string) (Profile, error) {
	for _, p := range [...]Profile{Strict, RFC8785} {
		if jsonread.EqualFoldASCII(name, p.Name()) { // "ſtrict" (with U+017F) is not "strict"
			return p, nil
		}
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

// String returns the profile's name, followed by the bounds that differ
// from the profile's defaults, e.g. "strict", "rfc8785" or
// "rfc8785(max-depth=2000,max-size=1048576)".
func (p Profile) String() string {
	b := []byte(p.Name())
	sep := byte('(')
	if p.rfc8785 && p.MaxDepth() != DefaultRFC8785MaxDepth {
		b = append(append(b, sep), "max-depth="...)
		b = strconv.AppendInt(b, int64(p.MaxDepth()), 10)
		sep = ','
	}
	if p.MaxSize() != DefaultMaxSize {
		b = append(append(b, sep), "max-size="...)
		b = strconv.AppendInt(b, int64(p.MaxSize()), 10)
		sep = ','
	}
	if sep == ',' {
		b = append(b, ')')
	}
	return string(b)
}

// IntegersOnly reports whether the profile accepts only safe integers.
func (p Profile) IntegersOnly() bool { return !p.rfc8785 }

// MaxDepth returns the deepest container nesting the profile accepts.
func (p Profile) MaxDepth() int {
	if p.maxDepth > 0 {
		return p.maxDepth
	}
	return p.defaultMaxDepth()
}

// defaultMaxDepth is the nesting bound of p's predefined profile.
func (p Profile) defaultMaxDepth() int {
	if p.rfc8785 {
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
// for any other value is an error. The receiver is unchanged. Setting the
// bound to its default gives the predefined profile (== Strict or RFC8785
// when no other bound is set).
func (p Profile) WithMaxDepth(n int) (Profile, error) {
	if n < 1 || n > 1<<24 {
		return p, fmt.Errorf("canon: max depth %d out of range [1, %d]", n, 1<<24)
	}
	if !p.rfc8785 && n != StrictMaxDepth {
		return p, errors.New("canon: the strict profile's depth bound is fixed at 64")
	}
	p.maxDepth = n
	if n == p.defaultMaxDepth() {
		p.maxDepth = 0 // so that the result == the predefined profile
	}
	return p, nil
}

// WithMaxSize returns p with its input size bound set to n bytes
// (1 <= n <= MaxSizeLimit).
// Longer inputs are rejected with class too-large before any work is done on
// them. The receiver is unchanged. Setting DefaultMaxSize gives the
// predefined profile (== Strict or RFC8785 when no other bound is set).
func (p Profile) WithMaxSize(n int) (Profile, error) {
	if n < 1 || n > MaxSizeLimit {
		return p, fmt.Errorf("canon: max size %d out of range [1, %d]", n, MaxSizeLimit)
	}
	p.maxSize = n
	if n == DefaultMaxSize {
		p.maxSize = 0 // so that the result == the predefined profile
	}
	return p, nil
}
