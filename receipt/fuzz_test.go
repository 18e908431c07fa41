package receipt

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// naiveLine is the oracle of the line checks: the format table read with
// encoding/json, canon and crypto/ed25519, one rule after another, without
// the package's reader. It returns nil when line is a valid receipt of
// pub, with its seq and prev_hash.
func naiveLine(line []byte, pub ed25519.PublicKey) (seq int64, prev string, err error) {
	c, err := canon.Canonicalize(line, canon.Strict)
	if err != nil || !bytes.Equal(c, line) {
		return 0, "", errors.New("not canonical")
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(line, &doc); err != nil {
		return 0, "", err
	}
	if !sameKeys(doc, []string{"@version", "payload", "signature"}, nil) {
		return 0, "", errors.New("document members")
	}
	var version string
	var sig map[string]json.RawMessage
	if json.Unmarshal(doc["@version"], &version) != nil || version != "EP-RECEIPT-v1" ||
		json.Unmarshal(doc["signature"], &sig) != nil || sig == nil || !sameKeys(sig, []string{"algorithm", "value"}, nil) {
		return 0, "", errors.New("version or signature")
	}
	var alg, value string
	if json.Unmarshal(sig["algorithm"], &alg) != nil || alg != "Ed25519" || json.Unmarshal(sig["value"], &value) != nil {
		return 0, "", errors.New("signature")
	}
	// The value is the one spelling of its bytes: encoding them again
	// gives it back (no padding bits set, no line breaks skipped).
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(raw) != 64 || base64.RawURLEncoding.EncodeToString(raw) != value {
		return 0, "", errors.New("signature value")
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(doc["payload"], &p) != nil || p == nil {
		return 0, "", errors.New("payload")
	}
	required := []string{"receipt_id", "seq", "prev_hash", "timestamp_ms", "key_id", "policy_version", "result", "reason", "consequence_class"}
	optional := []string{"detail", "tool", "server", "act_digest", "arguments_digest", "envelope_digest", "resolution_outcome"}
	if !sameKeys(p, required, optional) {
		return 0, "", errors.New("payload members")
	}
	str := func(name string, nonEmpty bool) (string, bool) {
		v, present := p[name]
		if !present {
			return "", true
		}
		var s string
		if json.Unmarshal(v, &s) != nil || v[0] != '"' || (nonEmpty && s == "") {
			return "", false
		}
		return s, true
	}
	isHex := func(s string) bool {
		return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
	}
	for _, name := range []string{"receipt_id", "key_id", "reason", "detail", "tool", "server", "resolution_outcome"} {
		if _, ok := str(name, true); !ok {
			return 0, "", errors.New(name)
		}
	}
	for _, name := range []string{"act_digest", "arguments_digest", "envelope_digest"} {
		s, ok := str(name, true)
		if !ok || (s != "" && (!strings.HasPrefix(s, "sha256:") || !isHex(s[7:]) || s[7:] == strings.Repeat("0", 64))) {
			return 0, "", errors.New(name)
		}
	}
	if _, ok := str("policy_version", false); !ok {
		return 0, "", errors.New("policy_version")
	}
	result, ok1 := str("result", true)
	class, ok2 := str("consequence_class", true)
	prev, ok3 := str("prev_hash", true)
	if !ok1 || !ok2 || !ok3 || (result != "PASS" && result != "FAIL") || !isHex(prev) ||
		!slices.Contains([]string{"READ_ONLY", "ORDINARY", "FINANCIAL", "PHYSICAL", "NETWORK_CONTROL", "UNCONFIGURED"}, class) {
		return 0, "", errors.New("result, class or prev_hash")
	}
	var ts int64
	if json.Unmarshal(p["timestamp_ms"], &ts) != nil || json.Unmarshal(p["seq"], &seq) != nil || seq < 1 {
		return 0, "", errors.New("timestamp or seq")
	}
	der, _ := marshalPKIX(pub)
	sum := sha256.Sum256(der)
	keyID := "sha256:" + hexOf(sum[:])
	if id, _ := str("key_id", true); id != keyID {
		return seq, prev, errors.New("key_id")
	}
	if id, _ := str("receipt_id", true); id != "lavr:"+keyID[7:23]+":"+strconv.FormatInt(seq, 10) {
		return seq, prev, errors.New("receipt_id")
	}
	if !ed25519.Verify(pub, doc["payload"], raw) {
		return seq, prev, errors.New("signature does not verify")
	}
	return seq, prev, nil
}

// sameKeys reports whether m has every name of required, and otherwise
// only names of optional.
func sameKeys(m map[string]json.RawMessage, required, optional []string) bool {
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	for k := range m {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			return false
		}
	}
	return true
}

// naiveVerify is the oracle of Verify: it returns the line of the first
// bad record of the file b (0 if none) and the records before it.
func naiveVerify(b []byte, pub ed25519.PublicKey) (bad int, verified int) {
	if len(b) == 0 {
		return 0, 0
	}
	lines := bytes.Split(b, []byte("\n"))
	torn := len(lines[len(lines)-1]) > 0
	if !torn {
		lines = lines[:len(lines)-1]
	}
	prev := strings.Repeat("0", 64)
	for i, line := range lines {
		seq, ph, err := naiveLine(line, pub)
		if err != nil || seq != int64(i+1) || ph != prev || (torn && i == len(lines)-1) {
			return i + 1, i
		}
		sum := sha256.Sum256(line)
		prev = hexOf(sum[:])
	}
	return 0, len(lines)
}

// fuzzSeeds returns receipt files: a valid one, and edits of it.
func fuzzSeeds() [][]byte {
	s := testSigner(1)
	lines := chain(s, 3, nil)
	b := file(lines)
	seeds := [][]byte{b, b[:len(b)-1], file(lines[1:]), lines[0], nil, []byte("\n"), []byte("{}\n")}
	for _, edit := range [][2]string{
		{`"seq":2`, `"seq":3`}, {`"PASS"`, `"FAIL"`}, {`"Ed25519"`, `"ed25519"`}, {`,"payload"`, ` ,"payload"`},
		{`"policy_version"`, `"policy\u005fversion"`}, {`"tool":"tool_1"`, `"tool":""`}, {`}}`, `},"x":1}`},
	} {
		seeds = append(seeds, bytes.Replace(b, []byte(edit[0]), []byte(edit[1]), 1))
	}
	return seeds
}

// FuzzVerify holds Verify to naiveVerify on receipt files: the same first
// bad line (or none), the same number of records verified before it, with
// one worker and with two; and no panic.
func FuzzVerify(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	pub := testSigner(1).Public()
	f.Fuzz(func(t *testing.T, b []byte) {
		wantBad, wantVerified := naiveVerify(b, pub)
		for _, workers := range []int{1, 2} {
			sum, err := verifyBytes(b, pub, workers)
			gotBad := 0
			if ce, ok := errors.AsType[*ChainError](err); ok {
				gotBad = int(ce.Line)
				if starts := lineStarts(b); gotBad < 1 || gotBad > len(starts) || ce.Offset != int64(starts[gotBad-1]) {
					t.Fatalf("%v: offset of line %d is not %d", err, gotBad, ce.Offset)
				}
			} else if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if gotBad != wantBad || sum.Records != int64(wantVerified) {
				t.Fatalf("workers %d: Verify: %d records, %v; the oracle: first bad line %d after %d records\n%q",
					workers, sum.Records, err, wantBad, wantVerified, b)
			}
		}
	})
}

// FuzzVerifyLine holds the line checks to naiveLine, and checks that a
// line they accept reads back to a Payload that writes the same payload
// bytes.
func FuzzVerifyLine(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		line, _, _ := bytes.Cut(seed, []byte("\n"))
		f.Add(line)
	}
	s := testSigner(1)
	v := newVerifier(s.Public())
	f.Fuzz(func(t *testing.T, line []byte) {
		var p Payload
		le := notCanonical(line, nil)
		if le == nil {
			le = v.check(line, &p)
		}
		_, _, naiveErr := naiveLine(line, s.Public())
		if (le == nil) != (naiveErr == nil) {
			t.Fatalf("check: %v; the oracle: %v\n%q", le, naiveErr, line)
		}
		if le != nil {
			if le.err == nil || le.what == "" {
				t.Fatalf("an error without a sentinel or a message: %+v", le)
			}
			return
		}
		if got := s.appendLine(nil, &p); !bytes.Equal(got[:bytes.LastIndex(got, []byte(lineMiddle))], line[:bytes.LastIndex(line, []byte(lineMiddle))]) {
			t.Fatalf("the payload read back writes\n%s\nnot\n%s", got, line)
		}
	})
}

