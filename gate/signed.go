package gate

// This file is the signed resolution document: a principal's resolution of
// one envelope, bound to the act it authorizes and signed with the
// principal's Ed25519 key. The envelope draft defines no signature over a
// resolution (draft-morrison-binding-moment-envelope-04 §12.6: "The binding
// is therefore only as strong as whatever protects the resolution in
// transit and at rest"); the gate adds this one, so that a policy naming
// its principals accepts only a resolution that one of them made.
//
// It lives in gate, not envelope: it binds an envelope's resolution to an
// act (package act's digest) and names a key in receipt's key id form, and
// gate is the layer that imports envelope and receipt both (ARCHITECTURE.md;
// envelope and receipt are peers and import neither each other nor act).

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jsonread"
	"github.com/bbdigest/bbdigest/receipt"
)

// SignedResolutionVersion is the "@version" of a signed resolution
// document: its type and version, inside the bytes signed. No other
// document signed with Ed25519 in this module carries a member "@version"
// in its signed bytes (a receipt signs its payload object, which has no such
// member, and refuses one), so a signature over one kind never verifies as
// the other (TestSignedResolutionDomainSeparation).
const SignedResolutionVersion = "bbdigest-signed-resolution/v1"

// The members of a signed resolution document, in their canonical order.
const (
	memberVersion    = "@version"
	memberActDigest  = "act_digest"
	memberResolution = "binding_moment_resolution"
	memberEnvelope   = "envelope_digest"
	memberKeyID      = "key_id"
	memberSignature  = "signature"
	memberSignedAt   = "signed_at_ms"
)

var signedMembers = []string{memberVersion, memberActDigest, memberResolution, memberEnvelope, memberKeyID, memberSignature, memberSignedAt}

// maxSafeInteger is the strict profile's largest integer, 2^53-1.
const maxSafeInteger = 1<<53 - 1

// b64 is the base64url alphabet without padding, decoded strictly (the
// unused low bits of the last character must be zero), as receipt encodes
// signatures. It still skips "\r" and "\n", which ParseSignedResolution
// refuses before decoding.
var b64 = base64.RawURLEncoding.Strict()

// ErrUnsigned is wrapped by the error of ParseSignedResolution for a JSON
// object without a member "@version": not a signed resolution document (a
// resolution of §7.3, say).
var ErrUnsigned = errors.New("gate: not a signed resolution document (no \"@version\" member)")

// ErrBadSignature is wrapped by the error of SignedResolution.Verify when
// the signature does not verify under the key given.
var ErrBadSignature = errors.New("gate: the signature does not verify")

// SignedResolutionError reports why a signed resolution document is
// refused: Pointer is the JSON Pointer (RFC 6901) of the member at fault
// ("" for the whole document), and Err, when not nil, the error beneath (a
// *canon.Error, a *envelope.MalformedResolutionError, ErrUnsigned).
type SignedResolutionError struct {
	Pointer string
	Reason  string
	Err     error
}

// Error returns `gate: signed resolution: "POINTER": REASON`.
func (e *SignedResolutionError) Error() string {
	return "gate: signed resolution: " + strconv.Quote(e.Pointer) + ": " + e.Reason
}

// Unwrap returns Err.
func (e *SignedResolutionError) Unwrap() error { return e.Err }

func signedErr(pointer string, err error, format string, args ...any) *SignedResolutionError {
	return &SignedResolutionError{Pointer: pointer, Reason: fmt.Sprintf(format, args...), Err: err}
}

