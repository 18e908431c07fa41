package notify

// This file is what a delivery carries: the payload, its signature, and
// Verify, the receiver's check of both.

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// Version is the "@version" of a Payload and the first line of the bytes a
// delivery's signature covers.
const Version = "bbdigest-notify/v1"

// EventPending is the "event" of a Payload that announces a new pending
// approval request.
const EventPending = "approval_pending"

// The headers of a delivery.
const (
	// HeaderEnvelopeDigest names the request, for a receiver to drop
	// duplicates by.
	HeaderEnvelopeDigest = "Bbdigest-Envelope-Digest"
	// HeaderTimestamp is when the attempt was signed, in milliseconds
	// since the Unix epoch, decimal.
	HeaderTimestamp = "Bbdigest-Timestamp"
	// HeaderKeyID is the key id (receipt.KeyID) of the key that signed.
	HeaderKeyID = "Bbdigest-Key-Id"
	// HeaderSignature is the Ed25519 signature, base64url without
	// padding, of the bytes signedBytes makes.
	HeaderSignature = "Bbdigest-Signature"
)

// MaxSkew is how far a delivery's timestamp may be from the receiver's
// clock, either way, for Verify to accept it: a signed body replayed later
// than that is refused, and one within it is a duplicate that the envelope
// digest header finds.
const MaxSkew = 5 * time.Minute

// ErrInvalid is the cause of every error of Verify, for errors.Is.
var ErrInvalid = errors.New("invalid notification")

// Payload is the JSON body of a delivery.
type Payload struct {
	// Version is "bbdigest-notify/v1".
	Version string `json:"@version"`
	// Event is "approval_pending".
	Event string `json:"event"`
	// EnvelopeDigest names the request: the digest of Envelope (§6).
	EnvelopeDigest hashing.Digest `json:"envelope_digest"`
	// Tool, Server and Class are the act's tool, its server ("" when the
	// policy names none) and the consequence class the gate's policy gives
	// the tool.
	Tool   string `json:"tool"`
	Server string `json:"server"`
	Class  string `json:"class"`
	// ActDigest is the digest of the act the envelope asks about: the
	// action_digest of its "Allow this call once" option.
	ActDigest hashing.Digest `json:"act_digest"`
	// Emitted is when the store recorded the request, RFC 3339 in UTC.
	Emitted string `json:"emitted"`
	// Text is the envelope as envelope.RenderText renders it (§9): the
	// agent's strings quoted and escaped.
	Text string `json:"text"`
	// ApproveURL is where a principal decides (Config.ApproveURL, without
	// its token); absent when none is configured.
	ApproveURL string `json:"approve_url,omitempty"`
	// Envelope is the canonical binding_moment value, for a receiver that
	// renders it itself or checks the digest.
	Envelope json.RawMessage `json:"envelope"`
}

// NewPayload returns the payload announcing the request r, with
// approveURL as its approve_url ("" for none; New has removed its token).
// It fails when r's envelope is not one or not its digest's.
func NewPayload(r *ledger.Request, approveURL string) (*Payload, error) {
	env, err := gate.RequestEnvelope(r)
	if err != nil {
		return nil, fmt.Errorf("notify: %w", err)
	}
	return &Payload{
		Version:        Version,
		Event:          EventPending,
		EnvelopeDigest: r.EnvelopeDigest,
		Tool:           r.Tool,
		Server:         r.Server,
		Class:          r.Class,
		ActDigest:      r.ActDigest,
		Emitted:        r.EmittedAt.UTC().Format(time.RFC3339Nano),
		Text:           envelope.RenderText(env),
		ApproveURL:     approveURL,
		Envelope:       json.RawMessage(env.Canonical()),
	}, nil
}

// b64 is the encoding of the signature: base64url without padding,
// strict, as receipts write theirs.
var b64 = base64.RawURLEncoding.Strict()

