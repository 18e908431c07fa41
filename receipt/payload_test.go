package receipt

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// filled returns samplePayload(i) with the members Append fills.
func filled(s *Signer, i int) Payload {
	p := samplePayload(i)
	p.Seq = uint64(i + 1)
	p.PrevHash = hashing.Sum([]byte{byte(i)})
	if i == 0 {
		p.PrevHash = [32]byte{}
	}
	p.TimestampMS = 1_780_000_000_000 + int64(i)
	p.KeyID = s.KeyID()
	p.ReceiptID = s.receiptID(p.Seq)
	return p
}

// TestPayloadEncoding holds appendPayload and appendLine to an independent
// writer: the format table as a map, through encoding/json and the canon
// gate. It also reads each line back (check) to the same Payload, and
// verifies the signature with crypto/ed25519 over canon's form of the
// payload.
func TestPayloadEncoding(t *testing.T) {
	s := testSigner(1)
	v := newVerifier(s.Public())
	odd := []string{"", "a\"b\\c", "\x00\x1f\x7f", "\u2028\u2029<>&", "é€𝄞", "\b\f\n\r\t/"}
	for i := range 40 {
		p := filled(s, i)
		if i < len(odd) {
			p.Detail, p.PolicyVersion, p.Tool = odd[i], odd[len(odd)-1-i], strings.TrimSpace(odd[i])
		}
		p.Channel = []string{"", ChannelSigned, ChannelElicitation}[i%3]
		want, err := canon.Canonicalize(mustJSON(t, independentPayload(&p)), canon.Strict)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendPayload(nil, &p); !bytes.Equal(got, want) {
			t.Errorf("payload %d:\n got %s\nwant %s", i, got, want)
		}
		line := s.appendLine(nil, &p)
		if !canon.IsCanonical(line, canon.Strict) {
			t.Errorf("line %d is not canonical: %s", i, line)
		}
		var back Payload
		if le := v.check(line, &back); le != nil {
			t.Fatalf("line %d: %v: %s", i, le, line)
		}
		if back != p {
			t.Errorf("line %d reads back as\n%+v, want\n%+v", i, back, p)
		}
		sig, _ := base64.RawURLEncoding.DecodeString(string(line[bytes.LastIndex(line, []byte(`"value":"`))+9 : len(line)-3]))
		if !ed25519.Verify(s.Public(), want, sig) {
			t.Errorf("line %d: the signature does not verify over the independent payload", i)
		}
	}
}