// SignedResolution is a signed resolution document as ParseSignedResolution
// reads it: a principal's selection of one option of one envelope, the act
// it authorizes, the key that signed it and when. Its signature is not
// checked until Verify. The document is
//
//	{
//	  "@version": "bbdigest-signed-resolution/v1",
//	  "act_digest": "sha256:<64 hex>",
//	  "binding_moment_resolution": {"envelope_digest": "sha256:<64 hex>",
//	                                "option_idx": 0, "resolution": "option"},
//	  "envelope_digest": "sha256:<64 hex>",
//	  "key_id": "sha256:<64 hex>",
//	  "signature": {"algorithm": "Ed25519", "value": "<86 base64url>"},
//	  "signed_at_ms": 1796209200000
//	}
//
// with exactly these members: binding_moment_resolution is the inner object
// of §7.3 (draft-morrison-binding-moment-envelope-04), a selection of an
// option (a decline, an answer or a question authorizes no act, and version
// 1 signs none); envelope_digest repeats its envelope digest, and
// act_digest is the digest of the act the option authorizes, which must be
// the option's action_digest (the gate checks it against the envelope, and
// the call's act against both); key_id names the signing key as receipts
// do ("sha256:" and the hex SHA-256 of its SubjectPublicKeyInfo DER);
// signed_at_ms is the signing time in Unix milliseconds, above 0 and at
// most 2^53-1. The signature is Ed25519 (RFC 8032) over the JCS bytes
// (RFC 8785, strict profile) of the document without its signature
// member; its value is the base64url encoding, without padding, of the 64
// signature bytes, with one spelling only: no padding, no line break, no
// other alphabet, no non-zero unused bits.
type SignedResolution struct {
	// Resolution is the principal's resolution: a selection (KindOption)
	// of option Resolution.OptionIdx of the envelope EnvelopeDigest names.
	Resolution envelope.Resolution
	// EnvelopeDigest names the envelope resolved.
	EnvelopeDigest hashing.Digest
	// ActDigest is the digest of the act the selected option authorizes.
	ActDigest hashing.Digest
	// KeyID names the key that signed the document.
	KeyID string
	// SignedAt is when the principal signed, by the principal's clock, to
	// the millisecond, in UTC.
	SignedAt time.Time

	inner     []byte // the canonical binding_moment_resolution object
	signed    []byte // the JCS bytes signed: the document without its signature
	signature []byte // 64 bytes
}

// ResolutionJSON returns the canonical JSON text of the document's
// binding_moment_resolution object (the bare inner form of §7.3 that
// envelope.ParseResolution reads), a copy.
func (s *SignedResolution) ResolutionJSON() []byte { return append([]byte(nil), s.inner...) }

// Verify reports whether the document is signed by pub: nil when pub's key
// id is the document's key_id and the signature verifies over the signed
// bytes; otherwise an error wrapping ErrBadSignature. pub must be
// ed25519.PublicKeySize bytes, else Verify reports an error.
func (s *SignedResolution) Verify(pub ed25519.PublicKey) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("gate: signed resolution: a public key of %d bytes, not %d", len(pub), ed25519.PublicKeySize)
	}
	if id := receipt.KeyID(pub); id != s.KeyID {
		return fmt.Errorf("%w: the document names key %s, the key given is %s", ErrBadSignature, s.KeyID, id)
	}
	if len(s.signature) != ed25519.SignatureSize || !ed25519.Verify(pub, s.signed, s.signature) {
		return fmt.Errorf("%w under key %s", ErrBadSignature, s.KeyID)
	}
	return nil
}

