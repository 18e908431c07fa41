package receipt

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jcs"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// Version is the document version every receipt carries in "@version".
const Version = "EP-RECEIPT-v1"

// Algorithm is the one signature algorithm, in "signature"."algorithm".
const Algorithm = "Ed25519"

// The values of Payload.Result.
const (
	ResultPass = "PASS" // the call was allowed
	ResultFail = "FAIL" // the call was denied
)

// The consequence classes of Payload.Class, from the least consequential.
// UNCONFIGURED is the class of a tool the gate has no class for. These are
// the module's one spelling of the class names: package gate's Class
// prints and parses them.
const (
	ClassReadOnly       = "READ_ONLY"
	ClassOrdinary       = "ORDINARY"
	ClassFinancial      = "FINANCIAL"
	ClassPhysical       = "PHYSICAL"
	ClassNetworkControl = "NETWORK_CONTROL"
	ClassUnconfigured   = "UNCONFIGURED"
)

// The channels of Payload.Channel: how the decision behind an authority
// reached the gate. These are the module's one spelling of them: package
// gate's Channel uses them.
const (
	// ChannelSigned: a resolution signed by a principal of the gate's
	// policy, whose signature verified (the detail names its key id).
	ChannelSigned = "signed"
	// ChannelElicitation: the answer of the MCP client's user, asked by
	// the gate through MCP elicitation; signed by no one.
	ChannelElicitation = "elicitation"
)

// validChannel reports whether c is one of the channels.
func validChannel(c string) bool { return c == ChannelSigned || c == ChannelElicitation }

// MaxLineSize is the longest receipt line, in bytes, without its "\n":
// Append refuses a payload whose line would be longer, and Verify and
// Open refuse a longer line.
const MaxLineSize = 1 << 20

// Payload is what a receipt records: one gate decision. Its JSON form is
// the "payload" member of the receipt document (see the package
// documentation for the members and when each is present).
//
// Seq, PrevHash, KeyID and ReceiptID are filled by Log.Append, and
// TimestampMS when it is zero; whatever the caller put there is replaced.
// A zero digest, and an empty Detail, Tool, Server, ResolutionOutcome or
// Channel, are left out of the document.
type Payload struct {
	Seq         uint64   // 1 for the first record of a log, +1 each
	PrevHash    [32]byte // SHA-256 of the previous line; zero for seq 1
	TimestampMS int64    // Unix time in milliseconds
	KeyID       string   // "sha256:"+hex of SHA-256 over the signer's SPKI DER
	ReceiptID   string   // "lavr:<first 16 hex digits of the key id>:<seq>"

	PolicyVersion string // the host's policy version; "" allowed
	Result        string // ResultPass or ResultFail
	Reason        string // a stable reason code (package gate's); not empty
	Detail        string // human text; "" = absent
	Class         string // one of the Class constants

	Tool   string // the tool called; "" = absent
	Server string // the configured server identity; "" = absent

	ActDigest       hashing.Digest // the act digest; zero = absent
	ArgumentsDigest hashing.Digest // SHA-256 of the canonical arguments; zero = absent
	EnvelopeDigest  hashing.Digest // the envelope presented as authority; zero = absent

	ResolutionOutcome string // the envelope resolution's outcome; "" = absent

	// Channel is how the decision behind the authority reached the gate,
	// ChannelSigned or ChannelElicitation; "" = absent (no such decision,
	// or a receipt written before the member existed).
	Channel string
}

// validClass reports whether c is one of the consequence classes.
func validClass(c string) bool {
	switch c {
	case ClassReadOnly, ClassOrdinary, ClassFinancial, ClassPhysical, ClassNetworkControl, ClassUnconfigured:
		return true
	}
	return false
}

