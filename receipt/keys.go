package receipt

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strconv"
)

// b64 is the base64url alphabet without padding, strict: the unused low
// bits of the last character must be zero, so that no flipped bit there
// goes unnoticed. It still skips "\r" and "\n" anywhere in its input, so
// a value has exactly one spelling only once those are refused too (as
// splitEP does for a signature value).
var b64 = base64.RawURLEncoding.Strict()

// spkiPrefix is the DER of an Ed25519 SubjectPublicKeyInfo (RFC 8410,
// section 4) before the 32 key bytes: SEQUENCE { SEQUENCE { OID
// 1.3.101.112 }, BIT STRING }.
var spkiPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

// spki returns the SubjectPublicKeyInfo DER of pub, as
// x509.MarshalPKIXPublicKey writes it.
func spki(pub ed25519.PublicKey) []byte {
	return append(append(make([]byte, 0, len(spkiPrefix)+ed25519.PublicKeySize), spkiPrefix...), pub...)
}

// KeyID returns the key id of pub: "sha256:" followed by the 64 lowercase
// hex digits of SHA-256 over its SubjectPublicKeyInfo DER, the bytes that
// EP's public_key carries (MarshalPublicKey). pub must be
// ed25519.PublicKeySize bytes.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(spki(pub))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// MarshalPublicKey returns pub in EP's form: the base64url encoding,
// without padding, of its SubjectPublicKeyInfo DER.
func MarshalPublicKey(pub ed25519.PublicKey) string {
	return b64.EncodeToString(spki(pub))
}

// ParsePublicKey reads an Ed25519 public key in EP's form (the base64url
// encoding, without padding, of its SubjectPublicKeyInfo DER) or as a PEM
// "PUBLIC KEY" block. Space around it is ignored, so a key file may end
// with a newline; nothing else may come before or after it. A text it
// refuses is a *KeyError.
func ParsePublicKey(text []byte) (ed25519.PublicKey, error) {
	text = bytes.TrimSpace(text)
	var der []byte
	if bytes.HasPrefix(text, []byte("-----BEGIN")) {
		block, rest := pem.Decode(text)
		if block == nil || block.Type != "PUBLIC KEY" || len(bytes.TrimSpace(rest)) != 0 {
			return nil, &KeyError{Reason: `not one PEM "PUBLIC KEY" block`}
		}
		der = block.Bytes
	} else {
		var err error
		if der, err = b64.DecodeString(string(text)); err != nil {
			return nil, &KeyError{Reason: "not base64url without padding (nor PEM): " + err.Error()}
		}
	}
	key, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, &KeyError{Reason: err.Error()}
	}
	pub, ok := key.(ed25519.PublicKey)
	if !ok {
		return nil, &KeyError{Reason: fmt.Sprintf("a %T, not an Ed25519 key", key)}
	}
	if !bytes.Equal(der, spki(pub)) {
		return nil, &KeyError{Reason: "not the DER encoding of an Ed25519 SubjectPublicKeyInfo"}
	}
	return pub, nil
}

// ParsePrivateKey reads an Ed25519 private key from a PEM "PRIVATE KEY"
// block holding PKCS#8 (RFC 8410), as MarshalPrivateKey and openssl genpkey
// -algorithm ed25519 write it. Text before the block is ignored, as PEM
// allows; after it, only space. A text it refuses is a *KeyError.
func ParsePrivateKey(text []byte) (ed25519.PrivateKey, error) {
	block, rest := pem.Decode(text)
	if block == nil || block.Type != "PRIVATE KEY" || len(bytes.TrimSpace(rest)) != 0 {
		return nil, &KeyError{Private: true, Reason: `not one PEM "PRIVATE KEY" block (PKCS#8)`}
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, &KeyError{Private: true, Reason: err.Error()}
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, &KeyError{Private: true, Reason: fmt.Sprintf("a %T, not an Ed25519 key", key)}
	}
	return priv, nil
}

// MarshalPrivateKey returns priv as a PEM "PRIVATE KEY" block holding
// PKCS#8 (RFC 8410), which ParsePrivateKey and OpenSSL read.
func MarshalPrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("receipt: private key: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// Signer signs receipts with one Ed25519 key. It is safe for concurrent
// use.
type Signer struct {
	priv  ed25519.PrivateKey
	key   *expandedKey // priv expanded, for signatures with a nonce drawn ahead (nonce.go)
	pub   ed25519.PublicKey
	keyID string
	short string // "lavr:" and the first 16 hex digits of the key id, with the ":" before the seq
}

// NewSigner returns a Signer for priv. Only priv's seed is used (the
// public half is derived from it again), so a private key whose halves do
// not match still signs what its public key verifies. It panics if priv
// is not ed25519.PrivateKeySize bytes, as ed25519.Sign does.
func NewSigner(priv ed25519.PrivateKey) *Signer {
	if len(priv) != ed25519.PrivateKeySize {
		panic("receipt: NewSigner: bad private key length " + strconv.Itoa(len(priv)))
	}
	priv = ed25519.NewKeyFromSeed(priv.Seed())
	pub := priv.Public().(ed25519.PublicKey)
	id := KeyID(pub)
	return &Signer{priv: priv, key: expand(priv.Seed()), pub: pub, keyID: id, short: receiptIDPrefix(id)}
}

// receiptIDPrefix returns "lavr:<first 16 hex digits of the key id>:".
func receiptIDPrefix(keyID string) string {
	return "lavr:" + keyID[len("sha256:"):len("sha256:")+16] + ":"
}

// KeyID returns the key id of the signer's public key (see KeyID).
func (s *Signer) KeyID() string { return s.keyID }

// Public returns the signer's public key.
func (s *Signer) Public() ed25519.PublicKey { return s.pub }

// receiptID returns the receipt id of the record seq.
func (s *Signer) receiptID(seq uint64) string { return s.short + strconv.FormatUint(seq, 10) }

// The fixed parts of a receipt line, around the payload and the signature
// value.
const (
	linePrefix = `{"@version":"` + Version + `","payload":`
	lineMiddle = `,"signature":{"algorithm":"` + Algorithm + `","value":"`
	lineSuffix = `"}}`
)

// appendLine appends the receipt line of p (without "\n") to dst: p's
// JCS form, signed. p must have passed check, with Seq, KeyID and
// ReceiptID set.
func (s *Signer) appendLine(dst []byte, p *Payload) []byte {
	return s.appendLineWith(dst, p, nil, nil)
}

// appendLineWith is appendLine signing with the nonce n, drawn ahead
// (nonce.go), and the scratch sc; with crypto/ed25519.Sign when n is nil.
func (s *Signer) appendLineWith(dst []byte, p *Payload, n *nonce, sc *signScratch) []byte {
	dst = append(dst, linePrefix...)
	start := len(dst)
	dst = appendPayload(dst, p)
	var sig [ed25519.SignatureSize]byte
	if n != nil {
		s.key.signWith(&sig, sc, s.pub, dst[start:], n)
	} else {
		copy(sig[:], ed25519.Sign(s.priv, dst[start:]))
	}
	dst = append(dst, lineMiddle...)
	dst = b64.AppendEncode(dst, sig[:])
	return append(dst, lineSuffix...)
}