// ParseSignedResolution reads a signed resolution document (see
// SignedResolution) without checking its signature: that takes the
// principal's public key, and is Verify's.
//
// src is put through the canonicalization gate of the strict profile (no
// duplicate names, no unpaired surrogates, integers only) and read in its
// canonical form, which is also what the signature covers: the document may
// arrive re-spelt as JSON (other whitespace, member order or escapes, as a
// JSON-RPC hop may re-encode it), and still verifies, because its canonical
// form is the same. A JSON object without a member "@version" is refused
// with an error wrapping ErrUnsigned; any other departure from the format
// is a *SignedResolutionError naming the member at fault.
//
// The returned value does not alias src. ParseSignedResolution is safe for
// concurrent use.
func ParseSignedResolution(src []byte) (*SignedResolution, error) {
	doc, err := canon.Canonicalize(src, canon.Strict)
	if err != nil {
		pointer := ""
		if ce, ok := errors.AsType[*canon.Error](err); ok {
			pointer = ce.Pointer
		}
		return nil, signedErr(pointer, err, "%v", err)
	}
	if doc[0] != '{' {
		return nil, signedErr("", ErrUnsigned, "a JSON object is needed, not %s", jsonKind(doc))
	}
	members, ok := canonicalMembers(doc)
	if !ok {
		return nil, signedErr("", nil, "not a JSON object")
	}
	if _, ok := members[memberVersion]; !ok {
		return nil, signedErr("", ErrUnsigned, "no %q member: not a signed resolution document", memberVersion)
	}
	if v, err := signedString("/"+memberVersion, members[memberVersion]); err != nil {
		return nil, err
	} else if v != SignedResolutionVersion {
		return nil, signedErr("/"+memberVersion, nil, "%q, not %q", v, SignedResolutionVersion)
	}
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !isSignedMember(name) {
			return nil, signedErr("/"+pointerEscaper.Replace(name), nil, "unknown member (want %s)", strings.Join(signedMembers, ", "))
		}
	}
	for _, name := range signedMembers {
		if _, ok := members[name]; !ok {
			return nil, signedErr("/"+name, nil, "required member missing")
		}
	}

	s := new(SignedResolution)
	if s.ActDigest, err = signedDigest("/"+memberActDigest, members[memberActDigest]); err != nil {
		return nil, err
	}
	if s.EnvelopeDigest, err = signedDigest("/"+memberEnvelope, members[memberEnvelope]); err != nil {
		return nil, err
	}
	keyID, err := signedDigest("/"+memberKeyID, members[memberKeyID])
	if err != nil {
		return nil, err
	}
	s.KeyID = keyID.String()

	// The inner object is read as the bare form of §7.3, wrapped here, so
	// that an inner object that is itself a wrapper is an unknown member,
	// not a second accepted spelling.
	raw := members[memberResolution]
	if raw[0] != '{' {
		return nil, signedErr("/"+memberResolution, nil, "must be the object of §7.3, not %s", jsonKind(raw))
	}
	wrapped := make([]byte, 0, len(memberResolution)+len(raw)+5)
	wrapped = append(append(append(wrapped, `{"`+memberResolution+`":`...), raw...), '}')
	res, err := envelope.ParseResolution(wrapped)
	if err != nil {
		pointer, reason := "/"+memberResolution, err.Error()
		if me, ok := errors.AsType[*envelope.MalformedResolutionError](err); ok && len(me.Problems) > 0 {
			pointer += me.Problems[0].Pointer
			reason = me.Problems[0].Reason
		}
		return nil, signedErr(pointer, err, "%s", reason)
	}
	if res.Kind != envelope.KindOption {
		return nil, signedErr("/"+memberResolution+"/resolution", nil, "%q: a signed resolution selects an option (version 1 signs no other resolution: none authorizes an act)", res.Kind)
	}
	if res.EnvelopeDigest != s.EnvelopeDigest {
		return nil, signedErr("/"+memberEnvelope, nil, "%s, and the resolution names %s", s.EnvelopeDigest, res.EnvelopeDigest)
	}
	s.Resolution = *res
	s.inner = append([]byte(nil), raw...)

	ms, err := signedInteger("/"+memberSignedAt, members[memberSignedAt])
	if err != nil {
		return nil, err
	}
	s.SignedAt = time.UnixMilli(ms).UTC()

	if s.signature, err = parseSignatureMember("/"+memberSignature, members[memberSignature]); err != nil {
		return nil, err
	}

	// The signed bytes: the canonical document without its signature
	// member. The names are ASCII, so canonical order is byte order, and
	// every value is already canonical.
	s.signed = make([]byte, 0, len(doc))
	s.signed = append(s.signed, '{')
	for _, name := range signedMembers {
		if name == memberSignature {
			continue
		}
		if len(s.signed) > 1 {
			s.signed = append(s.signed, ',')
		}
		s.signed = append(append(append(append(s.signed, '"'), name...), '"', ':'), members[name]...)
	}
	s.signed = append(s.signed, '}')
	return s, nil
}

func isSignedMember(name string) bool {
	for _, m := range signedMembers {
		if m == name {
			return true
		}
	}
	return false
}

// signedString reads the canonical JSON value raw as a string.
func signedString(at string, raw json.RawMessage) (string, error) {
	s, ok := jsonread.Unquote(raw)
	if !ok {
		return "", signedErr(at, nil, "must be a string, not %s", jsonKind(raw))
	}
	return s, nil
}

