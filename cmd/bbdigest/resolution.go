package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
)

const resolutionUsage = `bbdigest resolution verify checks a binding-moment resolution against the
envelope it names (draft-morrison-binding-moment-envelope-04 §7.3).

Usage:
  bbdigest resolution verify --envelope FILE --resolution FILE
                             [--action FILE] [--ledger PATH]
  bbdigest envelope emit --ledger PATH [FILE|-]

Commands:
  resolution verify  print one JSON object {"outcome":"...","reason":"..."}
                     for the resolution. The outcome is one of
                       authority  an option was selected and the action
                                  matches its action_digest: the only outcome
                                  that authorises the action
                       record     an option was selected, but the action is
                                  missing or differs: not authority
                       declined   the principal declined the question as put
                       answer     the answer-space hatch, with an answer
                       question   the question-space hatch: reopen deliberation
                       discarded  the resolution names another envelope, one not
                                  emitted to the ledger, or one already resolved
                       malformed  the resolution breaks §7.3, its option_idx is
                                  out of range, or it uses a hatch the envelope
                                  does not offer
  envelope emit      record an envelope in the ledger as emitted, and print its
                     digest

Options:
  --envelope FILE    the envelope held: the binding_moment value, or a tool
                     result that carries it
  --resolution FILE  the resolution: {"binding_moment_resolution":{...}} or
                     the bare inner object
  --action FILE      the JSON text of the action about to be performed; its
                     digest (strict JCS, SHA-256) must equal the selected
                     option's action_digest for authority
  --ledger PATH      a bbolt file recording emitted and resolved envelopes.
                     With it, the envelope must have been emitted there, and
                     an authority, declined, answer or question outcome marks
                     it resolved, so any later resolution of it, the same one
                     included, is discarded. Without it there is no
                     single-use check: a host acting on the outcome must keep
                     that state itself (§7.3, §12.5).

  FILE "-" reads stdin (for one of the files at most).

Exit status:
  0  resolution verify: authority; envelope emit: recorded
  1  any other outcome; a malformed or already resolved envelope
  2  usage or I/O error (missing flag, unreadable file, ledger unavailable)

Examples:
  bbdigest envelope emit --ledger agent.db envelope.json
  bbdigest resolution verify --envelope envelope.json \
      --resolution resolution.json --action action.json --ledger agent.db
`

// isHelp reports whether args ask for help before any "--", so that the
// subcommands print their own usage rather than the general one.
func isHelp(args []string) bool {
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[:i]
	}
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "-h" || a == "-help" || a == "--help"
	})
}

func (c *cli) resolution(args []string) int {
	if len(args) == 0 {
		c.errorf("resolution: missing subcommand")
		c.hintf("run 'bbdigest resolution verify --envelope FILE --resolution FILE'")
		return exitUsage
	}
	switch args[0] {
	case "verify":
		return c.resolutionVerify(args[1:])
	case "help", "-h", "-help", "--help":
		io.WriteString(c.stdout, resolutionUsage)
		return exitOK
	}
	c.errorf("resolution: unknown subcommand %q", args[0])
	c.hintf("run 'bbdigest resolution help' for usage")
	return exitUsage
}

// readInput reads the whole input called name ("-" is stdin), up to one
// byte past the strict profile's size bound, which the canon gate rejects.
func (c *cli) readInput(name string) ([]byte, error) {
	r, done, err := c.open(name)
	if err != nil {
		return nil, err
	}
	defer done()
	return io.ReadAll(io.LimitReader(r, canon.DefaultMaxSize+1))
}

// readFlagFiles reads the files the flags name, in order; "" is skipped
// (nil). It reports a problem and returns false on failure.
func (c *cli) readFlagFiles(cmd string, names ...string) ([][]byte, bool) {
	stdin := 0
	for _, n := range names {
		if n == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		c.errorf("%s: only one input can be stdin (-)", cmd)
		return nil, false
	}
	out := make([][]byte, len(names))
	for i, n := range names {
		if n == "" {
			continue
		}
		b, err := c.readInput(n)
		if err != nil {
			c.errorf("%s: %v", cmd, err)
			return nil, false
		}
		out[i] = b
	}
	return out, true
}

