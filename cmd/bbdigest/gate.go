package main

// bbdigest gate: the tool-call gate as a process, for hosts that run one
// before each tool call, such as docker/mcp-gateway's
// --interceptor before:exec:'bbdigest gate ...'. The protocol is that
// gateway's: the request arrives on stdin as JSON; empty stdout lets the
// call through; a non-empty stdout is an MCP CallToolResult returned
// instead of calling the tool; a non-zero exit is a JSON-RPC error.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

const gateUsage = `Usage:
  bbdigest gate --policy FILE --receipts FILE --key KEYFILE
                [--ledger PATH] [--wait D] [--shape SHAPE] [FILE|-]
`

const gateHelp = gateUsage + `
Decides one tool call, as a process that a host runs before each call: the
call arrives on stdin (or FILE), the decision is receipted, and then

  allow:  nothing on stdout, exit 0: the call goes through;
  deny:   an MCP CallToolResult on stdout, exit 0, which the host returns
          in place of calling the tool:
            {"_meta":{"dev.bbdigest/decision":{...}},
             "content":[{"type":"text","text":"bbdigest gate: deny (REASON): ...; receipt N sha256:..."}],
             "isError":true}
  error:  nothing on stdout, exit 2 (usage, unreadable policy or key,
          receipts log that cannot be opened) or 3 (the ledger cannot be
          opened: locked, corrupt, missing): the host fails the call. A
          ledger that fails during the decision denies it (ledger_error),
          receipted like any deny.

This is the protocol of docker/mcp-gateway's interceptors:

  docker mcp gateway run \
    --interceptor before:exec:'bbdigest gate --policy /etc/bbdigest/policy.json --receipts /var/lib/bbdigest/receipts.jsonl --key /etc/bbdigest/gate.key --ledger /var/lib/bbdigest/ledger.db'

The input is an MCP tools/call request ({"jsonrpc":"2.0","method":"tools/call",
"params":{...}}), its params, the gateway's marshalled request
({"Params":{...},"Session":...,"Extra":...}), or (with --shape) any tool call
"bbdigest act" reads. An authority for the call is read from
params._meta["dev.bbdigest/authority"]:
  {"envelope": <binding_moment>, "resolution": <resolution>, "expires": "<RFC 3339>"}

  --policy FILE      the gate's policy (JSON):
                       {"policy_version":"v1","server":"ID","threshold":"FINANCIAL",
                        "tools":{"search":"READ_ONLY","pay":"FINANCIAL"}}
                     Tools below the threshold are allowed on policy; tools at
                     or above it, and tools not listed, need authority.
  --receipts FILE    the receipts log (JSON Lines, created if missing): one
                     signed, hash-chained receipt per decision, on disk before
                     the answer. Concurrent gates take turns (--wait).
  --key KEYFILE      the Ed25519 signing key (PKCS#8 PEM, from bbdigest keygen)
  --ledger PATH      the bbolt single-use ledger where the host emitted its
                     envelopes (bbdigest envelope emit --ledger PATH); an
                     authority is consumed there. Without it no authority
                     verifies, and only calls allowed on policy pass.
  --wait D           how long to wait for the receipts log and the ledger
                     when another process holds them (default 10s)
  --shape SHAPE      auto (default), mcp, anthropic or openai

Exit status: 0 decided (allow or deny), 2 usage or I/O, 3 the ledger could not
be opened.
`

