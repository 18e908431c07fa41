package main

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/verdict"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

// resolutionUsage is the help of resolution and its subcommands, help/resolution.txt.
var resolutionUsage = helpFile("resolution")

// ledgerFailure reports that the ledger could not be created, opened, read
// or written, and returns the exit code for it: exitLedger, or exitUsage
// when ledger init refused to replace a file. Every ledger failure of
// resolution verify, envelope emit, gate and ledger init goes through here.
func (c *cli) ledgerFailure(cmd string, err error) int {
	c.errorf("%s: %s", cmd, ledgerMessage(err))
	switch {
	case errors.Is(err, fs.ErrExist):
		c.hintf("ledger init never replaces a file; deleting a ledger and its PATH.hwm forgets which envelopes it consumed")
		return exitUsage
	case errors.Is(err, ledger.ErrLocked):
		c.hintf("another bbdigest holds the ledger; --wait D waits longer for it")
	case errors.Is(err, ledger.ErrCorrupt):
		c.hintf("nothing was authorized or recorded; the ledger needs a person's decision (see 'bbdigest help resolution')")
	case errors.Is(err, fs.ErrNotExist) && cmd != "envelope emit" && cmd != "ledger init":
		// The commands that consume authority never create a ledger
		// (see ledgerOptions); those that create one need its directory.
		c.hintf("create an empty ledger with 'bbdigest ledger init PATH'; 'bbdigest envelope emit --ledger PATH' records envelopes in it")
	}
	return exitLedger
}

// ledgerMessage is what the command says of a ledger failure: the
// *ledger.Error's Detail, without the package's name, which means nothing
// to a user of the command.
func ledgerMessage(err error) string {
	if e, ok := errors.AsType[*ledger.Error](err); ok {
		return e.Detail()
	}
	return err.Error()
}

// ledgerOptions returns the options for opening the ledger: wait is the
// --wait flag, mustExist whether a missing ledger is an error.
func ledgerOptions(wait time.Duration, mustExist bool) *bolt.Options {
	return &bolt.Options{Wait: wait, MustExist: mustExist}
}

// rejectedInput returns the error outcome for an input that was rejected
// (by the canon gate, or as an envelope), and reports it on stderr.
func (c *cli) rejectedInput(input, file string, err error) verdict.Verify {
	c.reject(file, err)
	return verdict.Rejected(input, file, err)
}

func (c *cli) resolutionVerify(args []string) int {
	const cmd = "resolution verify"
	v, code := c.verify(cmd, args)
	if code == exitOK && v.Outcome == "" {
		return exitOK // --help
	}
	if wcode := c.writeJSON(v); wcode != exitOK {
		return wcode
	}
	return code
}