// parseEnvelope parses the envelope file, reporting a rejection: a
// malformed envelope as one line per problem, so that none is cut.
func (c *cli) parseEnvelope(cmd, name string, src []byte) (*envelope.Envelope, bool) {
	env, err := envelope.Parse(src)
	if err == nil {
		return env, true
	}
	if me, ok := errors.AsType[*envelope.MalformedError](err); ok && len(me.Problems) > 0 {
		for _, p := range me.Problems {
			c.errorf("%s: %s: malformed envelope: %q: %s", cmd, name, p.Pointer, p.Reason)
		}
		return nil, false
	}
	c.errorf("%s: %s: %v", cmd, name, err)
	return nil, false
}

func (c *cli) resolutionVerify(args []string) int {
	const cmd = "resolution verify"
	if isHelp(args) {
		io.WriteString(c.stdout, resolutionUsage)
		return exitOK
	}
	fs := c.flagSet(cmd)
	envFile := fs.String("envelope", "", "")
	resFile := fs.String("resolution", "", "")
	actionFile := fs.String("action", "", "")
	ledgerPath := fs.String("ledger", "", "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	var missing []string
	if *envFile == "" {
		missing = append(missing, "--envelope")
	}
	if *resFile == "" {
		missing = append(missing, "--resolution")
	}
	if len(missing) > 0 {
		for _, m := range missing {
			c.errorf("%s: missing %s FILE", cmd, m)
		}
		c.hintf("run 'bbdigest resolution help' for usage")
		return exitUsage
	}
	files, ok := c.readFlagFiles(cmd, *envFile, *resFile, *actionFile)
	if !ok {
		return exitUsage
	}
	envSrc, resSrc, action := files[0], files[1], files[2]
	if *actionFile != "" && action == nil {
		action = []byte{} // an empty file is an action that fails the gate, not "no action"
	}

	env, ok := c.parseEnvelope(cmd, *envFile, envSrc)
	if !ok {
		return exitRejected
	}

	var result envelope.Result
	if *ledgerPath == "" {
		// No ledger: Verify alone, with no single-use check.
		res, err := envelope.ParseResolution(resSrc)
		if err != nil {
			result = envelope.Result{Outcome: envelope.OutcomeMalformed, Reason: err.Error()}
		} else {
			result = envelope.Verify(env, res, action)
		}
	} else {
		l, err := envelope.OpenBoltLedger(*ledgerPath)
		if err != nil {
			c.errorf("%s: %v", cmd, err)
			return exitUsage
		}
		result, err = envelope.NewResolver(l).Resolve(context.Background(), env, resSrc, action)
		if cerr := l.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			c.errorf("%s: %v", cmd, err)
			return exitUsage
		}
	}
	if code := c.writeResult(result); code != exitOK {
		return code
	}
	if !result.Authorizes() {
		return exitRejected
	}
	return exitOK
}

// writeResult prints r as one JSON object and a newline.
func (c *cli) writeResult(r envelope.Result) int {
	b, err := json.Marshal(struct {
		Outcome string `json:"outcome"`
		Reason  string `json:"reason"`
	}{r.Outcome.String(), r.Reason})
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return c.write(append(b, '\n'))
}

// envelopeEmit is "bbdigest envelope emit --ledger PATH [FILE|-]": it
// records the envelope's digest in the ledger as emitted and prints it.
func (c *cli) envelopeEmit(args []string) int {
	const cmd = "envelope emit"
	if isHelp(args) {
		io.WriteString(c.stdout, resolutionUsage)
		return exitOK
	}
	fs := c.flagSet(cmd)
	ledgerPath := fs.String("ledger", "", "")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	if *ledgerPath == "" {
		c.errorf("%s: missing --ledger PATH", cmd)
		c.hintf("run 'bbdigest resolution help' for usage")
		return exitUsage
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	src, err := c.readInput(name)
	if err != nil {
		c.errorf("%s: %v", cmd, err)
		return exitUsage
	}
	env, ok := c.parseEnvelope(cmd, name, src)
	if !ok {
		return exitRejected
	}
	l, err := envelope.OpenBoltLedger(*ledgerPath)
	if err != nil {
		c.errorf("%s: %v", cmd, err)
		return exitUsage
	}
	err = l.Emit(env.Digest())
	if cerr := l.Close(); err == nil && cerr != nil {
		err = cerr
	}
	switch {
	case errors.Is(err, envelope.ErrAlreadyResolved):
		c.errorf("%s: %s: envelope %s is already resolved", cmd, name, env.Digest())
		c.hintf("to ask again, emit an envelope that differs, e.g. in its synopsis or findings (§12.5)")
		return exitRejected
	case err != nil:
		c.errorf("%s: %v", cmd, err)
		return exitUsage
	}
	return c.write(fmt.Appendf(nil, "%s\n", env.Digest()))
}