// canonicalMembers returns the members of the canonical JSON object doc
// (canon's output: unique names, no whitespace), by name, with their
// values as they lie in doc; false if doc is not one object. It reads
// doc with internal/jsonread, as encoding/json would (FuzzReadVsCanon),
// without parsing it again.
func canonicalMembers(doc []byte) (map[string]json.RawMessage, bool) {
	m := make(map[string]json.RawMessage, len(signedMembers))
	it := jsonread.Object(doc, 0)
	for it.Next() {
		name, ok := jsonread.Unquote(it.QuotedName())
		if !ok {
			return nil, false
		}
		m[name] = it.Value()
	}
	return m, it.Close() == len(doc)
}

// signedDigest reads the canonical JSON value raw as a digest,
// "sha256:<64 lowercase hex>".
func signedDigest(at string, raw json.RawMessage) (hashing.Digest, error) {
	s, err := signedString(at, raw)
	if err != nil {
		return hashing.Digest{}, err
	}
	d, derr := hashing.ParseDigest(s)
	if derr != nil {
		return hashing.Digest{}, signedErr(at, derr, "not of the form sha256:<64 lowercase hex>")
	}
	return d, nil
}

// signedInteger reads the canonical JSON value raw as an integer above 0.
// The strict gate has already bounded it to 2^53-1 and written it as plain
// decimal digits.
func signedInteger(at string, raw json.RawMessage) (int64, error) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n <= 0 || n > maxSafeInteger {
		return 0, signedErr(at, nil, "must be an integer from 1 to 2^53-1 (Unix milliseconds), not %s", describeValue(raw))
	}
	return n, nil
}

// describeValue names the type of raw, or gives a number itself.
func describeValue(raw []byte) string {
	if k := jsonKind(raw); k != "a number" {
		return k
	}
	if len(raw) > 32 {
		return string(raw[:32]) + "..."
	}
	return string(raw)
}

// parseSignatureMember reads the signature member,
// {"algorithm":"Ed25519","value":"<base64url>"}, and returns the 64
// signature bytes. The value has one spelling: base64url without padding,
// strict, with no line break (which encoding/base64 would skip).
func parseSignatureMember(at string, raw json.RawMessage) ([]byte, error) {
	m, ok := canonicalMembers(raw)
	if raw[0] != '{' || !ok {
		return nil, signedErr(at, nil, "must be an object {\"algorithm\":\"Ed25519\",\"value\":...}, not %s", jsonKind(raw))
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name != "algorithm" && name != "value" {
			return nil, signedErr(at+"/"+pointerEscaper.Replace(name), nil, "unknown member (want algorithm, value)")
		}
	}
	for _, name := range []string{"algorithm", "value"} {
		if _, ok := m[name]; !ok {
			return nil, signedErr(at+"/"+name, nil, "required member missing")
		}
	}
	alg, err := signedString(at+"/algorithm", m["algorithm"])
	if err != nil {
		return nil, err
	}
	if alg != receipt.Algorithm {
		return nil, signedErr(at+"/algorithm", nil, "%q, not %q", alg, receipt.Algorithm)
	}
	value, err := signedString(at+"/value", m["value"])
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(value, "\r\n") {
		return nil, signedErr(at+"/value", nil, "holds a line break: not base64url")
	}
	sig, derr := b64.DecodeString(value)
	if derr != nil {
		return nil, signedErr(at+"/value", derr, "not base64url without padding: %v", derr)
	}
	if len(sig) != ed25519.SignatureSize {
		return nil, signedErr(at+"/value", nil, "%d bytes, not the %d of an Ed25519 signature", len(sig), ed25519.SignatureSize)
	}
	if b64.EncodeToString(sig) != value {
		// Unreachable with a strict decoder and no line breaks; kept so
		// that one spelling stays a checked fact, not an assumption.
		return nil, signedErr(at+"/value", nil, "not the one base64url spelling of its bytes")
	}
	return sig, nil
}

