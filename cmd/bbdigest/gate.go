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
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

const gateHelp = `Usage:
  bbdigest gate --policy FILE --receipts FILE --key KEYFILE [--ledger PATH]
                [--wait D] [--timeout D] [--shape SHAPE]
                [--insecure-key-permissions] [FILE|-]

gate decides one tool call, as a process that a host runs before each
call (docker/mcp-gateway's interceptors): the call arrives on stdin (or
FILE), the decision is receipted, and then

  allow  nothing on stdout, exit 0: the call goes through
  deny   an MCP CallToolResult on stdout, exit 0, which the host returns in
         place of calling the tool:
           {"_meta":{"dev.bbdigest/decision":{...}},
            "content":[{"type":"text","text":"bbdigest gate: deny (REASON): ...; receipt N sha256:..."}],
            "isError":true}
  error  nothing on stdout, exit 2 or 3 (see Exit status): the host fails
         the call

Each decision, allow or deny, also writes one line on stderr:
  bbdigest: decision: allow (REASON): ...; receipt N sha256:<64 hex>
  bbdigest: decision: deny (REASON): ...; receipt N sha256:<64 hex>
Every other line on stderr is a "bbdigest: error: " or "bbdigest: hint: "
line.

The input is an MCP tools/call request ({"jsonrpc":"2.0","method":
"tools/call","params":{...}}), its params, the gateway's marshalled request
({"Params":{...},"Session":...,"Extra":...}), or (with --shape) any tool
call 'bbdigest act' reads. An authority for the call is read from
params._meta["dev.bbdigest/authority"]:
  {"envelope": <binding_moment>, "resolution": <resolution>, "expires": "<RFC 3339>"}
where <resolution> is a resolution (§7.3) or a signed resolution document
('bbdigest resolution sign').

Authority is only as strong as what the policy asks of it. A policy that
names no principals takes any authority presented: anything that can
write params._meta and has seen the envelope (the agent, in the deny) can
approve its own call, with any expiry; the gate says so on stderr at
every run ("bbdigest: hint: ... authority is unauthenticated"). A policy
that names its principals takes only a resolution signed by one of them
('bbdigest resolution sign --key PRINCIPAL_KEY'), for this envelope and
this act, within max_authority_age of the time the ledger recorded the
envelope's emission ('bbdigest envelope emit'); "expires" may end it
sooner, never later. Denies then name the reason: unsigned,
unknown_principal, bad_signature, expired; an allow names the principal's
key id.

Options:
  --policy FILE    the gate's policy (JSON):
                     {"policy_version":"v1","server":"ID","threshold":"FINANCIAL",
                      "tools":{"search":"READ_ONLY","pay":"FINANCIAL"},
                      "principals":[{"name":"alice","public_key":"MCowBQYDK2VwAyEA..."}],
                      "max_authority_age":"5m"}
                   Tools below the threshold are allowed on policy; tools at
                   or above it, and tools not listed, need authority.
                   policy_version (a string) and tools are required.
                   principals: each public_key as 'bbdigest keygen' writes
                   it to KEYFILE.pub; max_authority_age (default 5m, at
                   most 24h) only with principals. A member that is
                   unknown, of the wrong type or repeated is an error
                   "FILE: POINTER: REASON". A regular file of at most
                   4 MiB.
  --receipts FILE  the receipts log (JSON Lines): one signed, hash-chained
                   receipt per decision, on disk before the answer, and its
                   high-water file FILE.hwm, which records the last receipt
                   acknowledged. Both are created when neither exists. A log
                   shorter than its mark, missing beside it, not holding its
                   record, or with records but no FILE.hwm is refused (exit
                   2, nothing decided): receipts were erased, and a new log
                   would hide it. Records past the mark, never acknowledged,
                   are cut off into FILE.torn. Concurrent gates take turns
                   (--wait). Check it with 'bbdigest receipts verify --hwm
                   FILE.hwm'.
  --key KEYFILE    the Ed25519 signing key (PKCS#8 PEM, from 'bbdigest
                   keygen'): a regular file of at most 16 KiB that gives
                   its group and others no access (mode 0600 or 0400, as
                   keygen --out writes it), since whoever can read it can
                   sign receipts in the gate's name. A key file that does
                   (on Unix) is refused, "unprotected private key file",
                   with its permissions and the fix, 'chmod 600 KEYFILE'.
                   Unlike ssh, which checks only the keys its user owns,
                   the gate checks KEYFILE whoever owns it. Docker and
                   Kubernetes mount secrets 0444 and 0644 by default: set
                   their mode to 0400 (Kubernetes: defaultMode)
  --insecure-key-permissions
                   use KEYFILE whatever its permissions
  --ledger PATH    the single-use ledger where the host records the
                   envelopes it emits ('bbdigest envelope emit --ledger
                   PATH'); an authority is consumed there. It must exist:
                   create it once with 'bbdigest ledger init PATH'. The gate
                   opens it before deciding anything, so a ledger that is
                   missing, locked past --wait or corrupt fails every call,
                   READ_ONLY ones included, with exit 3 and no receipt: a
                   wrong PATH shows at the first call, and a missing ledger
                   is never taken for an empty one. Without --ledger no
                   authority verifies, and only calls allowed on policy
                   pass.
  --wait D         how long to wait for the receipts log and the ledger when
                   another process holds them (default 10s)
  --timeout D      how long the call may take to arrive whole, from when
                   the gate starts to read it (default 5s; 0: no bound). A
                   call that has not ended by then (a host that never
                   closes stdin, a FILE that is a named pipe with no
                   writer) is denied, receipted like any deny, reason
                   canceled:
                     deny (canceled): the call on stdin did not end within
                       --timeout 5s; receipt N sha256:...
  --shape SHAPE    auto (default), mcp, anthropic or openai

  FILE "-" or no FILE reads stdin; a call longer than 256 MiB is a usage
  error. An empty --policy, --receipts, --key or --ledger, and "-" for any
  of them, are usage errors. --policy and --key must be regular files: a
  named pipe, device or socket is refused before a byte of it is read, so
  the gate never waits on its configuration.

Exit status:
  0  decided: allowed, or denied with a CallToolResult on stdout (a ledger
     that fails during the decision denies it, reason ledger_error,
     receipted like any deny)
  2  usage or I/O error: a policy, key or call that cannot be read or is
     refused (too large, not a regular file, a key with permissions too
     open), a receipts log that cannot be opened or that its high-water
     file refuses; nothing was decided
  3  the ledger could not be opened (missing, locked, corrupt): nothing was
     decided or receipted

Examples:
  bbdigest keygen --out /etc/bbdigest/gate.key
  bbdigest keygen --out alice.key     # on the principal's device; the
                                      # line in alice.key.pub goes in "principals"
  bbdigest ledger init /var/lib/bbdigest/ledger.db
  docker mcp gateway run \
    --interceptor before:exec:'bbdigest gate --policy /etc/bbdigest/policy.json --receipts /var/lib/bbdigest/receipts.jsonl --key /etc/bbdigest/gate.key --ledger /var/lib/bbdigest/ledger.db'
  bbdigest gate --policy policy.json --receipts receipts.jsonl \
      --key gate.key --ledger ledger.db call.json
`

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
	keySrc, keyInfo, err := readBounded(*keyFile, keyKind)
	if err != nil {
		c.ioFailure(*keyFile, err)
		return exitUsage
	}
	key, err := receipt.ParsePrivateKey(keySrc)
	if err != nil {
		c.errorf("%s: %v", fileField(*keyFile), err)
		if _, perr := receipt.ParsePublicKey(keySrc); perr == nil {
			c.hintf("%s holds a public key: --key takes the private key file that signs, KEYFILE of 'bbdigest keygen --out KEYFILE'", fileField(*keyFile))
		}
		return exitUsage
	}
	if !c.checkPrivateKeyFile("", *keyFile, keyInfo, *insecureKey) {
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
	g, err := gate.New(gate.Config{Policy: policy, Ledger: l, Receipts: log})
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	if !g.Authenticated() {
		c.hintf("%s names no principals: authority is unauthenticated, anyone who can write params._meta can approve a call; name the principals' public keys in \"principals\" ('bbdigest help gate')",
			fileField(*policyFile))
	}

	call := gate.Call{Src: src, Shape: shape}
	call.AuthorityJSON, call.AuthorityErr = metaAuthority(src)
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
	out, err := json.Marshal(denyResult(&d))
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
