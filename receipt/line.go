package receipt

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"strconv"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// The checks of one receipt line, shared by Verify (on batch's workers),
// Open (the last record) and the fuzz targets. A line must be exactly its
// own JCS form before any of its members is read (notCanonical), so the
// reader (internal/jsonread, see json.go) sees only canonical bytes.

// verifier checks lines against one public key.
type verifier struct {
	pub      ed25519.PublicKey
	keyID    string
	idPrefix string // receiptIDPrefix(keyID)
}

func newVerifier(pub ed25519.PublicKey) *verifier {
	id := KeyID(pub)
	return &verifier{pub: pub, keyID: id, idPrefix: receiptIDPrefix(id)}
}

// notCanonical compares line with its canonical form c, given or computed,
// and describes the first difference.
func notCanonical(line, c []byte) *lineError {
	if c == nil {
		var err error
		if c, err = canon.Canonicalize(line, canon.Strict); err != nil {
			return notJSON(err)
		}
	}
	if bytes.Equal(line, c) {
		return nil
	}
	i := 0
	for i < len(line) && i < len(c) && line[i] == c[i] {
		i++
	}
	return &lineError{what: fmt.Sprintf("not in canonical form (JCS): differs from it at byte %d of the line", i), err: ErrNotCanonical}
}

// notJSON wraps canon's rejection of a line.
func notJSON(err error) *lineError {
	return &lineError{what: "not JSON under the strict profile: " + err.Error(), err: fmt.Errorf("%w: %w", ErrMalformed, err)}
}

// check verifies one canonical line completely but for its place in the
// chain, and fills p with its payload: the document's shape, the
// payload's members, key_id and receipt_id, and the signature.
func (v *verifier) check(line []byte, p *Payload) *lineError {
	payload, sig, le := splitDocument(line, false)
	if le != nil {
		return le
	}
	if le := decodePayload(payload, p); le != nil {
		le.seq = p.Seq
		return le
	}
	if p.KeyID != v.keyID {
		return &lineError{what: fmt.Sprintf("key_id %s is not the verifying key's %s", p.KeyID, v.keyID), err: ErrKeyID, seq: p.Seq}
	}
	if want := v.idPrefix + strconv.FormatUint(p.Seq, 10); p.ReceiptID != want {
		return &lineError{what: fmt.Sprintf("receipt_id %q is not %q (from key_id and seq)", p.ReceiptID, want), err: ErrKeyID, seq: p.Seq}
	}
	if !ed25519.Verify(v.pub, payload, sig) {
		return &lineError{what: "signature does not verify under the key " + v.keyID, err: ErrSignature, seq: p.Seq}
	}
	return nil
}

// splitDocument reads a canonical EP-RECEIPT-v1 document and returns its
// payload object (as it lies in doc: its JCS form) and its signature. With
// anchor, an "anchor" member is allowed and returned (VerifyEP); a receipt
// line has none.
func splitDocument(doc []byte, anchorOK bool) (payload, sig []byte, le *lineError) {
	payload, sig, _, le = splitEP(doc, anchorOK)
	return payload, sig, le
}

func splitEP(doc []byte, anchorOK bool) (payload, sig, anchor []byte, le *lineError) {
	bad := func(err error, format string, args ...any) ([]byte, []byte, []byte, *lineError) {
		return nil, nil, nil, &lineError{what: fmt.Sprintf(format, args...), err: err}
	}
	m := jsonread.Object(doc, 0)
	var version, sigObj []byte
	for m.Next() {
		name, v := m.Name(), m.Value()
		switch string(name) {
		case "@version":
			version = v
		case "payload":
			payload = v
		case "signature":
			sigObj = v
		case "anchor":
			if !anchorOK {
				return bad(ErrMalformed, "unknown member %q in the document", name)
			}
			anchor = v
		default:
			return bad(ErrMalformed, "unknown member %q in the document", name)
		}
	}
	switch {
	case m.Close() != len(doc):
		return bad(ErrMalformed, "the document is not a JSON object")
	case version == nil:
		return bad(ErrMalformed, `the document has no "@version"`)
	case !isString(version, Version):
		return bad(ErrVersion, "@version %.60s is not %q", version, Version)
	case payload == nil:
		return bad(ErrMalformed, `the document has no "payload"`)
	case !isObject(payload):
		return bad(ErrMalformed, "payload is not an object")
	case sigObj == nil:
		return bad(ErrMalformedSignature, `the document has no "signature"`)
	case anchor != nil && !isObject(anchor):
		return bad(ErrAnchor, "anchor is not an object")
	}
	sm := jsonread.Object(sigObj, 0)
	var alg, value []byte
	for sm.Next() {
		name, v := sm.Name(), sm.Value()
		switch string(name) {
		case "algorithm":
			alg = v
		case "value":
			value = v
		default:
			return bad(ErrMalformed, "unknown member %q in the signature", name)
		}
	}
	switch {
	case sm.Close() != len(sigObj):
		return bad(ErrMalformedSignature, "signature is not an object")
	case alg == nil:
		return bad(ErrAlgorithm, `the signature has no "algorithm"`)
	case !isString(alg, Algorithm):
		return bad(ErrAlgorithm, "signature algorithm %.60s is not %q", alg, Algorithm)
	case value == nil:
		return bad(ErrMalformedSignature, "the signature has no value")
	}
	s, ok := jsonread.Unquote(value)
	if !ok {
		return bad(ErrMalformedSignature, "the signature value is not a string")
	}
	// encoding/base64 skips "\r" and "\n" even in strict mode, so a value
	// with line breaks in it (JSON escapes in the document) would decode
	// to the same bytes: another spelling of the document, refused.
	if strings.ContainsAny(s, "\r\n") {
		return bad(ErrMalformedSignature, "the signature value holds a line break, not base64url")
	}
	raw, err := b64.DecodeString(s)
	if err != nil {
		return bad(ErrMalformedSignature, "the signature value is not base64url without padding: %v", err)
	}
	if len(raw) != ed25519.SignatureSize {
		return bad(ErrMalformedSignature, "the signature value holds %d bytes, not %d", len(raw), ed25519.SignatureSize)
	}
	return payload, raw, anchor, nil
}

// isObject reports whether the value v is an object.
func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// seqHint returns the seq of a line that did not verify, if a plain
// "seq":N can be found in it, for the error message only.
func seqHint(line []byte) uint64 {
	i := bytes.Index(line, []byte(`"seq":`))
	if i < 0 {
		return 0
	}
	j := i + len(`"seq":`)
	k := j
	for k < len(line) && k-j < 16 && '0' <= line[k] && line[k] <= '9' {
		k++
	}
	n, ok := parseInt(line[j:k])
	if !ok || n < 1 {
		return 0
	}
	return uint64(n)
}
