package receipt

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
)

// testKey returns the Ed25519 key of a fixed seed.
func testKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
}

// testSigner returns the Signer of testKey(seed).
func testSigner(seed byte) *Signer { return NewSigner(testKey(seed)) }

// fixedClock returns a clock that starts at a fixed time and moves one
// millisecond per call.
func fixedClock() func() time.Time {
	t := time.UnixMilli(1_780_000_000_000)
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

// samplePayload returns the payload of decision i: PASS and FAIL, every
// class, the optional members present in some and absent in others.
func samplePayload(i int) Payload {
	classes := []string{ClassReadOnly, ClassOrdinary, ClassFinancial, ClassPhysical, ClassNetworkControl, ClassUnconfigured}
	p := Payload{
		PolicyVersion: "policy-" + strconv.Itoa(i%3),
		Result:        ResultPass,
		Reason:        "policy",
		Class:         classes[i%len(classes)],
	}
	if i%2 == 1 {
		p.Result, p.Reason, p.Detail = ResultFail, "no_authority", "no authority for tool \"pay\" <\u2028> \x01 é"
	}
	if i%5 != 4 {
		p.Tool = "tool_" + strconv.Itoa(i%7)
		p.ActDigest = hashing.Sum([]byte("act " + strconv.Itoa(i)))
		p.ArgumentsDigest = hashing.Sum([]byte("args " + strconv.Itoa(i)))
	}
	if i%3 == 0 {
		p.Server = "srv-" + strconv.Itoa(i%4)
	}
	if i%4 == 2 {
		p.EnvelopeDigest = hashing.Sum([]byte("env " + strconv.Itoa(i)))
		p.ResolutionOutcome = "authority"
	}
	return p
}

// writeLog appends n sample receipts to a new log in dir and returns its
// path, its bytes and the receipts.
func writeLog(t testing.TB, dir string, s *Signer, n int) (string, []byte, []Receipt) {
	t.Helper()
	path := filepath.Join(dir, "receipts.jsonl")
	// Deterministic: the tests that build on the log cut, flip and compare
	// its bytes, so they must be the same bytes in every run.
	l, err := Open(path, s, Options{Now: fixedClock(), Deterministic: true})
	if err != nil {
		t.Fatal(err)
	}
	rs := make([]Receipt, 0, n)
	for i := range n {
		r, err := l.Append(context.Background(), samplePayload(i))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b, rs
}

// independentPayload returns the payload object of p as a map, built from
// the format table alone, for encoding/json: the reference the package's
// own writer is held to.
func independentPayload(p *Payload) map[string]any {
	m := map[string]any{
		"receipt_id":        p.ReceiptID,
		"seq":               p.Seq,
		"prev_hash":         hexOf(p.PrevHash[:]),
		"timestamp_ms":      p.TimestampMS,
		"key_id":            p.KeyID,
		"policy_version":    p.PolicyVersion,
		"result":            p.Result,
		"reason":            p.Reason,
		"consequence_class": p.Class,
	}
	opt := func(name, v string) {
		if v != "" {
			m[name] = v
		}
	}
	dig := func(name string, d hashing.Digest) {
		if d != (hashing.Digest{}) {
			m[name] = "sha256:" + hexOf(d[:])
		}
	}
	opt("detail", p.Detail)
	opt("tool", p.Tool)
	opt("server", p.Server)
	opt("resolution_outcome", p.ResolutionOutcome)
	opt("channel", p.Channel)
	dig("act_digest", p.ActDigest)
	dig("arguments_digest", p.ArgumentsDigest)
	dig("envelope_digest", p.EnvelopeDigest)
	return m
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// independentKeyID is the key id computed with crypto/x509's SPKI.
func independentKeyID(t testing.TB, pub ed25519.PublicKey) string {
	t.Helper()
	der, err := marshalPKIX(pub)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	return "sha256:" + hexOf(sum[:])
}

// mustJSON marshals v with encoding/json.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lineStarts returns the offset of each line of a file, and its length
// with its "\n".
func lineStarts(b []byte) (starts []int) {
	for i := 0; i < len(b); {
		starts = append(starts, i)
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return starts
}

// verifyBytes runs Verify on b.
func verifyBytes(b []byte, pub ed25519.PublicKey, workers int) (Summary, error) {
	return Verify(context.Background(), bytes.NewReader(b), pub, VerifyOptions{Workers: workers})
}

// markAt returns the mark of a log whose bytes are b after its first n
// records: what the Log writes once they are acknowledged.
func markAt(b []byte, n int) Mark {
	if n == 0 {
		return Mark{}
	}
	starts := append(lineStarts(b), len(b))
	end := starts[n] // the offset after record n's "\n"
	return Mark{Seq: uint64(n), Size: int64(end), Digest: sha256.Sum256(b[starts[n-1] : end-1])}
}

// writeMark writes a high-water file at path holding m in both slots.
func writeMark(t testing.TB, path string, m Mark) {
	t.Helper()
	b := make([]byte, markFileSize)
	encodeMarkSlot(b, m)
	encodeMarkSlot(b[markSlotStride:], m)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeLogAt writes content as the log at path and m as its high-water
// mark, removing any path.torn.
func writeLogAt(t testing.TB, path string, content []byte, m Mark) {
	t.Helper()
	os.Remove(path + ".torn")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	writeMark(t, MarkPath(path), m)
}

// readMark reads the high-water mark of the log at path.
func readMark(t testing.TB, path string) Mark {
	t.Helper()
	m, err := ReadMark(MarkPath(path))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