// verify runs resolution verify and returns its JSON answer and exit code;
// it reports errors on stderr. A zero answer and exitOK mean that the help
// was printed.
func (c *cli) verify(cmd string, args []string) (verdict.Verify, int) {
	c.lastUsage = ""
	fs := c.flagSet(cmd)
	envFile := fs.String("envelope", "", "")
	resFile := fs.String("resolution", "", "")
	actionFile := fs.String("action", "", "")
	ledgerPath := fs.String("ledger", "", "")
	wait := fs.Duration("wait", bolt.LockTimeout, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		if code == exitOK {
			return verdict.Verify{}, exitOK
		}
		return verdict.Error(verdict.ErrUsage, "", "", c.lastUsage), code
	}

	// Usage: tell a flag left out from one given an empty value, which an
	// unset shell variable gives and which must never weaken the check.
	given := gnuflag.Given(fs)
	var usage []string
	for _, f := range []struct {
		name     string
		value    string
		required bool
	}{{"envelope", *envFile, true}, {"resolution", *resFile, true}, {"action", *actionFile, false}} {
		switch {
		case !given[f.name] && f.required:
			usage = append(usage, "missing --"+f.name+" FILE")
		case given[f.name] && f.value == "":
			usage = append(usage, "empty --"+f.name+" FILE")
		}
	}
	switch {
	case given["ledger"] && *ledgerPath == "":
		usage = append(usage, "empty --ledger PATH: leave --ledger out to verify with no single-use check")
	case given["ledger"] && *ledgerPath == "-":
		usage = append(usage, "--ledger -: the ledger is a file, not stdin")
	case given["wait"] && !given["ledger"]:
		usage = append(usage, "--wait without --ledger")
	}
	if *wait < 0 {
		usage = append(usage, "negative --wait "+wait.String())
	}
	stdin := 0
	for _, n := range []string{*envFile, *resFile, *actionFile} {
		if n == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		usage = append(usage, "only one input can be stdin (-)")
	}
	if len(usage) > 0 {
		for _, u := range usage {
			c.errorf("%s: %s", cmd, u)
		}
		c.hintf("%s", helpHint(cmd))
		return verdict.Error(verdict.ErrUsage, "", "", strings.Join(usage, "; ")), exitUsage
	}
	withLedger := given["ledger"]

	// The inputs.
	type input struct {
		name, file string
		src        []byte
		rejected   error // past the size bound: a *canon.Error
	}
	inputs := []*input{{name: "envelope", file: *envFile}, {name: "resolution", file: *resFile}}
	if given["action"] {
		inputs = append(inputs, &input{name: "action", file: *actionFile})
	}
	for _, in := range inputs {
		src, err := c.readFile(nil, in.file, c.limit())
		if _, ok := errors.AsType[*canon.Error](err); ok {
			in.rejected = err
			continue
		}
		if err != nil {
			c.ioFailure(in.file, err)
			return verdict.Error(verdict.ErrUnreadable, in.name, in.file, ioMessage(err)), exitUsage
		}
		in.src = src
	}
	envIn, resIn := inputs[0], inputs[1]
	var action []byte
	if len(inputs) == 3 {
		if inputs[2].rejected != nil {
			// Verify would answer "record", but the action was never
			// read: say so, and check nothing.
			return c.rejectedInput("action", inputs[2].file, inputs[2].rejected), exitUsage
		}
		action = inputs[2].src
		if action == nil {
			action = []byte{} // an empty file is an action that fails the gate, not "no action"
		}
	}

	env, err := parseEnvelope(envIn.src, envIn.rejected)
	if err != nil {
		return c.rejectedInput("envelope", envIn.file, err), exitUsage
	}

	var result envelope.Result
	switch {
	case resIn.rejected != nil:
		// As ParseResolution, and so Resolve, answers input the canon gate
		// rejects; a malformed resolution changes no ledger.
		result = envelope.Result{Outcome: envelope.OutcomeMalformed, Reason: resIn.rejected.Error()}
	case !withLedger:
		// No ledger: Verify alone, with no single-use check.
		res, err := envelope.ParseResolution(resIn.src)
		if err != nil {
			result = envelope.Result{Outcome: envelope.OutcomeMalformed, Reason: err.Error()}
		} else {
			result = envelope.Verify(env, res, action)
		}
	default:
		// The ledger must exist: a fresh, empty one would hold no
		// emitted envelope, and a typo in PATH must not look like one.
		l, err := bolt.Open(*ledgerPath, ledgerOptions(*wait, true))
		if err != nil {
			return verdict.Error(verdict.ErrLedger, "ledger", *ledgerPath, ledgerMessage(err)), c.ledgerFailure(cmd, err)
		}
		result, err = envelope.NewResolver(l).Resolve(context.Background(), env, resIn.src, action)
		if cerr := l.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return verdict.Error(verdict.ErrLedger, "ledger", *ledgerPath, ledgerMessage(err)), c.ledgerFailure(cmd, err)
		}
	}
	code := exitRejected
	if result.Authorizes() {
		code = exitOK
	}
	return verdict.Verify{Outcome: result.Outcome.String(), Reason: result.Reason, SingleUse: &withLedger}, code
}