// check reports what in the caller's part of p cannot be written: the
// members Append fills are not looked at.
func (p *Payload) check() error {
	switch {
	case p.Result != ResultPass && p.Result != ResultFail:
		return fmt.Errorf("receipt: payload result %q is not %s or %s", p.Result, ResultPass, ResultFail)
	case p.Reason == "":
		return fmt.Errorf("receipt: payload has no reason")
	case !validClass(p.Class):
		return fmt.Errorf("receipt: payload consequence class %q is not one of %s, %s, %s, %s, %s, %s", p.Class,
			ClassReadOnly, ClassOrdinary, ClassFinancial, ClassPhysical, ClassNetworkControl, ClassUnconfigured)
	case p.TimestampMS > maxSafe || p.TimestampMS < -maxSafe:
		return fmt.Errorf("receipt: payload timestamp_ms %d is beyond 2^53-1", p.TimestampMS)
	case p.Channel != "" && !validChannel(p.Channel):
		return fmt.Errorf("receipt: payload channel %q is not %s or %s", p.Channel, ChannelSigned, ChannelElicitation)
	}
	for _, s := range [...]struct{ name, v string }{
		{"policy_version", p.PolicyVersion}, {"reason", p.Reason}, {"detail", p.Detail},
		{"tool", p.Tool}, {"server", p.Server}, {"resolution_outcome", p.ResolutionOutcome},
	} {
		if !utf8.ValidString(s.v) {
			return fmt.Errorf("receipt: payload %s is not valid UTF-8", s.name)
		}
	}
	return nil
}

// appendPayload appends the JCS form of p to dst: its members in the
// order of their names, which are ASCII, so byte order is RFC 8785's
// UTF-16 order. p must have passed check, with Seq, KeyID and ReceiptID
// set.
func appendPayload(dst []byte, p *Payload) []byte {
	dst = append(dst, '{')
	if p.ActDigest != (hashing.Digest{}) {
		dst = appendDigest(dst, "act_digest", p.ActDigest)
	}
	if p.ArgumentsDigest != (hashing.Digest{}) {
		dst = appendDigest(dst, "arguments_digest", p.ArgumentsDigest)
	}
	if p.Channel != "" {
		dst = appendMember(dst, "channel", p.Channel)
	}
	dst = appendMember(dst, "consequence_class", p.Class)
	if p.Detail != "" {
		dst = appendMember(dst, "detail", p.Detail)
	}
	if p.EnvelopeDigest != (hashing.Digest{}) {
		dst = appendDigest(dst, "envelope_digest", p.EnvelopeDigest)
	}
	dst = appendMember(dst, "key_id", p.KeyID)
	dst = appendMember(dst, "policy_version", p.PolicyVersion)
	dst = appendName(dst, "prev_hash")
	dst = append(dst, '"')
	dst = hex.AppendEncode(dst, p.PrevHash[:])
	dst = append(dst, '"')
	dst = appendMember(dst, "reason", p.Reason)
	dst = appendMember(dst, "receipt_id", p.ReceiptID)
	if p.ResolutionOutcome != "" {
		dst = appendMember(dst, "resolution_outcome", p.ResolutionOutcome)
	}
	dst = appendMember(dst, "result", p.Result)
	dst = appendName(dst, "seq")
	dst = strconv.AppendUint(dst, p.Seq, 10)
	if p.Server != "" {
		dst = appendMember(dst, "server", p.Server)
	}
	dst = appendName(dst, "timestamp_ms")
	dst = strconv.AppendInt(dst, p.TimestampMS, 10)
	if p.Tool != "" {
		dst = appendMember(dst, "tool", p.Tool)
	}
	return append(dst, '}')
}

