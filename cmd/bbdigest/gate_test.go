package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// gateFixture is a directory with a key, a policy and a ledger holding one
// emitted envelope whose first option is the act of paying acct-7 1999.
type gateFixture struct {
	dir, key, policy, receipts, ledger string
	pub                                ed25519.PublicKey
	authority                          string // JSON form, for _meta
}

func newGateFixture(t *testing.T) *gateFixture {
	t.Helper()
	dir := t.TempDir()
	f := &gateFixture{
		dir:      dir,
		key:      filepath.Join(dir, "gate.key"),
		policy:   filepath.Join(dir, "policy.json"),
		receipts: filepath.Join(dir, "receipts.jsonl"),
		ledger:   filepath.Join(dir, "ledger.db"),
	}
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	f.pub = pub
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	policy := `{"policy_version":"gate-test","tools":{"search":"READ_ONLY","pay":"FINANCIAL"}}`
	if err := os.WriteFile(f.policy, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := act.New("", "pay", []byte(`{"amount_cents":1999,"to":"acct-7"}`))
	if err != nil {
		t.Fatal(err)
	}
	b := &envelope.Builder{Synopsis: "Pay the invoice.", Offer: "Ask.", Stem: "Pay the invoice?", Hatches: envelope.Hatches{FreeText: true}}
	b.AddOption("Pay", "It is due.", a.Canonical)
	b.AddOption("Hold", "It is disputed.", []byte(`{"hold":true}`))
	env, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	l, err := bolt.Open(f.ledger, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Emit(env.Digest()); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	f.authority = fmt.Sprintf(`{"envelope":%s,"resolution":{"envelope_digest":%q,"resolution":"option","option_idx":0},"expires":%q}`,
		env.Canonical(), env.Digest(), time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	return f
}

func (f *gateFixture) args(extra ...string) []string {
	return append([]string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.key, "--ledger", f.ledger}, extra...)
}

// gatewayShape is the request as docker/mcp-gateway marshals its Go struct:
// no JSON tags on the outer struct, so "Params" is capitalised.
func gatewayShape(params string) string {
	return `{"Session":{},"Params":` + params + `,"Extra":{"TokenInfo":null,"Header":{"Accept":["application/json"]}}}`
}

func jsonrpcShape(params string) string {
	return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":` + params + `}`
}

func TestGateCommand(t *testing.T) {
	for _, shape := range []struct {
		name string
		wrap func(string) string
	}{{"gateway", gatewayShape}, {"jsonrpc", jsonrpcShape}, {"params", func(p string) string { return p }}} {
		t.Run(shape.name, func(t *testing.T) {
			f := newGateFixture(t)
			payParams := func(meta string) string {
				p := `{"name":"pay","arguments":{"to":"acct-7","amount_cents":1999}`
				if meta != "" {
					p += `,"_meta":{"dev.bbdigest/authority":` + meta + `}`
				}
				return p + "}"
			}
			steps := []struct {
				name   string
				in     string
				allow  bool
				reason string
			}{
				{"policy", shape.wrap(`{"name":"search","arguments":{"q":"x"}}`), true, "policy"},
				{"no authority", shape.wrap(payParams("")), false, "no_authority"},
				{"unconfigured", shape.wrap(`{"name":"wire","arguments":{}}`), false, "unconfigured_tool"},
				{"malformed", shape.wrap(`{"name":"pay","arguments":{"amount":19.99}}`), false, "malformed_call"},
				{"authority", shape.wrap(payParams(f.authority)), true, "authority"},
				{"consumed", shape.wrap(payParams(f.authority)), false, "consumed"},
			}
			for _, s := range steps {
				var stdout, stderr bytes.Buffer
				code := run(f.args(), strings.NewReader(s.in), &stdout, &stderr)
				if code != exitOK {
					t.Fatalf("%s: exit %d, stderr %s", s.name, code, stderr.String())
				}
				// On stderr, the hint that the policy (which names no
				// principals) leaves authority unauthenticated, then one
				// line with the documented prefix, and the decision and
				// receipt of the answer.
				verdict := "deny"
				if s.allow {
					verdict = "allow"
				}
				if !regexp.MustCompile(`\Abbdigest: hint: [^\n]* names no principals: authority is unauthenticated[^\n]*\nbbdigest: decision: ` + verdict + ` \(` + s.reason + `\): [^\n]*; receipt \d+ sha256:[0-9a-f]{64}\n\z`).Match(stderr.Bytes()) {
					t.Errorf("%s: stderr %q, want the hint and one line \"bbdigest: decision: %s (%s): ...\"", s.name, stderr.String(), verdict, s.reason)
				}
				if s.allow {
					if stdout.Len() != 0 {
						t.Fatalf("%s: allowed, but stdout %q: the gateway would not call the tool", s.name, stdout.String())
					}
					continue
				}
				// The gateway reads a non-empty stdout as an mcp.CallToolResult.
				var res mcp.CallToolResult
				if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
					t.Fatalf("%s: stdout %q is not a CallToolResult: %v", s.name, stdout.String(), err)
				}
				if !res.IsError || len(res.Content) != 1 {
					t.Fatalf("%s: result %+v", s.name, res)
				}
				txt := res.Content[0].(*mcp.TextContent).Text
				if !strings.Contains(txt, "deny ("+s.reason+")") || !strings.Contains(txt, "receipt ") || !strings.Contains(txt, "sha256:") {
					t.Fatalf("%s: text %q", s.name, txt)
				}
			}
			src, err := os.ReadFile(f.receipts)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := receipt.Verify(context.Background(), bytes.NewReader(src), f.pub, receipt.VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if int(sum.Records) != len(steps) {
				t.Fatalf("%d receipts for %d decisions", sum.Records, len(steps))
			}
		})
	}
}

func TestGateCommandErrors(t *testing.T) {
	f := newGateFixture(t)
	call := jsonrpcShape(`{"name":"search","arguments":{}}`)
	badPolicy := filepath.Join(f.dir, "badpol.json")
	if err := os.WriteFile(badPolicy, []byte(`{"policy_version":"v1","tools":{},"x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	usageHint := "bbdigest: hint: run 'bbdigest help gate' for usage\n"
	// Each message says what is wrong once: a refused policy is "FILE:
	// POINTER: REASON", the packages' other errors ("receipt: ...") name
	// themselves, with no "gate: " of the command's before them, and I/O
	// failures are "FILE: MESSAGE".
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // exact
	}{
		{"no policy", []string{"gate", "--receipts", f.receipts, "--key", f.key}, exitUsage, "bbdigest: error: gate: missing --policy\n" + usageHint},
		{"no receipts", []string{"gate", "--policy", f.policy, "--key", f.key}, exitUsage, "bbdigest: error: gate: missing --receipts\n" + usageHint},
		{"no key", []string{"gate", "--policy", f.policy, "--receipts", f.receipts}, exitUsage, "bbdigest: error: gate: missing --key\n" + usageHint},
		{"bad key", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.policy}, exitUsage,
			"bbdigest: error: " + f.policy + `: receipt: private key: not one PEM "PRIVATE KEY" block (PKCS#8)` + "\n"},
		{"bad policy", []string{"gate", "--policy", badPolicy, "--receipts", f.receipts, "--key", f.key}, exitUsage,
			"bbdigest: error: " + badPolicy + `: "/x": unknown member (want policy_version, server, threshold, tools, number_profiles, principals, max_authority_age, elicitation)` + "\n"},
		{"missing policy", []string{"gate", "--policy", filepath.Join(f.dir, "nope.json"), "--receipts", f.receipts, "--key", f.key}, exitUsage,
			"bbdigest: error: " + filepath.Join(f.dir, "nope.json") + ": open: no such file or directory\n"},
		{"missing key", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", filepath.Join(f.dir, "nope.key")}, exitUsage,
			"bbdigest: error: " + filepath.Join(f.dir, "nope.key") + ": open: no such file or directory\n"},
		{"missing call", f.args(filepath.Join(f.dir, "nocall.json")), exitUsage,
			"bbdigest: error: " + filepath.Join(f.dir, "nocall.json") + ": open: no such file or directory\n"},
		{"bad shape", f.args("--shape", "cohere"), exitUsage, `bbdigest: error: gate: unknown shape "cohere": want auto, anthropic, openai or mcp` + "\n" + usageHint},
		{"empty ledger", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.key, "--ledger", ""}, exitUsage, "bbdigest: error: gate: empty --ledger\n" + usageHint},
		{"empty key", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", ""}, exitUsage, "bbdigest: error: gate: empty --key\n" + usageHint},
		{"receipts on stdin", []string{"gate", "--policy", f.policy, "--receipts", "-", "--key", f.key}, exitUsage, "bbdigest: error: gate: --receipts -: a file is needed, stdin carries the call\n" + usageHint},
		{"ledger on stdin", f.args("--ledger", "-"), exitUsage, "bbdigest: error: gate: --ledger -: a file is needed, stdin carries the call\n" + usageHint},
		{"missing ledger", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.key, "--ledger", filepath.Join(f.dir, "nope.db")}, exitLedger,
			"bbdigest: error: gate: ledger " + filepath.Join(f.dir, "nope.db") + ": file does not exist\n" +
				"bbdigest: hint: create an empty ledger with 'bbdigest ledger init PATH'; 'bbdigest envelope emit --ledger PATH' records envelopes in it\n"},
		{"receipts in a missing directory", []string{"gate", "--policy", f.policy, "--receipts", filepath.Join(f.dir, "no", "r.jsonl"), "--key", f.key}, exitUsage,
			"bbdigest: error: receipt: open " + filepath.Join(f.dir, "no", "r.jsonl") + ": no such file or directory\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(call), &stdout, &stderr)
		if code != tc.code || stdout.Len() != 0 || stderr.String() != tc.stderr {
			t.Errorf("%s: exit %d (want %d), stdout %q\nstderr %q\nwant   %q", tc.name, code, tc.code, stdout.String(), stderr.String(), tc.stderr)
		}
	}
	// Without --ledger, only policy passes: an authority cannot verify.
	var stdout, stderr bytes.Buffer
	in := jsonrpcShape(`{"name":"pay","arguments":{"to":"acct-7","amount_cents":1999},"_meta":{"dev.bbdigest/authority":` + f.authority + `}}`)
	code := run([]string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.key}, strings.NewReader(in), &stdout, &stderr)
	if code != exitOK || !strings.Contains(stdout.String(), "deny (consumed)") {
		t.Errorf("without a ledger: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestGateMissingLedger: a --ledger that does not exist fails every call
// with exit 3 before anything is decided, READ_ONLY calls included, and
// never lets a FINANCIAL call through, even one carrying an authority
// the ledger would have accepted: nothing on stdout (which the host would
// read as a deny it passes on; empty stdout with exit 0 is an allow), no
// receipt. Once 'ledger init' has made it, the READ_ONLY call is allowed
// and the authority, for an envelope this empty ledger never saw, is
// denied.
func TestGateMissingLedger(t *testing.T) {
	f := newGateFixture(t)
	missing := filepath.Join(f.dir, "new.db")
	args := []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.key, "--ledger", missing}
	search := jsonrpcShape(`{"name":"search","arguments":{"q":"x"}}`)
	pay := jsonrpcShape(`{"name":"pay","arguments":{"to":"acct-7","amount_cents":1999},"_meta":{"dev.bbdigest/authority":` + f.authority + `}}`)
	for _, in := range []string{search, pay} {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(in), &stdout, &stderr)
		if code != exitLedger || stdout.Len() != 0 || !strings.Contains(stderr.String(), "'bbdigest ledger init PATH'") || strings.Contains(stderr.String(), "decision") {
			t.Fatalf("missing ledger: exit %d (want %d), stdout %q, stderr %q", code, exitLedger, stdout.String(), stderr.String())
		}
	}
	if _, err := os.Stat(f.receipts); !os.IsNotExist(err) {
		t.Fatalf("a receipt was written without a decision: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("the gate created the ledger: %v", err)
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"ledger", "init", missing}, strings.NewReader(""), &stdout, &stderr); code != exitOK || stdout.Len()+stderr.Len() != 0 {
		t.Fatalf("ledger init: exit %d, %q, %q", code, stdout.String(), stderr.String())
	}
	for _, tc := range []struct {
		in, want string
	}{{search, "bbdigest: decision: allow (policy)"}, {pay, "bbdigest: decision: deny (consumed)"}} {
		stdout.Reset()
		stderr.Reset()
		code := run(args, strings.NewReader(tc.in), &stdout, &stderr)
		if code != exitOK || !strings.Contains(stderr.String(), "\n"+tc.want) { // after the unauthenticated hint
			t.Errorf("after ledger init: exit %d, stdout %q, stderr %q, want %q", code, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// TestGateTornReceipts: a receipts log that ends in a torn record (a crash
// during an append) is repaired at open, and the hint says what was cut
// off and where it is kept, with the number of bytes spelt right.
func TestGateTornReceipts(t *testing.T) {
	for _, torn := range []string{`{`, `{"@v`} {
		f := newGateFixture(t)
		call := jsonrpcShape(`{"name":"search","arguments":{}}`)
		var stdout, stderr bytes.Buffer
		if code := run(f.args(), strings.NewReader(call), &stdout, &stderr); code != exitOK {
			t.Fatalf("exit %d, %s", code, stderr.String())
		}
		st, err := os.Stat(f.receipts)
		if err != nil {
			t.Fatal(err)
		}
		lf, err := os.OpenFile(f.receipts, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		lf.WriteString(torn)
		lf.Close()
		stderr.Reset()
		if code := run(f.args(), strings.NewReader(call), &stdout, &stderr); code != exitOK {
			t.Fatalf("exit %d, %s", code, stderr.String())
		}
		bytesText := fmt.Sprintf("%d bytes", len(torn))
		if len(torn) == 1 {
			bytesText = "1 byte"
		}
		want := fmt.Sprintf("bbdigest: hint: %s ended in a torn record, which a crash during an append leaves: cut off its %s from offset %d, kept in %s.torn; seq 2 goes on from there\n",
			f.receipts, bytesText, st.Size(), f.receipts)
		lines := strings.SplitAfter(stderr.String(), "\n")
		// lines[1] is the hint that the policy leaves authority unauthenticated.
		if len(lines) != 4 || lines[0] != want || !strings.HasPrefix(lines[2], "bbdigest: decision: allow (policy): ") {
			t.Errorf("stderr %q, want first %q", stderr.String(), want)
		}
	}
}
