package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/receipt"
)

// scriptKey is the key of the receipt files of testdata/script/receipts.txtar.
func scriptKey() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x42}, ed25519.SeedSize))
}

// writeReceipts writes n receipts with scriptKey and a fixed clock to a new
// log at path, and returns the file's bytes.
func writeReceipts(t testing.TB, path string, n int) []byte {
	t.Helper()
	now := time.UnixMilli(1_780_000_000_000)
	l, err := receipt.Open(path, receipt.NewSigner(scriptKey()), receipt.Options{Deterministic: true, Now: func() time.Time {
		now = now.Add(time.Second)
		return now
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := receipt.Payload{PolicyVersion: "p1", Result: receipt.ResultPass, Reason: "policy",
			Class: receipt.ClassReadOnly, Tool: "read_file", ActDigest: hashing.Sum(fmt.Appendf(nil, "act %d", i))}
		if i%2 == 1 {
			p.Result, p.Reason, p.Class, p.Tool = receipt.ResultFail, "no_authority", receipt.ClassFinancial, "pay"
		}
		if _, err := l.Append(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lastDigest is the SHA-256 of the last line of a receipt file, computed
// with crypto/sha256.
func lastDigest(b []byte) string {
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	sum := sha256.Sum256(lines[len(lines)-1])
	return "sha256:" + hex.EncodeToString(sum[:])
}

// runIn runs bbdigest in dir with args and stdin.
func runIn(t *testing.T, args []string, stdin string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestReceiptsVerifyHWM runs receipts verify --hwm: a log at its mark
// verifies, and the summary says it was checked against it; a log with its
// last record dropped, a deleted log, a record past the mark, another
// log's mark and a damaged high-water file exit 1, naming what is wrong
// (on f67fe30 there was no --hwm, and the log without its last record
// verified); a missing high-water file, and an empty or "-" --hwm, exit 2.
func TestReceiptsVerifyHWM(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	good := writeReceipts(t, "log.jsonl", 5)
	writeReceipts(t, "four.jsonl", 4) // the same first four records, and their mark
	pub := scriptKey().Public().(ed25519.PublicKey)
	os.WriteFile("log.pub", []byte(receipt.MarshalPublicKey(pub)+"\n"), 0o644)
	lastStart := bytes.LastIndexByte(good[:len(good)-1], '\n') + 1
	os.WriteFile("cut.jsonl", good[:lastStart], 0o644)
	os.WriteFile("bad.hwm", []byte("not a high-water file"), 0o644)
	// Another log of five records under the same key: other timestamps.
	l, err := receipt.Open("other.jsonl", receipt.NewSigner(scriptKey()), receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := l.Append(context.Background(), receipt.Payload{Result: receipt.ResultFail, Reason: "no_authority", Class: receipt.ClassFinancial}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()

	verify := func(args ...string) []string {
		return append([]string{"receipts", "verify", "--key", "log.pub"}, args...)
	}
	want := fmt.Sprintf("verified 5 records, seq 1 to 5, last %s; checked against the high-water mark in log.jsonl.hwm, seq 5\n", lastDigest(good))
	if code, out, errs := runIn(t, verify("--hwm", "log.jsonl.hwm", "log.jsonl"), ""); code != 0 || out != want || errs != "" {
		t.Errorf("at its mark: exit %d, stdout %q, stderr %q, want %q", code, out, errs, want)
	}
	if code, out, _ := runIn(t, verify("log.jsonl", "--hwm=log.jsonl.hwm", "-"), string(good)); code != 2 || out != "" {
		t.Errorf("two FILEs: exit %d", code)
	}
	if code, out, _ := runIn(t, verify("--hwm", "log.jsonl.hwm", "-"), string(good)); code != 0 || out != want {
		t.Errorf("stdin: exit %d, %q", code, out)
	}
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		errRE string
	}{
		{"last record dropped", verify("--hwm", "log.jsonl.hwm", "cut.jsonl"), 1, fmt.Sprintf(`^bbdigest: error: cut.jsonl: line 5 at offset %d: the file ends after seq 4, but the high-water mark records seq 5, ending at offset %d: acknowledged records were removed from its end, or the file is an older copy\n`+
			`bbdigest: hint: the 4 records before it verify: seq 1 to 4, last sha256:[0-9a-f]{64}\n`+
			`bbdigest: hint: the high-water mark in log.jsonl.hwm records seq 5: acknowledged receipts are missing from the end of cut.jsonl \(truncated, deleted, or an older copy\); the gate refuses to open it\n$`, lastStart, len(good))},
		{"deleted", verify("--hwm", "log.jsonl.hwm", "gone.jsonl"), 1, fmt.Sprintf(`^bbdigest: error: gone.jsonl: missing, but the high-water mark in log.jsonl.hwm records seq 5 \(through offset %d\): the log was deleted or moved\n$`, len(good))},
		{"past the mark", verify("--hwm", "four.jsonl.hwm", "log.jsonl"), 1, fmt.Sprintf(`^bbdigest: error: log.jsonl: line 5 \(seq 5\) at offset %d: past the high-water mark, seq 4: never acknowledged .*\n`+
			`bbdigest: hint: the 4 records before it verify: .*\n`+
			`bbdigest: hint: a record past the high-water mark was never acknowledged .*cuts it off into FILE.torn\n$`, lastStart)},
		{"another log's mark", verify("--hwm", "other.jsonl.hwm", "log.jsonl"), 1, `^bbdigest: error: log.jsonl: line 5 \(seq 5\) at offset \d+: the high-water mark records seq 5 as sha256:[0-9a-f]{64} ending at offset \d+, but this record is .*\n.*\nbbdigest: hint: log.jsonl is not the log that other.jsonl.hwm was written for, or it was rewritten; the gate refuses to open it\n$`},
		{"damaged mark", verify("--hwm", "bad.hwm", "log.jsonl"), 1, `^bbdigest: error: --hwm: receipt: high-water file missing or damaged: bad.hwm is damaged: neither of its two slots holds a mark\n$`},
		{"no mark", verify("--hwm", "none.hwm", "log.jsonl"), 2, `^bbdigest: error: --hwm: receipt: high-water file none.hwm: file does not exist\n$`},
		{"empty --hwm", verify("--hwm", "", "log.jsonl"), 2, `^bbdigest: error: receipts verify: --hwm takes the log's high-water file, FILE.hwm\n`},
		{"--hwm -", verify("--hwm", "-", "log.jsonl"), 2, `^bbdigest: error: receipts verify: --hwm takes the log's high-water file, FILE.hwm\n`},
	} {
		code, out, errs := runIn(t, c.args, "")
		if code != c.code || out != "" || !regexp.MustCompile(c.errRE).MatchString(errs) {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q, want %s", c.name, code, c.code, out, errs, c.errRE)
		}
	}
	// Without --hwm the log without its last record verifies: the chain
	// cannot show its own end, and the summary says it was not checked.
	if code, out, _ := runIn(t, verify("cut.jsonl"), ""); code != 0 || !strings.HasSuffix(out, "; not checked against a high-water mark\n") {
		t.Errorf("cut.jsonl without --hwm: exit %d, %q", code, out)
	}
}

// TestReceiptsVerify runs receipts verify on a good log (key as a file,
// as PEM and as the string itself, flags before and after FILE, stdin,
// one worker), an empty one, a damaged one, a torn one and with another
// key, and its usage errors.
func TestReceiptsVerify(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	good := writeReceipts(t, "log.jsonl", 5)
	pub := scriptKey().Public().(ed25519.PublicKey)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	os.WriteFile("log.pub", []byte(receipt.MarshalPublicKey(pub)+"\n"), 0o644)
	os.WriteFile("log.pem", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
	other, _, _ := ed25519.GenerateKey(nil)
	os.WriteFile("other.pub", []byte(receipt.MarshalPublicKey(other)), 0o644)
	os.WriteFile("empty.jsonl", nil, 0o644)
	os.WriteFile("notakey", []byte("hello"), 0o644)
	starts := []int{0}
	for i, c := range good {
		if c == '\n' && i+1 < len(good) {
			starts = append(starts, i+1)
		}
	}
	flipped := bytes.Clone(good)
	flipped[starts[2]+100] ^= 1
	os.WriteFile("flipped.jsonl", flipped, 0o644)
	os.WriteFile("torn.jsonl", good[:len(good)-7], 0o644)

	ok := fmt.Sprintf("verified 5 records, seq 1 to 5, last %s; not checked against a high-water mark\n", lastDigest(good))
	for _, args := range [][]string{
		{"receipts", "verify", "--key", "log.pub", "log.jsonl"},
		{"receipts", "verify", "log.jsonl", "--key", "log.pub"},
		{"receipts", "verify", "--key=log.pem", "--workers", "1", "log.jsonl"},
		{"receipts", "verify", "log.jsonl", "--workers=2", "--key", receipt.MarshalPublicKey(pub)},
		{"receipts", "verify", "--key", "log.pub", "--", "log.jsonl"},
	} {
		if code, out, errs := runIn(t, args, ""); code != 0 || out != ok || errs != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if code, out, _ := runIn(t, []string{"receipts", "verify", "--key", "log.pub", "-"}, string(good)); code != 0 || out != ok {
		t.Errorf("stdin: exit %d, %q", code, out)
	}

	// The private key file: its public key is derived, and a hint says
	// so. As keygen --out writes it, and as keygen writes it to stdout,
	// after two comment lines.
	privPEM, err := receipt.MarshalPrivateKey(scriptKey())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("log.key", privPEM, 0o600)
	os.WriteFile("stdout.key", append([]byte("# key id: "+receipt.KeyID(pub)+"\n# public key: "+receipt.MarshalPublicKey(pub)+"\n"), privPEM...), 0o600)
	for _, name := range []string{"log.key", "stdout.key"} {
		want := "bbdigest: hint: --key " + name + " is a private key file: verifying with the public key derived from it, key id " + receipt.KeyID(pub) + " ('bbdigest keygen -y KEYFILE' prints it)\n"
		if code, out, errs := runIn(t, []string{"receipts", "verify", "--key", name, "log.jsonl"}, ""); code != 0 || out != ok || errs != want {
			t.Errorf("--key %s: exit %d, stdout %q, stderr %q, want %q", name, code, out, errs, want)
		}
	}
	// A damaged private key is an error about the private key.
	os.WriteFile("bad.key", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x00}}), 0o600)
	if code, out, errs := runIn(t, []string{"receipts", "verify", "--key", "bad.key", "log.jsonl"}, ""); code != 2 || out != "" || !strings.HasPrefix(errs, "bbdigest: error: --key: bad.key: receipt: private key: ") {
		t.Errorf("--key bad.key: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// One record before the first bad one: singular.
	flipped1 := bytes.Clone(good)
	flipped1[starts[1]+100] ^= 1
	os.WriteFile("flipped1.jsonl", flipped1, 0o644)
	oneBefore := sha256.Sum256(good[:starts[1]-1])
	if code, _, errs := runIn(t, []string{"receipts", "verify", "--key", "log.pub", "flipped1.jsonl"}, ""); code != 1 ||
		!strings.HasSuffix(errs, fmt.Sprintf("\nbbdigest: hint: the record before it verifies: seq 1, last sha256:%x\n", oneBefore)) {
		t.Errorf("flipped line 2: exit %d, stderr %q", code, errs)
	}
	// One record: "1 record".
	os.WriteFile("one.jsonl", good[:starts[1]], 0o644)
	if code, out, _ := runIn(t, []string{"receipts", "verify", "--key", "log.pub", "one.jsonl"}, ""); code != 0 || out != fmt.Sprintf("verified 1 record, seq 1 to 1, last sha256:%x; not checked against a high-water mark\n", oneBefore) {
		t.Errorf("one record: exit %d, %q", code, out)
	}
	if code, out, _ := runIn(t, []string{"receipts", "verify", "--key", "log.pub", "empty.jsonl"}, ""); code != 0 || out != "verified 0 records; not checked against a high-water mark\n" {
		t.Errorf("empty: exit %d, %q", code, out)
	}

	twoBefore := sha256.Sum256(good[starts[1] : starts[2]-1])
	cases := []struct {
		args  []string
		code  int
		errRE string
	}{
		{[]string{"flipped.jsonl"}, 1, fmt.Sprintf(`^bbdigest: error: flipped.jsonl: line 3 (\(seq 3\) )?at offset %d: .+\nbbdigest: hint: the 2 records before it verify: seq 1 to 2, last sha256:%x\n$`, starts[2], twoBefore)},
		{[]string{"torn.jsonl"}, 1, fmt.Sprintf(`^bbdigest: error: torn.jsonl: line 5 (\(seq 5\) )?at offset %d: torn: the file ends inside this record.*\nbbdigest: hint: the 4 records before it verify: seq 1 to 4, .*\nbbdigest: hint: a torn record is what a crash`, starts[4])},
		{[]string{"--key", "other.pub", "log.jsonl"}, 1, `^bbdigest: error: log.jsonl: line 1 \(seq 1\) at offset 0: key_id sha256:[0-9a-f]{64} is not the verifying key's sha256:[0-9a-f]{64}\nbbdigest: hint: is --key the key that signs this log\? its key id is sha256:`},
		{[]string{"log.jsonl"}, 2, `^bbdigest: error: receipts verify: --key KEY is required\nbbdigest: hint: run 'bbdigest help receipts' for usage\n$`},
		{[]string{"--key", "log.pub"}, 2, `missing FILE`},
		{[]string{"--key", "log.pub", "a", "b"}, 2, `too many inputs`},
		{[]string{"--key", "log.pub", "missing.jsonl"}, 2, `^bbdigest: error: missing.jsonl: open: no such file or directory\n$`},
		{[]string{"--key", "nosuch", "log.jsonl"}, 2, `^bbdigest: error: --key: "nosuch" is neither a file nor a public key`},
		{[]string{"--key", "notakey", "log.jsonl"}, 2, `^bbdigest: error: --key: notakey: receipt: public key: not base64url`},
		{[]string{"--key", ".", "log.jsonl"}, 2, `^bbdigest: error: --key: \.: not a regular file \(a directory\): a key file must be one\n$`},
		{[]string{"--key", "log.pub", "--workers", "0", "log.jsonl"}, 2, `invalid value "0" for --workers`},
		{[]string{"--nosuch", "log.jsonl"}, 2, `unknown flag --nosuch`},
	}
	for _, c := range cases {
		args := append([]string{"receipts", "verify"}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--key") && c.code == 1 {
			args = append(args, "--key", "log.pub")
		}
		code, out, errs := runIn(t, args, "")
		if code != c.code || out != "" || !regexp.MustCompile(c.errRE).MatchString(errs) {
			t.Errorf("%q: exit %d (want %d), stdout %q, stderr %q, want %s", args, code, c.code, out, errs, c.errRE)
		}
	}
	for _, args := range [][]string{{"receipts"}, {"receipts", "check"}} {
		if code, _, errs := runIn(t, args, ""); code != 2 || !strings.Contains(errs, "subcommand") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
	if code, out, _ := runIn(t, []string{"receipts", "--help"}, ""); code != 0 || out != receiptsHelp {
		t.Errorf("receipts --help: exit %d", code)
	}
}

// TestReceiptsVerifyEP runs the EP vectors, a copy with one expectation
// turned over, and files that are not vector files.
func TestReceiptsVerifyEP(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "conformance", "ep", "ep-receipts.v1.json")
	src, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance data missing: %v", err)
		}
		t.Skipf("conformance data missing: %v", err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("ep.json", src, 0o644)
	code, out, errs := runIn(t, []string{"receipts", "verify-ep", "ep.json"}, "")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || errs != "" || len(lines) != 15 || lines[14] != "14 passed, 0 failed" {
		t.Fatalf("exit %d, stderr %q, stdout\n%s", code, errs, out)
	}
	for _, l := range lines[:14] {
		if !regexp.MustCompile(`^PASS (accept_\S+ \(valid\)|reject_\S+ \(invalid: .+\))$`).MatchString(l) {
			t.Errorf("line %q", l)
		}
	}

	var f map[string]any
	json.Unmarshal(src, &f)
	v := f["vectors"].([]any)
	v[0].(map[string]any)["expect"] = map[string]any{"valid": false}
	v[13].(map[string]any)["expect"] = map[string]any{"valid": true}
	delete(v[5].(map[string]any), "expect")
	b, _ := json.Marshal(f)
	os.WriteFile("turned.json", b, 0o644)
	code, out, _ = runIn(t, []string{"receipts", "verify-ep", "turned.json"}, "")
	out = "\n" + out
	if code != 1 || !strings.HasSuffix(out, "\n11 passed, 3 failed\n") ||
		!strings.Contains(out, "\nFAIL accept_minimal: want invalid, got valid\n") ||
		!strings.Contains(out, "\nFAIL reject_tampered_anchor: want valid, got invalid: anchor: no \"alg\"") ||
		!strings.Contains(out, "\nFAIL reject_v2_unbound_leaf: the vector has no document or no expect.valid\n") {
		t.Errorf("turned: exit %d, stdout\n%s", code, out)
	}

	f["count"] = 13
	b, _ = json.Marshal(f)
	os.WriteFile("count.json", b, 0o644)
	os.WriteFile("novectors.json", []byte(`{"suite":"EP-RECEIPT-v1"}`), 0o644)
	os.WriteFile("notjson.json", []byte(`{`), 0o644)
	for _, c := range []struct {
		args  []string
		errRE string
	}{
		{[]string{"count.json"}, `"count" is 13 but the file holds 14 vectors`},
		{[]string{"novectors.json"}, `no "vectors" array`},
		{[]string{"notjson.json"}, `not an EP vector file`},
		{[]string{"missing.json"}, `missing.json: open: no such file`},
		{nil, `missing VECTORS.json`},
		{[]string{"a", "b"}, `too many inputs`},
	} {
		code, out, errs := runIn(t, append([]string{"receipts", "verify-ep"}, c.args...), "")
		if code != 2 || out != "" || !regexp.MustCompile(c.errRE).MatchString(errs) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, out, errs)
		}
	}
}

// TestKeygen checks keygen --out: the private key (0600) and KEYFILE.pub,
// the key id it prints (computed here from the public key with
// crypto/x509 and crypto/sha256), and that it overwrites nothing; and
// keygen to stdout, refused on a character device.
func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errs := runIn(t, []string{"keygen", "--out", "gate.key"}, "")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, %q", code, errs)
	}
	privText, _ := os.ReadFile("gate.key")
	pubText, _ := os.ReadFile("gate.key.pub")
	priv, err := receipt.ParsePrivateKey(privText)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^MCowBQYDK2VwAyEA[A-Za-z0-9_-]{43}\n$`).Match(pubText) {
		t.Errorf("gate.key.pub: %q", pubText)
	}
	pub, err := receipt.ParsePublicKey(pubText)
	if err != nil || !pub.Equal(priv.Public()) {
		t.Fatalf("the public key %q is not the private key's: %v", pubText, err)
	}
	der, _ := x509.MarshalPKIXPublicKey(pub)
	sum := sha256.Sum256(der)
	if want := "sha256:" + hex.EncodeToString(sum[:]) + "\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if st, _ := os.Stat("gate.key"); st.Mode().Perm() != 0o600 {
		t.Errorf("gate.key mode %v", st.Mode())
	}
	// Nothing is overwritten, and no half pair is left.
	os.WriteFile("half.key.pub", []byte("x"), 0o644)
	for _, name := range []string{"gate.key", "half.key"} {
		code, out, errs := runIn(t, []string{"keygen", "--out", name}, "")
		if code != 2 || out != "" || !strings.Contains(errs, "exists: not overwriting a key") {
			t.Errorf("%s: exit %d, %q, %q", name, code, out, errs)
		}
	}
	if again, _ := os.ReadFile("gate.key"); !bytes.Equal(again, privText) {
		t.Error("gate.key was changed")
	}
	if _, err := os.Stat("half.key"); err == nil {
		t.Error("half.key was written")
	}
	for _, args := range [][]string{{"keygen", "--out", ""}, {"keygen", "--out=-"}, {"keygen", "x"}, {"keygen", "--in", "x"}} {
		if code, _, _ := runIn(t, args, ""); code != 2 {
			t.Errorf("%q: exit %d", args, code)
		}
	}

	// -y prints the public key of a private key file: KEYFILE.pub's line.
	code, out, errs = runIn(t, []string{"keygen", "-y", "gate.key"}, "")
	if code != 0 || out != string(pubText) || errs != "" {
		t.Errorf("keygen -y gate.key: exit %d, stdout %q (want %q), stderr %q", code, out, pubText, errs)
	}
	code, out, errs = runIn(t, []string{"keygen", "-y", "-"}, string(privText))
	if code != 0 || out != string(pubText) || errs != "" {
		t.Errorf("keygen -y - < gate.key: exit %d, stdout %q (want %q), stderr %q", code, out, pubText, errs)
	}
	usageHint := "bbdigest: hint: run 'bbdigest help keygen' for usage\n"
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"keygen", "-y", "gate.key.pub"}, `bbdigest: error: gate.key.pub: receipt: private key: not one PEM "PRIVATE KEY" block (PKCS#8)` + "\n" +
			"bbdigest: hint: gate.key.pub holds a public key already: -y reads a private key file\n"},
		{[]string{"keygen", "-y", "nosuch.key"}, "bbdigest: error: nosuch.key: open: no such file or directory\n"},
		{[]string{"keygen", "-y"}, `bbdigest: error: keygen: -y needs KEYFILE, the private key file ("-" for stdin)` + "\n" + usageHint},
		{[]string{"keygen", "-y", "--out", "x.key", "gate.key"}, "bbdigest: error: keygen: -y prints a public key to stdout: no --out\n" + usageHint},
		{[]string{"keygen", "gate.key"}, `bbdigest: error: keygen: unexpected argument "gate.key" (-y KEYFILE prints the public key of a private key file)` + "\n" + usageHint},
	} {
		if code, out, errs := runIn(t, c.args, ""); code != 2 || out != "" || errs != c.stderr {
			t.Errorf("%q: exit %d, stdout %q\nstderr %q\nwant   %q", c.args, code, out, errs, c.stderr)
		}
	}

	code, out, _ = runIn(t, []string{"keygen"}, "")
	priv, err = receipt.ParsePrivateKey([]byte(out))
	m := regexp.MustCompile(`\A# key id: (sha256:[0-9a-f]{64})\n# public key: (\S+)\n-----BEGIN PRIVATE KEY-----\n`).FindStringSubmatch(out)
	if code != 0 || err != nil || m == nil {
		t.Fatalf("keygen to stdout: exit %d, %v:\n%s", code, err, out)
	}
	if m[1] != receipt.KeyID(priv.Public().(ed25519.PublicKey)) || m[2] != receipt.MarshalPublicKey(priv.Public().(ed25519.PublicKey)) {
		t.Errorf("the comments do not name the key: %s", out)
	}
	// keygen -y reads keygen's stdout, comment lines and all.
	if code, pubOut, errs := runIn(t, []string{"keygen", "-y", "-"}, out); code != 0 || pubOut != m[2]+"\n" || errs != "" {
		t.Errorf("keygen | keygen -y -: exit %d, %q (want %q), %q", code, pubOut, m[2]+"\n", errs)
	}
	if tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if st, _ := tty.Stat(); st.Mode()&os.ModeCharDevice != 0 {
			var errb bytes.Buffer
			if code := run([]string{"keygen"}, strings.NewReader(""), tty, &errb); code != 2 || !strings.Contains(errb.String(), "stdout is a terminal") {
				t.Errorf("keygen to %s: exit %d, %q", os.DevNull, code, errb.String())
			}
		}
	}
}

var updateReceiptsScript = flag.Bool("update-receipts-script", false, "rewrite the generated files of testdata/script/receipts.txtar")

// TestReceiptsScriptData checks that the receipt files of
// testdata/script/receipts.txtar are those writeReceipts writes with
// scriptKey (so that the script's expectations rest on the library's
// output, reproducible), that its pinned last digest is the SHA-256 of the
// last line, computed here with crypto/sha256, and that the EP vectors it
// carries are copies of EP's. With -update it rewrites them.
func TestReceiptsScriptData(t *testing.T) {
	const script = "testdata/script/receipts.txtar"
	archive, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	log := writeReceipts(t, filepath.Join(t.TempDir(), "log"), 3)
	pub := receipt.MarshalPublicKey(scriptKey().Public().(ed25519.PublicKey)) + "\n"
	tampered := bytes.Replace(log, []byte(`"tool":"pay"`), []byte(`"tool":"pey"`), 1)
	privPEM, err := receipt.MarshalPrivateKey(scriptKey())
	if err != nil {
		t.Fatal(err)
	}
	one := log[:bytes.IndexByte(log, '\n')+1]
	want := map[string][]byte{"log.jsonl": log, "log.pub": []byte(pub), "tampered.jsonl": tampered, "log.key": privPEM, "one.jsonl": one}
	files := txtarFiles(archive)
	for name, content := range want {
		if !bytes.Equal(files[name], content) {
			if *updateReceiptsScript {
				archive = txtarReplace(archive, name, content)
				continue
			}
			t.Errorf("%s: %s differs from what writeReceipts writes (go test ./cmd/bbdigest -run TestReceiptsScriptData -update-receipts-script rewrites it)", script, name)
		}
	}
	keyRE := regexp.MustCompile(`--key (MCow\S+)`)
	if m := keyRE.FindSubmatch(archive); m == nil || string(m[1])+"\n" != pub {
		if *updateReceiptsScript && m != nil {
			archive = bytes.ReplaceAll(archive, m[1], []byte(strings.TrimSpace(pub)))
		} else {
			t.Errorf("%s does not give the key %s as --key", script, pub)
		}
	}
	digest := lastDigest(log)
	re := regexp.MustCompile(`verified 3 records, seq 1 to 3, last (sha256:[0-9a-f]{64})`)
	if m := re.FindSubmatch(archive); m == nil || string(m[1]) != digest {
		if *updateReceiptsScript && m != nil {
			archive = bytes.ReplaceAll(archive, m[1], []byte(digest))
		} else {
			t.Errorf("%s does not expect the last digest %s", script, digest)
		}
	}
	// The digest of the first line, after one record, and the key id the
	// hint for --key log.key derives.
	first := lastDigest(one)
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`the record before it verifies: seq 1, last (sha256:[0-9a-f]{64})`),
		regexp.MustCompile(`verified 1 record, seq 1 to 1, last (sha256:[0-9a-f]{64})`),
	} {
		if m := re.FindSubmatch(archive); m == nil || string(m[1]) != first {
			if *updateReceiptsScript && m != nil {
				archive = bytes.ReplaceAll(archive, m[1], []byte(first))
			} else {
				t.Errorf("%s does not expect the digest of the first line, %s, after %q", script, first, re)
			}
		}
	}
	id := receipt.KeyID(scriptKey().Public().(ed25519.PublicKey))
	if m := regexp.MustCompile(`derived from it, key id (sha256:[0-9a-f]{64})`).FindSubmatch(archive); m == nil || string(m[1]) != id {
		t.Errorf("%s does not expect the key id %s for --key log.key", script, id)
	}
	checkScriptVectors(t, files["ep.json"], files["turned.json"])
	if *updateReceiptsScript {
		if err := os.WriteFile(script, archive, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// txtarFiles returns the files of a txtar archive.
func txtarFiles(a []byte) map[string][]byte {
	files := map[string][]byte{}
	var name string
	for _, line := range bytes.SplitAfter(a, []byte("\n")) {
		if m := regexp.MustCompile(`^-- (\S+) --\n$`).FindSubmatch(line); m != nil {
			name = string(m[1])
			files[name] = []byte{}
			continue
		}
		if name != "" {
			files[name] = append(files[name], line...)
		}
	}
	return files
}

// txtarReplace returns a with the content of the file name replaced, or
// the file added at the end.
func txtarReplace(a []byte, name string, content []byte) []byte {
	marker := []byte("-- " + name + " --\n")
	i := bytes.Index(a, marker)
	if i < 0 {
		return append(append(a, marker...), content...)
	}
	start := i + len(marker)
	end := bytes.Index(a[start-1:], []byte("\n-- ")) // the marker's own "\n" may end an empty file
	if end < 0 {
		return append(a[:start:start], content...)
	}
	rest := a[start+end:]
	return append(append(a[:start:start], content...), rest...)
}

// checkScriptVectors checks that the vectors of ep.json are EP's, as they
// are, and that turned.json is ep.json with the first expectation turned
// over.
func checkScriptVectors(t *testing.T, ep, turned []byte) {
	t.Helper()
	type vectors struct {
		Vectors []map[string]any `json:"vectors"`
	}
	var small, tv vectors
	if err := json.Unmarshal(ep, &small); err != nil || len(small.Vectors) == 0 {
		t.Fatalf("ep.json: %v", err)
	}
	if err := json.Unmarshal(turned, &tv); err != nil || len(tv.Vectors) != len(small.Vectors) {
		t.Fatalf("turned.json: %v", err)
	}
	for i, v := range tv.Vectors {
		want := small.Vectors[i]
		if i == 0 {
			want = maps.Clone(want)
			want["expect"] = map[string]any{"valid": !want["expect"].(map[string]any)["valid"].(bool)}
		}
		if !reflect.DeepEqual(v, want) {
			t.Errorf("turned.json: vector %d is not ep.json's (turned over if first)", i)
		}
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "conformance", "ep", "ep-receipts.v1.json"))
	if err != nil {
		t.Logf("EP vectors not compared: %v", err)
		return
	}
	var all vectors
	if err := json.Unmarshal(src, &all); err != nil {
		t.Fatal(err)
	}
	for _, v := range small.Vectors {
		i := slices.IndexFunc(all.Vectors, func(w map[string]any) bool { return w["id"] == v["id"] })
		if i < 0 || !reflect.DeepEqual(all.Vectors[i], v) {
			t.Errorf("ep.json: vector %v is not EP's", v["id"])
		}
	}
}

// TestGateUnacknowledgedReceipts: a receipts log with a whole record past
// its high-water mark (a gate killed between the log's fsync and the
// mark's, or whose fsync failed and could not cut the record back) is
// repaired at open: the record, never acknowledged, is cut off into
// FILE.torn, the hint says so, and the decision takes its seq.
func TestGateUnacknowledgedReceipts(t *testing.T) {
	f := newGateFixture(t)
	call := jsonrpcShape(`{"name":"search","arguments":{}}`)
	var stdout, stderr bytes.Buffer
	if code := run(f.args(), strings.NewReader(call), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, %s", code, stderr.String())
	}
	mark1, err := os.ReadFile(receipt.MarkPath(f.receipts))
	if err != nil {
		t.Fatal(err)
	}
	one, _ := os.ReadFile(f.receipts)
	if code := run(f.args(), strings.NewReader(call), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, %s", code, stderr.String())
	}
	two, _ := os.ReadFile(f.receipts)
	os.WriteFile(receipt.MarkPath(f.receipts), mark1, 0o600) // the mark before the second record
	stderr.Reset()
	if code := run(f.args(), strings.NewReader(call), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, %s", code, stderr.String())
	}
	want := fmt.Sprintf("bbdigest: hint: %s held 1 record past its high-water mark, written but never acknowledged (a crash, or a failed write or fsync, before the mark was updated: their decisions did not take effect): cut off its %d bytes from offset %d, kept in %s.torn; seq 2 goes on from there\n",
		f.receipts, len(two)-len(one), len(one), f.receipts)
	lines := strings.SplitAfter(stderr.String(), "\n")
	// The recovery hint, the unauthenticated-authority hint, the decision.
	if len(lines) != 4 || lines[0] != want || !strings.Contains(lines[2], "; receipt 2 sha256:") {
		t.Errorf("stderr %q, want first %q", stderr.String(), want)
	}
	if kept, _ := os.ReadFile(f.receipts + ".torn"); !bytes.Equal(kept, two[len(one):]) {
		t.Errorf("%s.torn holds %q", f.receipts, kept)
	}
}