// signedBytes returns the bytes a delivery's signature covers:
// "bbdigest-notify/v1\n<ms>\n<key id>\n<body>".
func signedBytes(ms int64, keyID string, body []byte) []byte {
	b := make([]byte, 0, len(Version)+len(keyID)+len(body)+24)
	b = append(b, Version...)
	b = append(b, '\n')
	b = strconv.AppendInt(b, ms, 10)
	b = append(b, '\n')
	b = append(b, keyID...)
	b = append(b, '\n')
	return append(b, body...)
}

// sign sets the signature headers of a delivery of body, signed with priv
// (whose key id is keyID) at now.
func sign(h http.Header, priv ed25519.PrivateKey, keyID string, body []byte, now time.Time) {
	ms := now.UnixMilli()
	h.Set(HeaderTimestamp, strconv.FormatInt(ms, 10))
	h.Set(HeaderKeyID, keyID)
	h.Set(HeaderSignature, b64.EncodeToString(ed25519.Sign(priv, signedBytes(ms, keyID, body))))
}

// Verify checks a delivery as its receiver got it: the headers h and the
// exact body, against the gate's public key pub, at the receiver's time
// now. It checks that the key id header is pub's, that the timestamp is
// within MaxSkew of now, that the signature verifies over
// "bbdigest-notify/v1\n<timestamp>\n<key id>\n<body>", that the body is a
// Payload of this version whose envelope_digest is the envelope digest
// header, and that its envelope's digest is that digest. It returns the
// payload, or an error wrapping ErrInvalid that says which check failed.
// Verify does not drop duplicates: a receiver does, by the envelope
// digest.
func Verify(pub ed25519.PublicKey, h http.Header, body []byte, now time.Time) (*Payload, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("notify: verify: a public key of %d bytes, not %d", len(pub), ed25519.PublicKeySize)
	}
	keyID := receipt.KeyID(pub)
	if got := h.Get(HeaderKeyID); got != keyID {
		return nil, invalid("signed by key %q, not %s", got, keyID)
	}
	ts := h.Get(HeaderTimestamp)
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || strconv.FormatInt(ms, 10) != ts {
		return nil, invalid("%s %q is not milliseconds since the epoch", HeaderTimestamp, ts)
	}
	signed := time.UnixMilli(ms)
	if d := now.Sub(signed); d > MaxSkew || d < -MaxSkew {
		return nil, invalid("signed at %s, more than %v from %s", signed.UTC().Format(time.RFC3339Nano), MaxSkew, now.UTC().Format(time.RFC3339Nano))
	}
	sig, err := b64.DecodeString(h.Get(HeaderSignature))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, invalid("%s is not a base64url Ed25519 signature", HeaderSignature)
	}
	if !ed25519.Verify(pub, signedBytes(ms, keyID, body), sig) {
		return nil, invalid("the signature does not verify")
	}
	// Members this version does not know are allowed: the signature
	// covers them all the same.
	var p Payload
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&p); err != nil {
		return nil, invalid("the body: %v", err)
	}
	if dec.More() {
		return nil, invalid("the body: more than one JSON value")
	}
	if p.Version != Version {
		return nil, invalid("the body's @version is %q, not %q", p.Version, Version)
	}
	if got := h.Get(HeaderEnvelopeDigest); got != p.EnvelopeDigest.String() {
		return nil, invalid("%s %q is not the body's envelope_digest %s", HeaderEnvelopeDigest, got, p.EnvelopeDigest)
	}
	if _, err := gate.RequestEnvelope(&ledger.Request{EnvelopeDigest: p.EnvelopeDigest, Envelope: p.Envelope}); err != nil {
		return nil, invalid("the body's envelope: %v", err)
	}
	return &p, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("notify: verify: %w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// approveURL returns s, an absolute http or https URL, without userinfo
// and without its "token" query parameter: the page's address, with none
// of its secrets.
func approveURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		// Not err: it quotes the URL, token and all.
		return "", errors.New("notify: approve URL: not a URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("notify: approve URL %q: not an absolute http or https URL", u.Redacted())
	}
	u.User = nil
	if q := u.Query(); q.Has("token") {
		q.Del("token")
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}
