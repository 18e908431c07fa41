package epvector

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/receipt"
)

// TestEPReason: the reason verify-ep prints for a refused vector is the
// receipt error's fields, without the package's name: what failed in the
// document, or "public key: " and why the vector's key was refused.
func TestEPReason(t *testing.T) {
	_, kerr := receipt.ParsePublicKey([]byte("MCow!"))
	if got := Reason(kerr); !strings.HasPrefix(got, "public key: not base64url without padding (nor PEM): ") {
		t.Errorf("a bad key: %q (%v)", got, kerr)
	}
	pub := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x42}, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	for doc, want := range map[string]string{
		`{"@version":`: "not JSON under the strict profile: canon: syntax: ",
		`[]`:           "the document is not a JSON object",
	} {
		err := receipt.VerifyEP([]byte(doc), pub)
		if got := Reason(err); !strings.HasPrefix(got, want) || strings.Contains(got, "receipt:") || strings.Contains(got, "EP document") {
			t.Errorf("VerifyEP(%s): %q (%v), want it to begin %q", doc, got, err, want)
		}
	}
}

// TestRun checks the line of each kind of vector, the counts, the ids
// escaped, and the files that are not vector files.
func TestRun(t *testing.T) {
	pub := receipt.MarshalPublicKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)).Public().(ed25519.PublicKey))
	vectors := fmt.Sprintf(`{"count":5,"vectors":[
		{"id":"reject_array","public_key":%[1]q,"document":[],"expect":{"valid":false}},
		{"id":"want\u001b[31m","public_key":%[1]q,"document":[],"expect":{"valid":true}},
		{"public_key":"MCow!","document":{},"expect":{"valid":false}},
		{"id":"no_expect","public_key":%[1]q,"document":{}},
		{"id":"no_document","public_key":%[1]q,"expect":{"valid":true}}]}`, pub)
	out, failed, err := Run([]byte("x\n"), []byte(vectors))
	want := "x\n" +
		"PASS reject_array (invalid: the document is not a JSON object)\n" +
		"FAIL want\\u001b[31m: want valid, got invalid: the document is not a JSON object\n" +
		"PASS #3 (invalid: public key: not base64url without padding (nor PEM): "
	if err != nil || failed != 3 || !strings.HasPrefix(string(out), want) ||
		!strings.HasSuffix(string(out), ")\nFAIL no_expect: the vector has no document or no expect.valid\nFAIL no_document: the vector has no document or no expect.valid\n2 passed, 3 failed\n") {
		t.Errorf("Run: %d failed, %v, output\n%s", failed, err, out)
	}
	for src, msg := range map[string]string{
		`[1]`:                        "not an EP vector file: json: cannot unmarshal array into Go value of type epvector.file",
		`{"count":1}`:                `not an EP vector file: no "vectors" array`,
		`{"count":2,"vectors":[]}`:   `"count" is 2 but the file holds 0 vectors`,
		`{"count":2,"vectors":[{}]}`: `"count" is 2 but the file holds 1 vector`,
	} {
		if out, _, err := Run([]byte("x"), []byte(src)); err == nil || err.Error() != msg || string(out) != "x" {
			t.Errorf("Run(%s): %q, %v; want the error %q", src, out, err, msg)
		}
	}
}

// TestRunConformance runs EP's own vectors, the shared conformance file:
// every one passes.
func TestRunConformance(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "conformance", "ep", "ep-receipts.v1.json"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance data missing: %v", err)
		}
		t.Skipf("conformance data missing: %v", err)
	}
	out, failed, err := Run(nil, src)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if err != nil || failed != 0 || len(lines) != 15 || lines[14] != "14 passed, 0 failed" {
		t.Fatalf("%d failed, %v, output\n%s", failed, err, out)
	}
	for _, l := range lines[:14] {
		if !regexp.MustCompile(`^PASS (accept_\S+ \(valid\)|reject_\S+ \(invalid: .+\))$`).MatchString(l) {
			t.Errorf("line %q", l)
		}
	}
}