// TestPayloadCheck checks what Append refuses before signing.
func TestPayloadCheck(t *testing.T) {
	ok := samplePayload(1)
	if err := ok.check(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(p *Payload){
		"result":       func(p *Payload) { p.Result = "pass" },
		"no result":    func(p *Payload) { p.Result = "" },
		"no reason":    func(p *Payload) { p.Reason = "" },
		"class":        func(p *Payload) { p.Class = "read_only" },
		"no class":     func(p *Payload) { p.Class = "" },
		"timestamp":    func(p *Payload) { p.TimestampMS = 1 << 53 },
		"negative ts":  func(p *Payload) { p.TimestampMS = -(1 << 53) },
		"utf8 detail":  func(p *Payload) { p.Detail = "\xff" },
		"utf8 tool":    func(p *Payload) { p.Tool = "a\xed\xa0\x80" },
		"utf8 policy":  func(p *Payload) { p.PolicyVersion = "\xc0\x80" },
		"utf8 outcome": func(p *Payload) { p.ResolutionOutcome = "\xff" },
		"utf8 server":  func(p *Payload) { p.Server = "\xff" },
		"utf8 reason":  func(p *Payload) { p.Reason = "\xff" },
		"channel":      func(p *Payload) { p.Channel = "meta" },
		"channel case": func(p *Payload) { p.Channel = "Signed" },
	} {
		p := ok
		f(&p)
		if err := p.check(); err == nil {
			t.Errorf("%s: check accepted %+v", name, p)
		}
	}
}

// TestDecodePayload refuses every departure from the format in a payload
// object: each is ErrMalformed.
func TestDecodePayload(t *testing.T) {
	s := testSigner(1)
	p := filled(s, 2)
	good := string(appendPayload(nil, &p))
	var back Payload
	if le := decodePayload([]byte(good), &back); le != nil || back != p {
		t.Fatalf("decodePayload(%s) = %+v, %v", good, back, le)
	}
	// edit replaces the member name's value; "" removes the member.
	edit := func(name, value string) string {
		m := independentPayload(&p)
		if value == "" {
			delete(m, name)
		} else {
			m[name] = rawJSON(value)
		}
		c, err := canon.Canonicalize(mustJSON(t, m), canon.Strict)
		if err != nil {
			t.Fatal(err)
		}
		return string(c)
	}
	zero := `"sha256:` + strings.Repeat("0", 64) + `"`
	cases := map[string]string{
		"not an object":        `[]`,
		"unknown member":       edit("extra", `1`),
		"unknown object":       edit("extra", `{"a":1}`),
		"missing seq":          edit("seq", ""),
		"missing prev_hash":    edit("prev_hash", ""),
		"missing key_id":       edit("key_id", ""),
		"missing policy":       edit("policy_version", ""),
		"missing reason":       edit("reason", ""),
		"missing result":       edit("result", ""),
		"missing class":        edit("consequence_class", ""),
		"missing timestamp":    edit("timestamp_ms", ""),
		"missing receipt_id":   edit("receipt_id", ""),
		"seq 0":                edit("seq", `0`),
		"seq negative":         edit("seq", `-1`),
		"seq string":           edit("seq", `"1"`),
		"timestamp string":     edit("timestamp_ms", `"1"`),
		"prev_hash upper":      edit("prev_hash", `"`+strings.Repeat("A", 64)+`"`),
		"prev_hash short":      edit("prev_hash", `"`+strings.Repeat("a", 63)+`"`),
		"prev_hash number":     edit("prev_hash", `1`),
		"act_digest zero":      edit("act_digest", zero),
		"act_digest bare hex":  edit("act_digest", `"`+strings.Repeat("a", 64)+`"`),
		"envelope_digest sha1": edit("envelope_digest", `"sha1:`+strings.Repeat("a", 40)+`"`),
		"arguments_digest num": edit("arguments_digest", `7`),
		"result lower":         edit("result", `"pass"`),
		"class unknown":        edit("consequence_class", `"SPICY"`),
		"class number":         edit("consequence_class", `3`),
		"detail empty":         edit("detail", `""`),
		"tool empty":           edit("tool", `""`),
		"server empty":         edit("server", `""`),
		"outcome empty":        edit("resolution_outcome", `""`),
		"reason empty":         edit("reason", `""`),
		"key_id empty":         edit("key_id", `""`),
		"tool array":           edit("tool", `["x"]`),
		"detail null":          edit("detail", `null`),
		"channel empty":        edit("channel", `""`),
		"channel unknown":      edit("channel", `"meta"`),
		"channel number":       edit("channel", `1`),
	}
	for name, text := range cases {
		if le := decodePayload([]byte(text), &back); le == nil || !errors.Is(le, ErrMalformed) {
			t.Errorf("%s: decodePayload(%s) = %v, want ErrMalformed", name, text, le)
		}
	}
}

// rawJSON is a JSON value to put into a map as it is.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestPayloadChannel: the channel member, which came after the others, is
// written only when set, so a receipt without one is byte for byte what
// the format wrote before it; a log mixing both verifies, and each record
// reads back with its channel.
func TestPayloadChannel(t *testing.T) {
	s := testSigner(1)
	path := filepath.Join(t.TempDir(), "receipts.jsonl")
	l, err := Open(path, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	channels := []string{"", ChannelSigned, ChannelElicitation, ""}
	for i, c := range channels {
		p := samplePayload(i)
		p.Channel = c
		if _, err := l.Append(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(log, []byte("\n"))
	v := newVerifier(s.Public())
	for i, c := range channels {
		var back Payload
		if le := v.check(bytes.TrimSuffix(lines[i], []byte("\n")), &back); le != nil {
			t.Fatalf("line %d: %v", i+1, le)
		}
		if back.Channel != c {
			t.Errorf("line %d reads back channel %q, want %q", i+1, back.Channel, c)
		}
		if has := bytes.Contains(lines[i], []byte(`"channel"`)); has != (c != "") {
			t.Errorf("line %d: channel member present %v, want %v: %s", i+1, has, c != "", lines[i])
		}
	}
	if _, err := Verify(context.Background(), bytes.NewReader(log), s.Public(), VerifyOptions{}); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}
