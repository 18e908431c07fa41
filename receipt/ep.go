package receipt

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// AnchorAlgorithm is the one EP anchor algorithm VerifyEP accepts.
const AnchorAlgorithm = "EP-MERKLE-v2"

// maxProofSteps bounds an anchor's Merkle proof: a tree of 2^64 leaves.
const maxProofSteps = 64

// VerifyEP verifies one EP-RECEIPT-v1 document, as the EP conformance
// vectors carry it, against pub: any JSON text, canonicalized under the
// strict profile first (so a duplicate member name, a lone surrogate or a
// number the profile refuses makes it malformed); "@version" must be
// EP-RECEIPT-v1; "payload" an object, of any members (an EP payload, not
// only a LAVR one); "signature" exactly {"algorithm":"Ed25519","value":V}
// with V the base64url (no padding, strict) of 64 bytes that verify under
// pub over the JCS bytes of the payload; and "anchor", when present, an
// EP-MERKLE-v2 anchor (see verifyAnchor). No other member is accepted.
//
// It returns nil when the document verifies, else an *EPError wrapping one
// of ErrMalformed, ErrVersion, ErrAlgorithm, ErrMalformedSignature,
// ErrSignature, ErrLegacyAnchor, ErrAnchorUnbound or ErrAnchor (or none,
// for a public key of the wrong length).
func VerifyEP(doc []byte, pub ed25519.PublicKey) error {
	if len(pub) != ed25519.PublicKeySize {
		return &EPError{What: fmt.Sprintf("bad public key length %d", len(pub))}
	}
	c, err := canon.Canonicalize(doc, canon.Strict)
	if err != nil {
		return epError("", notJSON(err))
	}
	payload, sig, anchor, le := splitEP(c, true)
	if le != nil {
		return epError("", le)
	}
	if !ed25519.Verify(pub, payload, sig) {
		return epError("", &lineError{what: "signature does not verify under the key " + KeyID(pub), err: ErrSignature})
	}
	if anchor != nil {
		if le := verifyAnchor(anchor, payload); le != nil {
			return epError("anchor: ", le)
		}
	}
	return nil
}

// epError returns the *EPError of what the checks of a document found
// wrong, le, in the part that prefix names.
func epError(prefix string, le *lineError) *EPError {
	return &EPError{What: prefix + le.what, Err: le.err}
}

// verifyAnchor checks the canonical anchor object a against the JCS bytes
// of the payload:
//
//	{"alg":"EP-MERKLE-v2","leaf_hash":H,"merkle_proof":[{"hash":H,"position":"left"|"right"},...],"merkle_root":H}
//
// each H 64 lowercase hex digits. An anchor without "alg" is EP-MERKLE-v1,
// whose leaf is not bound to the payload: refused (ErrLegacyAnchor). The
// leaf is SHA-256(0x00 || JCS(payload)) in lowercase hex and must equal
// leaf_hash (else ErrAnchorUnbound); each step then hashes
// SHA-256(0x01 || left || right) over the lowercase hex strings as bytes,
// the step's hash on the side its position names and the running hash on
// the other, and the last must equal merkle_root (else ErrAnchor). This is
// EP's construction, not RFC 6962's, which hashes the raw 32-byte
// children.
func verifyAnchor(a, payload []byte) *lineError {
	bad := func(err error, format string, args ...any) *lineError {
		return &lineError{what: fmt.Sprintf(format, args...), err: err}
	}
	m := jsonread.Object(a, 0)
	var alg, leaf, proof, root []byte
	for m.Next() {
		name, v := m.Name(), m.Value()
		switch string(name) {
		case "alg":
			alg = v
		case "leaf_hash":
			leaf = v
		case "merkle_proof":
			proof = v
		case "merkle_root":
			root = v
		default:
			return bad(ErrAnchor, "unknown member %q", name)
		}
	}
	switch {
	case m.Close() != len(a):
		return bad(ErrAnchor, "not an object")
	case alg == nil:
		return bad(ErrLegacyAnchor, "no \"alg\": an EP-MERKLE-v1 anchor, not bound to the payload")
	case !isString(alg, AnchorAlgorithm):
		return bad(ErrAnchor, "alg %.60s is not %q", alg, AnchorAlgorithm)
	case !isHexString(leaf):
		return bad(ErrAnchor, "leaf_hash is not 64 lowercase hex digits")
	case !isHexString(root):
		return bad(ErrAnchor, "merkle_root is not 64 lowercase hex digits")
	case proof == nil || proof[0] != '[':
		return bad(ErrAnchor, "merkle_proof is not an array")
	}
	h := sha256.New()
	h.Write([]byte{0x00})
	h.Write(payload)
	var cur [64]byte
	var sum [32]byte
	hex.Encode(cur[:], h.Sum(sum[:0]))
	if string(cur[:]) != string(leaf[1:65]) {
		return bad(ErrAnchorUnbound, "leaf_hash %s is not SHA-256(0x00 || JCS(payload)) = %s", leaf[1:65], cur[:])
	}
	steps := jsonread.Array(proof, 0)
	n := 0
	for steps.Elem() {
		step := steps.Value()
		if n++; n > maxProofSteps {
			return bad(ErrAnchor, "merkle_proof has more than %d steps", maxProofSteps)
		}
		sm := jsonread.Object(step, 0)
		var hash, pos []byte
		for sm.Next() {
			name, v := sm.Name(), sm.Value()
			switch string(name) {
			case "hash":
				hash = v
			case "position":
				pos = v
			default:
				return bad(ErrAnchor, "merkle_proof[%d]: unknown member %q", n-1, name)
			}
		}
		if sm.Close() != len(step) || !isHexString(hash) {
			return bad(ErrAnchor, "merkle_proof[%d] is not {\"hash\":<64 lowercase hex>,\"position\":...}", n-1)
		}
		h.Reset()
		h.Write([]byte{0x01})
		switch {
		case isString(pos, "right"):
			h.Write(cur[:])
			h.Write(hash[1:65])
		case isString(pos, "left"):
			h.Write(hash[1:65])
			h.Write(cur[:])
		default:
			return bad(ErrAnchor, "merkle_proof[%d]: position is not \"left\" or \"right\"", n-1)
		}
		hex.Encode(cur[:], h.Sum(sum[:0]))
	}
	if steps.Close() != len(proof) {
		return bad(ErrAnchor, "merkle_proof is not an array")
	}
	if string(cur[:]) != string(root[1:65]) {
		return bad(ErrAnchor, "the proof reaches %s, not merkle_root %s", cur[:], root[1:65])
	}
	return nil
}

// isHexString reports whether v is a JSON string of 64 lowercase hex
// digits.
func isHexString(v []byte) bool {
	if len(v) != 66 || v[0] != '"' || v[65] != '"' {
		return false
	}
	_, err := hashing.ParseHex(v[1:65])
	return err == nil
}
