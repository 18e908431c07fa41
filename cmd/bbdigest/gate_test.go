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
				if !strings.Contains(stderr.String(), "("+s.reason+")") {
					t.Errorf("%s: stderr %q does not name %s", s.name, stderr.String(), s.reason)
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
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no policy", []string{"gate", "--receipts", f.receipts, "--key", f.key}, exitUsage, "missing --policy"},
		{"no receipts", []string{"gate", "--policy", f.policy, "--key", f.key}, exitUsage, "missing --receipts"},
		{"no key", []string{"gate", "--policy", f.policy, "--receipts", f.receipts}, exitUsage, "missing --key"},
		{"bad key", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.policy}, exitUsage, "policy.json"},
		{"bad policy", []string{"gate", "--policy", f.key, "--receipts", f.receipts, "--key", f.key}, exitUsage, "gate.key"},
		{"bad shape", f.args("--shape", "cohere"), exitUsage, "cohere"},
		{"empty ledger", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.key, "--ledger", ""}, exitUsage, "empty --ledger"},
		{"empty key", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", ""}, exitUsage, "empty --key"},
		{"receipts on stdin", []string{"gate", "--policy", f.policy, "--receipts", "-", "--key", f.key}, exitUsage, "--receipts -"},
		{"ledger on stdin", f.args("--ledger", "-"), exitUsage, "--ledger -"},
		{"missing ledger", []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.key, "--ledger", filepath.Join(f.dir, "nope.db")}, exitLedger, "ledger"},
		{"receipts in a missing directory", []string{"gate", "--policy", f.policy, "--receipts", filepath.Join(f.dir, "no", "r.jsonl"), "--key", f.key}, exitUsage, "receipts"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(call), &stdout, &stderr)
		if code != tc.code || stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.err) {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q (want %q)", tc.name, code, tc.code, stdout.String(), stderr.String(), tc.err)
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