// FuzzVerifyEP checks that VerifyEP never panics, and that a document it
// accepts is one JSON text whose signature crypto/ed25519 verifies over
// canon's form of the payload as encoding/json reads it.
func FuzzVerifyEP(f *testing.F) {
	key := testKey(9)
	pub := key.Public().(ed25519.PublicKey)
	payload := []byte(`{"n":1,"receipt_id":"tr"}`)
	leaf := hexSum([]byte{0}, payload)
	sibling := hexSum([]byte("s"))
	root := hexSum([]byte{1}, []byte(leaf), []byte(sibling))
	sig := base64.RawURLEncoding.EncodeToString(ed25519.Sign(key, payload))
	doc := fmt.Sprintf(`{"@version":"EP-RECEIPT-v1","payload":%s,"signature":{"algorithm":"Ed25519","value":%q}}`, payload, sig)
	anchored := fmt.Sprintf(`{"@version":"EP-RECEIPT-v1","anchor":{"alg":"EP-MERKLE-v2","leaf_hash":%q,"merkle_proof":[{"hash":%q,"position":"right"}],"merkle_root":%q},"payload":%s,"signature":{"algorithm":"Ed25519","value":%q}}`,
		leaf, sibling, root, payload, sig)
	if VerifyEP([]byte(doc), pub) != nil || VerifyEP([]byte(anchored), pub) != nil {
		f.Fatal("the seeds do not verify")
	}
	f.Add([]byte(doc))
	f.Add([]byte(anchored))
	f.Add([]byte(strings.Replace(anchored, `"right"`, `"left"`, 1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if VerifyEP(b, pub) != nil {
			return
		}
		var d struct {
			Payload   json.RawMessage
			Signature struct{ Value string }
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("accepted, but encoding/json: %v", err)
		}
		c, err := canon.Canonicalize(d.Payload, canon.Strict)
		raw, err2 := base64.RawURLEncoding.DecodeString(d.Signature.Value)
		if err != nil || err2 != nil || !ed25519.Verify(pub, c, raw) {
			t.Fatalf("accepted, but the signature does not verify independently: %v, %v", err, err2)
		}
	})
}