// appendName appends a comma unless the object has just begun, and the
// member name, which needs no escaping, with its colon.
func appendName(dst []byte, name string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// appendMember appends the member name with the string value v.
func appendMember(dst []byte, name, v string) []byte {
	return jcs.AppendString(appendName(dst, name), v)
}

// appendDigest appends the member name with the text of d as its value.
func appendDigest(dst []byte, name string, d hashing.Digest) []byte {
	dst = append(appendName(dst, name), '"')
	dst = d.AppendTo(dst)
	return append(dst, '"')
}

// The payload members, as bits for the presence checks.
const (
	hasActDigest = 1 << iota
	hasArgumentsDigest
	hasChannel
	hasClass
	hasDetail
	hasEnvelopeDigest
	hasKeyID
	hasPolicyVersion
	hasPrevHash
	hasReason
	hasReceiptID
	hasResolutionOutcome
	hasResult
	hasSeq
	hasServer
	hasTimestamp
	hasTool

	required = hasClass | hasKeyID | hasPolicyVersion | hasPrevHash | hasReason | hasReceiptID | hasResult | hasSeq | hasTimestamp
)

// memberNames lists the payload members, in the order of their bits.
var memberNames = [...]string{"act_digest", "arguments_digest", "channel", "consequence_class", "detail", "envelope_digest",
	"key_id", "policy_version", "prev_hash", "reason", "receipt_id", "resolution_outcome", "result", "seq",
	"server", "timestamp_ms", "tool"}

// decodePayload reads the canonical payload object b into p. It checks
// every member's type and form, and that the members are exactly those of
// the format; not the key id against a key, nor the chain. On failure p
// holds what was read before the problem (its Seq, if it got there).
func decodePayload(b []byte, p *Payload) *lineError {
	*p = Payload{}
	bad := func(format string, args ...any) *lineError {
		return &lineError{what: "payload: " + fmt.Sprintf(format, args...), err: ErrMalformed}
	}
	m := jsonread.Object(b, 0)
	seen := 0
	for m.Next() {
		name, v := m.Name(), m.Value()
		bit, str := 0, ""
		switch string(name) {
		case "act_digest", "arguments_digest", "envelope_digest":
			d, ok := digestValue(v)
			if !ok {
				return bad("%s is not a \"sha256:<64 lowercase hex digits>\" string other than zero", name)
			}
			switch name[1] {
			case 'c':
				bit, p.ActDigest = hasActDigest, d
			case 'r':
				bit, p.ArgumentsDigest = hasArgumentsDigest, d
			default:
				bit, p.EnvelopeDigest = hasEnvelopeDigest, d
			}
		case "prev_hash":
			var h hashing.Digest
			err := hashing.ErrInvalidDigest
			if len(v) == 66 && v[0] == '"' && v[65] == '"' {
				h, err = hashing.ParseHex(v[1:65])
			}
			if err != nil {
				return bad("prev_hash is not a string of 64 lowercase hex digits")
			}
			bit, p.PrevHash = hasPrevHash, h
		case "seq":
			n, ok := parseInt(v)
			if !ok || n < 1 {
				return bad("seq %.40s is not an integer from 1", v)
			}
			bit, p.Seq = hasSeq, uint64(n)
		case "timestamp_ms":
			n, ok := parseInt(v)
			if !ok {
				return bad("timestamp_ms %.40s is not an integer", v)
			}
			bit, p.TimestampMS = hasTimestamp, n
		default:
			var ok bool
			if str, ok = jsonread.Unquote(v); !ok {
				if _, known := memberBit(name); known {
					return bad("%s is not a string", name)
				}
				return bad("unknown member %q", name)
			}
			var known bool
			if bit, known = memberBit(name); !known {
				return bad("unknown member %q", name)
			}
			switch bit {
			case hasClass:
				if !validClass(str) {
					return bad("consequence_class %q is not a known class", str)
				}
				p.Class = str
			case hasChannel:
				if !validChannel(str) {
					return bad("channel %q is not %s or %s", str, ChannelSigned, ChannelElicitation)
				}
				p.Channel = str
			case hasDetail:
				p.Detail = str
			case hasKeyID:
				p.KeyID = str
			case hasPolicyVersion:
				p.PolicyVersion = str
			case hasReason:
				p.Reason = str
			case hasReceiptID:
				p.ReceiptID = str
			case hasResolutionOutcome:
				p.ResolutionOutcome = str
			case hasResult:
				if str != ResultPass && str != ResultFail {
					return bad("result %q is not %s or %s", str, ResultPass, ResultFail)
				}
				p.Result = str
			case hasServer:
				p.Server = str
			case hasTool:
				p.Tool = str
			}
			if str == "" && bit&(hasDetail|hasResolutionOutcome|hasServer|hasTool|hasReason|hasKeyID|hasReceiptID) != 0 {
				return bad("%s is empty (an empty optional member is left out)", name)
			}
		}
		seen |= bit
	}
	if m.Close() != len(b) {
		return bad("not a well-formed object")
	}
	if missing := required &^ seen; missing != 0 {
		for i, n := range memberNames {
			if missing&(1<<i) != 0 {
				return bad("missing member %q", n)
			}
		}
	}
	return nil
}

// memberBit returns the bit of the payload member name.
func memberBit(name []byte) (int, bool) {
	for i, n := range memberNames {
		if string(name) == n {
			return 1 << i, true
		}
	}
	return 0, false
}

// digestValue reads a JSON string "sha256:<64 lowercase hex>" (hashing's
// text form of a digest) that is not the zero digest (a zero digest means
// absent, and is left out).
func digestValue(v []byte) (hashing.Digest, bool) {
	var d hashing.Digest
	if len(v) != hashing.DigestTextLen+2 || v[0] != '"' || v[len(v)-1] != '"' || d.UnmarshalText(v[1:len(v)-1]) != nil {
		return hashing.Digest{}, false
	}
	return d, d != hashing.Digest{}
}
