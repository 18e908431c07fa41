// Package bbdigest computes the digests that bind agent actions and
// binding-moment envelopes: SHA-256 over the JSON Canonicalization Scheme
// (RFC 8785) form of a JSON text, under the strict profile of
// draft-morrison-binding-moment-envelope-04 §6.3 unless told otherwise,
// written "sha256:" + 64 lowercase hex (§6.2).
//
// It is the one-call front of two packages that can also be used alone:
// [github.com/bbdigest/bbdigest/canon] (bytes in, canonical bytes out) and
// [github.com/bbdigest/bbdigest/hashing] (SHA-256 chosen by CPU features).
package bbdigest

import (
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// Digest returns the SHA-256 digest of the strict-profile canonical form of
// the JSON text src, or the *canon.Error that rejects it.
//
// Input that is already canonical is hashed where it lies, with no copy;
// otherwise the canonical bytes are written once, into pooled scratch
// memory, and hashed from there. Digest is safe for concurrent use.
func Digest(src []byte) (hashing.Digest, error) {
	return DigestProfile(src, canon.Strict)
}

// DigestProfile is [Digest] under profile p.
func DigestProfile(src []byte, p canon.Profile) (hashing.Digest, error) {
	c := getDigester(p)
	d, err := c.Digest(src)
	putDigester(c)
	return d, err
}

// Digester computes digests with a reusable [canon.Canonicalizer]: once warm,
// it does not allocate. It is not safe for concurrent use.
type Digester struct {
	c canon.Canonicalizer
}

// NewDigester returns a Digester for profile p.
func NewDigester(p canon.Profile) *Digester {
	d := &Digester{}
	d.c.Reset(p)
	return d
}

// Digest returns the digest of the canonical form of src under d's profile.
func (d *Digester) Digest(src []byte) (hashing.Digest, error) {
	out, err := d.c.View(src)
	if err != nil {
		return hashing.Digest{}, err
	}
	return hashing.Sum(out), nil
}