// SignResolution returns the signed resolution document (see
// SignedResolution) in which the principal holding priv selects option
// res.OptionIdx of env as authority for the act whose digest is actDigest,
// signed at now: the JCS bytes of the document, with its signature. It is
// what a principal's tool calls once the principal has chosen; a gate whose
// policy names the principal's public key accepts the document as the
// resolution of an Authority (Gate.Authorize).
//
// It refuses, and signs nothing, when res is not a selection (KindOption),
// names another envelope than env or an option env does not have, when
// actDigest is not that option's action_digest, when priv is not an Ed25519
// private key, or when now is not after 1970 or beyond 2^53-1 milliseconds.
// Only priv's seed is used: the public key, and so the key id, are derived
// from it again, as receipt.NewSigner does.
func SignResolution(env *envelope.Envelope, res *envelope.Resolution, actDigest hashing.Digest, priv ed25519.PrivateKey, now time.Time) ([]byte, error) {
	switch {
	case env == nil || env.NumOptions() == 0:
		return nil, errors.New("gate: sign resolution: no envelope")
	case res == nil:
		return nil, errors.New("gate: sign resolution: no resolution")
	case res.Kind != envelope.KindOption:
		return nil, fmt.Errorf("gate: sign resolution: the resolution is %q: only a selection of an option authorizes an act", res.Kind)
	case res.EnvelopeDigest != env.Digest():
		return nil, fmt.Errorf("gate: sign resolution: the resolution names envelope %s, not this envelope (%s)", res.EnvelopeDigest, env.Digest())
	case len(priv) != ed25519.PrivateKeySize:
		return nil, fmt.Errorf("gate: sign resolution: a private key of %d bytes, not the %d of an Ed25519 key", len(priv), ed25519.PrivateKeySize)
	}
	opt, ok := env.Option(res.OptionIdx)
	if !ok {
		return nil, fmt.Errorf("gate: sign resolution: option_idx %d is out of range: the envelope has %d options", res.OptionIdx, env.NumOptions())
	}
	if opt.ActionDigest != actDigest {
		return nil, fmt.Errorf("gate: sign resolution: the act digest %s is not the action_digest of option %d (%s)", actDigest, res.OptionIdx, opt.ActionDigest)
	}
	ms := now.UnixMilli()
	if ms <= 0 || ms > maxSafeInteger {
		return nil, fmt.Errorf("gate: sign resolution: signing time %v is outside 1970 to 2^53-1 milliseconds", now)
	}
	priv = ed25519.NewKeyFromSeed(priv.Seed())
	pub := priv.Public().(ed25519.PublicKey)

	wire, err := res.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("gate: sign resolution: %w", err)
	}
	var wrapper struct {
		Inner json.RawMessage `json:"binding_moment_resolution"`
	}
	if err := json.Unmarshal(wire, &wrapper); err != nil {
		panic("BUG: envelope.Resolution.MarshalJSON wrote " + string(wire))
	}
	doc := signedDoc{
		Version:        SignedResolutionVersion,
		ActDigest:      actDigest,
		Resolution:     wrapper.Inner,
		EnvelopeDigest: env.Digest(),
		KeyID:          receipt.KeyID(pub),
		SignedAtMS:     ms,
	}
	signed, err := doc.canonical()
	if err != nil {
		return nil, err
	}
	doc.Signature = &signatureValue{Algorithm: receipt.Algorithm, Value: b64.EncodeToString(ed25519.Sign(priv, signed))}
	return doc.canonical()
}

// signedDoc is a signed resolution document for SignResolution to write.
type signedDoc struct {
	Version        string          `json:"@version"`
	ActDigest      hashing.Digest  `json:"act_digest"`
	Resolution     json.RawMessage `json:"binding_moment_resolution"`
	EnvelopeDigest hashing.Digest  `json:"envelope_digest"`
	KeyID          string          `json:"key_id"`
	Signature      *signatureValue `json:"signature,omitempty"`
	SignedAtMS     int64           `json:"signed_at_ms"`
}

type signatureValue struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"value"`
}

// canonical returns the JCS bytes of d under the strict profile.
func (d *signedDoc) canonical() ([]byte, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("gate: sign resolution: %w", err)
	}
	if b, err = canon.Canonicalize(b, canon.Strict); err != nil {
		return nil, fmt.Errorf("gate: sign resolution: %w", err)
	}
	return b, nil
}
