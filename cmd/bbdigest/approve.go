package main

// bbdigest approve: the principal's side of the gate's approval loop. The
// gate (with --ask) stores an approval request in its ledger for each call
// that needs authority and carries none; approve lists them, shows one as
// §9 renders it, and records the principal's decision, a resolution
// signed with the principal's key and recorded (gate.Decide), which
// the gate finds when the agent retries the identical call.

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/shell"
	"github.com/bbdigest/bbdigest/internal/verdict"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// approveHelp is the help of approve, help/approve.txt.
var approveHelp = helpFile("approve")

// approveFlags are the flags every approve subcommand takes.
type approveFlags struct {
	ledger string
	wait   time.Duration
}

func (c *cli) approveFlagSet(cmd string) (*flag.FlagSet, *approveFlags) {
	fs := c.flagSet(cmd)
	f := new(approveFlags)
	fs.StringVar(&f.ledger, "ledger", "", "")
	fs.DurationVar(&f.wait, "wait", bolt.LockTimeout, "")
	return fs, f
}

// openApprovals checks the flags common to the subcommands and opens the
// ledger, which must exist. A code of -1 means go on.
func (c *cli) openApprovals(cmd string, fs *flag.FlagSet, f *approveFlags) (*bolt.Ledger, int) {
	switch {
	case !gnuflag.Given(fs)["ledger"]:
		return nil, c.usageError(cmd, "missing --ledger PATH")
	case f.ledger == "":
		return nil, c.usageError(cmd, "empty --ledger PATH")
	case f.ledger == "-":
		return nil, c.usageError(cmd, "--ledger -: the ledger is a file")
	case f.wait < 0:
		return nil, c.usageError(cmd, "negative --wait "+f.wait.String())
	}
	l, err := bolt.Open(f.ledger, ledgerOptions(f.wait, true))
	if err != nil {
		return nil, c.ledgerFailure(cmd, err)
	}
	return l, -1
}

// approveDigest reads the one operand, an envelope digest.
func (c *cli) approveDigest(cmd string, operands []string) (hashing.Digest, int) {
	if len(operands) == 0 {
		return hashing.Digest{}, c.usageError(cmd, "missing DIGEST, the envelope digest 'bbdigest approve list' shows")
	}
	d, err := hashing.ParseDigest(operands[0])
	if err != nil {
		return hashing.Digest{}, c.usageError(cmd, "DIGEST "+quote(operands[0])+": not of the form sha256:<64 lowercase hex>")
	}
	return d, -1
}

