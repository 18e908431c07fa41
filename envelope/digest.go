package envelope

import "github.com/bbdigest/bbdigest/hashing"

// Digest returns the envelope digest (§6.2) of the binding_moment carried
// by src: Parse, then [Envelope.Digest]. It fails as Parse does, so a
// malformed envelope has no digest here; bbdigest.Digest hashes any JSON
// text.
func Digest(src []byte) (hashing.Digest, error) {
	e, err := Parse(src)
	if err != nil {
		return hashing.Digest{}, err
	}
	return e.Digest(), nil
}