func (c *cli) gate(args []string) int {
	fs := c.flagSet("gate")
	policyFile := fs.String("policy", "", "")
	receiptsFile := fs.String("receipts", "", "")
	keyFile := fs.String("key", "", "")
	ledgerPath := fs.String("ledger", "", "")
	wait := fs.Duration("wait", bolt.LockTimeout, "")
	shapeName := fs.String("shape", "auto", "")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, f := range []struct{ name, value string }{{"policy", *policyFile}, {"receipts", *receiptsFile}, {"key", *keyFile}, {"ledger", *ledgerPath}} {
		switch {
		case !given[f.name] && f.name != "ledger":
			return c.usageError("gate", "missing --"+f.name)
		case given[f.name] && f.value == "":
			// What an unset shell variable gives: never a default.
			return c.usageError("gate", "empty --"+f.name)
		case f.value == "-":
			return c.usageError("gate", "--"+f.name+" -: a file is needed, stdin carries the call")
		}
	}
	if *wait < 0 {
		return c.usageError("gate", "negative --wait "+wait.String())
	}
	shape, err := act.ParseShape(*shapeName)
	if err != nil {
		return c.usageError("gate", err.Error())
	}
	in := "-"
	if len(operands) == 1 {
		in = operands[0]
	}

	policySrc, err := os.ReadFile(*policyFile)
	if err != nil {
		c.errorf("gate: %v", err)
		return exitUsage
	}
	policy, err := gate.ParsePolicy(policySrc)
	if err != nil {
		c.errorf("gate: %s: %v", *policyFile, err)
		return exitUsage
	}
	keySrc, err := os.ReadFile(*keyFile)
	if err != nil {
		c.errorf("gate: %v", err)
		return exitUsage
	}
	key, err := receipt.ParsePrivateKey(keySrc)
	if err != nil {
		c.errorf("gate: %s: %v", *keyFile, err)
		return exitUsage
	}
	src, err := c.readFile(nil, in, c.limit())
	if err != nil {
		c.errorf("gate: %s: %v", in, err)
		return exitUsage
	}

	var l ledger.Ledger = ledger.NewMemory() // holds nothing: no authority verifies
	if *ledgerPath != "" {
		bl, err := bolt.Open(*ledgerPath, ledgerOptions(*wait, true))
		if err != nil {
			return c.ledgerFailure("gate", err)
		}
		defer bl.Close()
		l = bl
	}
	log, err := receipt.Open(*receiptsFile, receipt.NewSigner(key), receipt.Options{Wait: *wait})
	if err != nil {
		c.errorf("gate: receipts: %v", err)
		return exitUsage
	}
	defer log.Close()
	if t := log.Recovered(); t != nil {
		c.hintf("gate: receipts: %v", t)
	}
	g, err := gate.New(gate.Config{Policy: policy, Ledger: l, Receipts: log})
	if err != nil {
		c.errorf("gate: %v", err)
		return exitUsage
	}

	call := gate.Call{Src: src, Shape: shape}
	call.AuthorityJSON, call.AuthorityErr = metaAuthority(src)
	d := g.Authorize(context.Background(), call)
	fmt.Fprintf(c.stderr, "bbdigest: gate: %s\n", safeText(d.Message()))
	if d.Reason == gate.ReasonLedgerError {
		// The ledger failed: the call is denied, and the operator
		// needs to know it is the ledger, not the call.
		c.ledgerFailure("gate", d.Err)
	}
	if d.Allow {
		return exitOK
	}
	out, err := json.Marshal(denyResult(&d))
	if err != nil {
		c.errorf("gate: %v", err)
		return exitUsage
	}
	return c.write(append(out, '\n'))
}

// gateResult is the MCP CallToolResult that answers a denied call.
type gateResult struct {
	Meta    map[string]gate.Summary `json:"_meta"`
	Content []gateText              `json:"content"`
	IsError bool                    `json:"isError"`
}

type gateText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func denyResult(d *gate.Decision) gateResult {
	return gateResult{
		Meta:    map[string]gate.Summary{"dev.bbdigest/decision": d.Summary()},
		Content: []gateText{{Type: "text", Text: "bbdigest gate: " + d.Message()}},
		IsError: true,
	}
}

// metaAuthority returns the JSON text of params._meta[gate.MetaKey] in the
// MCP request src (a JSON-RPC request, its params, or docker/mcp-gateway's
// {"Params":...}), nil when there is none. An input that is not such a
// request has none: the act, read by the gate, says what is wrong with it.
// A _meta that is there but not an object is an error.
func metaAuthority(src []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(src, &top) != nil {
		return nil, nil
	}
	params, lower := top["params"]
	if p, ok := top["Params"]; ok {
		if lower {
			return nil, errors.New("both params and Params: which carries the authority?")
		}
		params = p
	}
	if params == nil {
		if _, ok := top["name"]; !ok {
			return nil, nil
		}
		params = src // bare params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return nil, nil
	}
	raw, ok := p["_meta"]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
		return nil, errors.New("params._meta is not an object")
	}
	a, ok := meta[gate.MetaKey]
	if !ok {
		return nil, nil
	}
	return a, nil
}