// approveList runs "bbdigest approve list --ledger PATH [--all] [--json]".
func (c *cli) approveList(args []string) int {
	const cmd = "approve list"
	fs, f := c.approveFlagSet(cmd)
	asJSON := fs.Bool("json", false, "")
	all := fs.Bool("all", false, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	l, code := c.openApprovals(cmd, fs, f)
	if code >= 0 {
		return code
	}
	defer l.Close()
	rs, err := l.Requests()
	if err != nil {
		return c.ledgerFailure(cmd, err)
	}
	var out strings.Builder
	tw := tabwriter.NewWriter(&out, 0, 8, 2, ' ', 0)
	if !*asJSON {
		io.WriteString(tw, "STATE\tEMITTED\tCLASS\tTOOL\tENVELOPE\n")
	}
	for i := range rs {
		r := &rs[i]
		if !*all && !r.State.Open() {
			continue
		}
		if *asJSON {
			if code := c.writeJSON(verdict.Summary(r)); code != exitOK {
				return code
			}
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", safeText(verdict.Status(r)), r.EmittedAt.UTC().Format(time.RFC3339), safeText(r.Class), quote(r.Tool), r.EnvelopeDigest)
	}
	if *asJSON {
		return exitOK
	}
	tw.Flush()
	return c.write([]byte(out.String()))
}

// approveRequest opens the ledger and finds the request DIGEST names.
func (c *cli) approveRequest(cmd string, fs *flag.FlagSet, f *approveFlags, operands []string) (*bolt.Ledger, *ledger.Request, int) {
	d, code := c.approveDigest(cmd, operands)
	if code >= 0 {
		return nil, nil, code
	}
	l, code := c.openApprovals(cmd, fs, f)
	if code >= 0 {
		return nil, nil, code
	}
	r, ok, err := l.Request(d)
	if err != nil {
		l.Close()
		return nil, nil, c.ledgerFailure(cmd, err)
	}
	if !ok {
		l.Close()
		c.errorf("%s: no approval request %s in ledger %s", cmd, d, fileField(f.ledger))
		c.hintf("'bbdigest approve list --ledger %s' lists the requests", shell.Quote(f.ledger))
		return nil, nil, exitRejected
	}
	return l, &r, -1
}

// approveShow runs "bbdigest approve show --ledger PATH DIGEST".
func (c *cli) approveShow(args []string) int {
	const cmd = "approve show"
	fs, f := c.approveFlagSet(cmd)
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	l, r, code := c.approveRequest(cmd, fs, f, operands)
	if code >= 0 {
		return code
	}
	defer l.Close()
	env, err := gate.RequestEnvelope(r)
	if err != nil {
		c.errorf("%s: %v", cmd, err)
		return exitRejected
	}
	var b strings.Builder
	b.WriteString(envelope.RenderText(env))
	fmt.Fprintf(&b, "\nTool: %s\nServer: %s\nClass: %s\nAct: %s\nEmitted: %s\nState: %s\n",
		quote(r.Tool), quote(r.Server), safeText(r.Class), r.ActDigest, r.EmittedAt.UTC().Format(time.RFC3339Nano), safeText(verdict.Status(r)))
	return c.write([]byte(b.String()))
}

// approveGrant runs "bbdigest approve grant --ledger PATH --key KEYFILE
// [--option N] DIGEST".
func (c *cli) approveGrant(args []string) int { return c.approveDecide("approve grant", true, args) }

// approveDeny runs "bbdigest approve deny --ledger PATH --key KEYFILE
// DIGEST".
func (c *cli) approveDeny(args []string) int { return c.approveDecide("approve deny", false, args) }

func (c *cli) approveDecide(cmd string, grant bool, args []string) int {
	fs, f := c.approveFlagSet(cmd)
	keyFile := fs.String("key", "", "")
	insecureKey := fs.Bool("insecure-key-permissions", false, "")
	option := 1
	if grant {
		fs.IntVar(&option, "option", 1, "")
	}
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	switch {
	case !gnuflag.Given(fs)["key"]:
		return c.usageError(cmd, "missing --key KEYFILE, the principal's private key")
	case *keyFile == "":
		return c.usageError(cmd, "empty --key KEYFILE")
	case option < 1:
		return c.usageError(cmd, "--option "+strconv.Itoa(option)+": options count from 1, as 'bbdigest approve show' numbers them")
	}
	if _, code := c.approveDigest(cmd, operands); code >= 0 {
		return code
	}
	// The principal's key first, as resolution sign reads it: nothing is
	// opened for a key that does not load.
	priv, ok := c.principalKey(*keyFile, *insecureKey)
	if !ok {
		return exitUsage
	}

	l, r, code := c.approveRequest(cmd, fs, f, operands)
	if code >= 0 {
		return code
	}
	defer l.Close()
	if err := gate.Decide(l, r, grant, option-1, priv, time.Now()); err != nil {
		if de, ok := errors.AsType[*gate.DecideError](err); ok {
			c.errorf("%s: %s", cmd, de.Reason)
			if de.Hint != "" {
				c.hintf("%s", de.Hint)
			}
			return exitRejected
		}
		return c.ledgerFailure(cmd, err)
	}
	return c.write([]byte(decisionLine(r, grant, priv)))
}

// decisionLine is the line approve grant and deny, and approve serve for
// each decision of its page, print for a decision recorded on r.
func decisionLine(r *ledger.Request, grant bool, priv ed25519.PrivateKey) string {
	verb := "denied"
	if grant {
		verb = "granted"
	}
	keyID := receipt.KeyID(priv.Public().(ed25519.PublicKey))
	return fmt.Sprintf("%s %s, tool %s, as key %s: the agent's retry of the identical call finds it\n", verb, r.EnvelopeDigest, quote(r.Tool), keyID)
}

// principalKey reads the principal's Ed25519 private key from file (- for
// stdin), as keygen --out writes it: a regular file of at most keyKind's
// bound, open to no one else unless insecure. It reports why not, and
// false, when the key does not load. resolution sign and approve grant and
// deny read their --key with it.
func (c *cli) principalKey(file string, insecure bool) (ed25519.PrivateKey, bool) {
	return c.privateKey(file, insecure, ": --key takes the principal's private key file, KEYFILE of 'bbdigest keygen --out KEYFILE'")
}
