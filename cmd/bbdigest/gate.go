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
	"io"
	"time"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/internal/shell"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// gateHelp is the help of gate, help/gate.txt.
var gateHelp = helpFile("gate")

// defaultCallTimeout is how long the gate waits, by default, for the call
// to arrive whole (--timeout).
const defaultCallTimeout = 5 * time.Second

func (c *cli) gate(args []string) int {
	fs := c.flagSet("gate")
	policyFile := fs.String("policy", "", "")
	receiptsFile := fs.String("receipts", "", "")
	keyFile := fs.String("key", "", "")
	ledgerPath := fs.String("ledger", "", "")
	wait := fs.Duration("wait", bolt.LockTimeout, "")
	shapeName := fs.String("shape", "auto", "")
	timeout := fs.Duration("timeout", defaultCallTimeout, "")
	insecureKey := fs.Bool("insecure-key-permissions", false, "")
	ask := fs.Bool("ask", false, "")
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
	if *ask && *ledgerPath == "" {
		return c.usageError("gate", "--ask needs --ledger PATH: the approval requests are kept there")
	}
	if *wait < 0 {
		return c.usageError("gate", "negative --wait "+wait.String())
	}
	if *timeout < 0 {
		return c.usageError("gate", "negative --timeout "+timeout.String())
	}
	shape, err := act.ParseShape(*shapeName)
	if err != nil {
		return c.usageError("gate", "unknown shape "+quote(*shapeName)+": want auto, anthropic, openai or mcp")
	}
	in := "-"
	if len(operands) == 1 {
		in = operands[0]
	}

	// Errors from the packages name them ("gate: policy: ...", "receipt:
	// ..."): the lines give FILE and the error, not "gate: " again.
	// The policy and the key are regular files, bounded (files.go).
	policySrc, _, err := readBounded(*policyFile, policyKind)
	if err != nil {
		c.ioFailure(*policyFile, err)
		return exitUsage
	}
	policy, err := gate.ParsePolicy(policySrc)
	if err != nil {
		c.policyRejected(*policyFile, err)
		return exitUsage
	}
	if *ask && len(policy.Principals) == 0 {
		c.errorf("gate: --ask: %s names no principals, and only a principal's signed decision approves a call", fileField(*policyFile))
		c.hintf("name the principals' public keys in \"principals\" ('bbdigest help gate')")
		return exitUsage
	}
	key, ok := c.privateKey(*keyFile, *insecureKey, ": --key takes the private key file that signs, KEYFILE of 'bbdigest keygen --out KEYFILE'")
	if !ok {
		return exitUsage
	}
	// The call must arrive whole within --timeout; if it does not, the
	// context of the decision has ended, and the gate denies the call,
	// receipted (canceled, its detail the callTimeoutError).
	decideCtx, readCtx := context.Background(), context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		readCtx, cancel = context.WithTimeoutCause(readCtx, *timeout, &callTimeoutError{name: in, d: *timeout})
		defer cancel()
	}
	src, err := c.readFileCtx(readCtx, in, c.limit())
	if _, ok := errors.AsType[*callTimeoutError](err); ok {
		decideCtx, src, err = readCtx, nil, nil
	}
	if _, ok := errors.AsType[*canon.Error](err); ok {
		c.reject(in, err)
		return exitUsage
	}
	if err != nil {
		c.ioFailure(in, err)
		return exitUsage
	}

	// The ledger is opened before anything is decided, whatever the call:
	// a missing or broken one fails every call (exit 3), never reads as an
	// empty ledger, and shows at the first call.
	var l ledger.Ledger = ledger.NewMemory() // holds nothing: no authority verifies
	var approvals gate.Approvals             // with --ask: the ledger's
	if *ledgerPath != "" {
		bl, err := bolt.Open(*ledgerPath, ledgerOptions(*wait, true))
		if err != nil {
			return c.ledgerFailure("gate", err)
		}
		defer bl.Close()
		l = bl
		if *ask {
			approvals = bl
		}
	}
	log, err := receipt.Open(*receiptsFile, receipt.NewSigner(key), receipt.Options{Wait: *wait})
	if err != nil {
		c.errorf("%v", err)
		if errors.Is(err, receipt.ErrTruncated) || errors.Is(err, receipt.ErrReplaced) || errors.Is(err, receipt.ErrMark) {
			// Fail closed: a new log in its place would hide what is gone.
			rf, hf := fileField(*receiptsFile), fileField(receipt.MarkPath(*receiptsFile))
			c.hintf("keep %s and %s for the audit ('bbdigest receipts verify --key KEY --hwm %s %s'); to start a new log on purpose, move both, and %s, aside together, or give --receipts a new path",
				rf, hf, hf, rf, fileField(*receiptsFile+".torn"))
		}
		return exitUsage
	}
	defer log.Close()
	if t := log.Recovered(); t != nil && t.Records > 0 {
		c.hintf("%s held %s past its high-water mark, written but never acknowledged (a crash, or a failed write or fsync, before the mark was updated: their decisions did not take effect): cut off its %s from offset %d, kept in %s; seq %d goes on from there",
			fileField(*receiptsFile), plural(t.Records, "record", "records"), plural(int(t.Size), "byte", "bytes"), t.Offset, fileField(t.Path), t.Seq)
	} else if t != nil {
		c.hintf("%s ended in a torn record, which a crash during an append leaves: cut off its %s from offset %d, kept in %s; seq %d goes on from there",
			fileField(*receiptsFile), plural(int(t.Size), "byte", "bytes"), t.Offset, fileField(t.Path), t.Seq)
	}
	g, err := gate.New(gate.Config{Policy: policy, Ledger: l, Receipts: log, Approvals: approvals})
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	if !g.Authenticated() {
		c.hintf("%s names no principals: authority is unauthenticated, anyone who can write params._meta can approve a call; name the principals' public keys in \"principals\" ('bbdigest help gate')",
			fileField(*policyFile))
	}

	call := gate.Call{Src: src, Shape: shape}
	call.AuthorityJSON, call.AuthorityErr = gate.MetaAuthority(src)
	d := g.Authorize(decideCtx, call)
	io.WriteString(c.stderr, "bbdigest: decision: "+safeText(d.Message())+"\n")
	if d.Reason == gate.ReasonLedgerError {
		// The ledger failed: the call is denied, and the operator
		// needs to know it is the ledger, not the call.
		c.ledgerFailure("gate", d.Err)
	}
	if d.Allow {
		return exitOK
	}
	res := denyResult(&d)
	if d.Reason == gate.ReasonApprovalPending {
		res.Content = append(res.Content, approvalText(&d, *ledgerPath))
	}
	out, err := json.Marshal(res)
	if err != nil {
		panic("BUG: " + err.Error()) // strings and numbers only
	}
	return c.write(append(out, '\n'))
}

// policyRejected reports why the policy in file was refused: at the
// member the *gate.PolicyError or the canon gate names, in the rejection
// format "FILE: POINTER: REASON".
func (c *cli) policyRejected(file string, err error) {
	if pe, ok := errors.AsType[*gate.PolicyError](err); ok {
		c.rejection(file, pe.Pointer, pe.Reason)
		return
	}
	c.reject(file, err)
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

// approvalText is the text of a deny that asked for approval: the envelope
// digest and the commands a principal approves or denies it with.
func approvalText(d *gate.Decision, ledgerPath string) gateText {
	l, e := shell.Quote(ledgerPath), d.EnvelopeDigest.String()
	return gateText{Type: "text", Text: "approval requested: envelope " + e + ". A principal approves it with 'bbdigest approve grant --ledger " + l + " --key PRINCIPAL_KEY " + e +
		"' (or denies it with 'bbdigest approve deny ...'; 'bbdigest approve show --ledger " + l + " " + e + "' shows it); then retry this identical call, which is allowed once."}
}
