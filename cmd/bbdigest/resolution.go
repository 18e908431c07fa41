package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

const resolutionUsage = `bbdigest resolution verify checks a binding-moment resolution against the
envelope it names (draft-morrison-binding-moment-envelope-04 §7.3);
bbdigest resolution sign signs a principal's selection with the
principal's key, for a gate whose policy names its principals.

Usage:
  bbdigest resolution verify --envelope FILE --resolution FILE
                             [--action FILE] [--ledger PATH [--wait D]]
  bbdigest resolution sign --key KEYFILE --envelope FILE --resolution FILE
                           --action FILE [--insecure-key-permissions]

Commands:
  resolution verify  check the resolution and print one JSON object with an
                     "outcome" on stdout, whatever happens (see Output)
  resolution sign    sign the resolution, a selection of an option, and
                     print the signed resolution document (see Signing)

Options:
  --envelope FILE    the envelope held: the binding_moment value, or a tool
                     result that carries it
  --resolution FILE  the resolution: {"binding_moment_resolution":{...}} or
                     the bare inner object
  --action FILE      the JSON text of the action about to be performed; its
                     digest (strict JCS, SHA-256) must equal the selected
                     option's action_digest for authority. Without it an
                     option selected is only a record.
  --ledger PATH      a bbolt file recording emitted and resolved envelopes.
                     With it, the envelope must have been emitted there, and
                     an authority, declined, answer or question outcome marks
                     it resolved, so any later resolution of it, the same one
                     included, is discarded. Only when --ledger is left out
                     altogether is there no single-use check ("single_use":
                     false): a host acting on the outcome must then keep that
                     state itself (§7.3, §12.5). An empty PATH (as an unset
                     shell variable gives) and "-" are usage errors.
                     verify never creates a ledger: a PATH that does not
                     exist is an error (exit 3); 'bbdigest ledger init PATH'
                     creates an empty one, and 'bbdigest envelope emit'
                     one holding the envelope.
                     Beside PATH is PATH.hwm, a high-water file: the ledger
                     refuses a file that is damaged or was rolled back (an
                     older copy, or a damaged newest meta page), answering
                     "corrupt" rather than an older state. Keep both
                     files writable only by the agent (mode 0600, as they
                     are created), and never restore them from a backup.
  --wait D           how long to wait for another process that holds the
                     ledger (default 10s; 0 does not wait), then fail with
                     "locked by another process"
  --key KEYFILE      (sign) the principal's Ed25519 private key, a PKCS#8
                     PEM file from 'bbdigest keygen --out KEYFILE'; its
                     KEYFILE.pub goes in the gate policy's "principals".
                     A regular file of at most 16 KiB that gives its group
                     and others no access (chmod 600), or - for stdin
  --insecure-key-permissions
                     (sign) use a key file that group or others may read

  Single use is at most once: a process killed after the ledger recorded
  an outcome and before it printed it has consumed the envelope unseen.
  Verifying the same resolution again then answers "discarded", with a
  reason that names the outcome that consumed it and when.

  FILE "-" reads stdin (for one of the files at most). An empty FILE is a
  usage error. An input longer than 256 MiB is rejected as too-large.

Output:
  A resolution that was checked:
    {"outcome":"authority","reason":"...","single_use":true}
  The outcome is one of
    authority  an option was selected and the action matches its
               action_digest: the only outcome that authorizes the action
    record     an option was selected, but the action is missing or differs
               (or fails the canon gate): not authority
    declined   the principal declined the question as put
    answer     the answer-space hatch, with an answer
    question   the question-space hatch: reopen deliberation
    discarded  the resolution names another envelope, one not emitted to
               the ledger, or one already resolved
    malformed  the resolution breaks §7.3 (or fails the canon gate), its
               option_idx is out of range, or it uses a hatch the envelope
               does not offer
  "single_use" is true when --ledger was given and false when it was left
  out: then no single-use check was made.

  No resolution checked, because of an error:
    {"outcome":"error","error":KIND,"input":INPUT,"file":"...","reason":"..."}
  INPUT (envelope, resolution, action or ledger) and "file" name the input
  at fault; KIND is one of
    usage       a usage error (no "input"; "reason" as on stderr)
    unreadable  the input could not be opened or read
    canon       the canon gate rejected the envelope, or the action is
                longer than the size bound; with "class", "pointer" and
                "offset" (a resolution the gate rejects is "malformed")
    placement   the envelope file holds no single binding_moment; with
                "pointer", of the object that should carry it
    malformed   the envelope breaks §4 or §5; with "problems",
                [{"pointer":"...","reason":"..."},...], every problem
    ledger      the ledger could not be opened, read or written
  The same errors are reported on stderr as well, in the format of
  'bbdigest help' (Diagnostics).

Signing:
  resolution sign reads the envelope, the resolution (a selection of one of
  its options: "resolution":"option") and the action that option
  authorizes (for a gate: the act's canonical form, 'bbdigest act
  --canonical'), checks that the resolution names this envelope and that
  the action's digest is the selected option's action_digest, and prints
  one line on stdout, the signed resolution document (JCS, strict profile):
    {"@version":"bbdigest-signed-resolution/v1","act_digest":"sha256:...",
     "binding_moment_resolution":{...},"envelope_digest":"sha256:...",
     "key_id":"sha256:...","signature":{"algorithm":"Ed25519","value":"..."},
     "signed_at_ms":...}
  The signature is Ed25519 over the JCS bytes of the document without its
  signature; key_id is the key's id, as keygen prints it; signed_at_ms is
  now, in Unix milliseconds. The document goes where a gate reads the
  resolution of an authority: "resolution" in params._meta
  ["dev.bbdigest/authority"] (see 'bbdigest help gate'). A gate whose
  policy names this key accepts it for this envelope and this act, once,
  within the policy's max_authority_age of the envelope's emission.
  Keep KEYFILE where the agent cannot read it: whoever holds it approves.

Exit status:
  verify:
  0  authority
  1  record, declined, answer, question, discarded or malformed: the
     resolution was checked, and authorizes nothing
  2  error: a usage error, an input that cannot be read, or an envelope
     that is rejected; nothing was checked
  3  error, ledger: the ledger could not be read or written (locked by
     another process, corrupt, I/O error): nothing was authorized or
     recorded
  sign:
  0  signed: the document is on stdout
  1  an input was refused: the envelope, the resolution (malformed, not a
     selection, naming another envelope or an option it lacks) or the
     action (rejected, or not the selected option's); nothing was signed
  2  usage or I/O error, or a KEYFILE that holds no private key

Examples:
  bbdigest envelope emit --ledger agent.db envelope.json
  bbdigest resolution verify --envelope envelope.json \
      --resolution resolution.json --action action.json --ledger agent.db
  bbdigest resolution sign --key alice.key --envelope envelope.json \
      --resolution resolution.json --action action.json > signed.json
`

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

// verifyOutput is the one JSON object resolution verify prints: a checked
// outcome (Outcome, Reason, SingleUse) or, with Outcome "error", why
// nothing was checked.
type verifyOutput struct {
	Outcome   string        `json:"outcome"`
	Error     string        `json:"error,omitempty"`
	Input     string        `json:"input,omitempty"`
	File      *string       `json:"file,omitempty"`
	Reason    string        `json:"reason"`
	Class     string        `json:"class,omitempty"`
	Pointer   *string       `json:"pointer,omitempty"`
	Offset    *int64        `json:"offset,omitempty"`
	Problems  []jsonProblem `json:"problems,omitempty"`
	Omitted   int           `json:"omitted,omitempty"` // problems past the first envelope.MaxProblems
	SingleUse *bool         `json:"single_use,omitempty"`
}

// The kinds of error outcome of resolution verify.
const (
	errUsage      = "usage"
	errUnreadable = "unreadable"
	errCanon      = "canon"
	errPlacement  = "placement"
	errMalformed  = "malformed"
	errLedger     = "ledger"
)

// verifyError returns the error outcome of kind for the input called
// input, read from file.
func verifyError(kind, input, file, reason string) verifyOutput {
	v := verifyOutput{Outcome: "error", Error: kind, Input: input, Reason: reason}
	if input != "" {
		v.File = &file
	}
	return v
}

// rejectedInput returns the error outcome for an input that was rejected
// (by the canon gate, or as an envelope), and reports it on stderr.
func (c *cli) rejectedInput(input, file string, err error) verifyOutput {
	c.reject(file, err)
	if ce, ok := errors.AsType[*canon.Error](err); ok {
		v := verifyError(errCanon, input, file, canonReason(ce))
		v.Class, v.Pointer, v.Offset = ce.Class.String(), &ce.Pointer, &ce.Offset
		return v
	}
	if pe, ok := errors.AsType[*envelope.PlacementError](err); ok {
		v := verifyError(errPlacement, input, file, pe.Reason())
		v.Pointer = &pe.Pointer
		return v
	}
	ps := jsonProblems(err)
	n := len(ps) + omittedProblems(err)
	reason := "malformed envelope: " + strconv.Itoa(n) + " problem"
	if n != 1 {
		reason += "s"
	}
	v := verifyError(errMalformed, input, file, reason)
	v.Problems, v.Omitted = ps, omittedProblems(err)
	return v
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
func (c *cli) verify(cmd string, args []string) (verifyOutput, int) {
	c.lastUsage = ""
	fs := c.flagSet(cmd)
	envFile := fs.String("envelope", "", "")
	resFile := fs.String("resolution", "", "")
	actionFile := fs.String("action", "", "")
	ledgerPath := fs.String("ledger", "", "")
	wait := fs.Duration("wait", bolt.LockTimeout, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		if code == exitOK {
			return verifyOutput{}, exitOK
		}
		return verifyError(errUsage, "", "", c.lastUsage), code
	}

	// Usage: tell a flag left out from one given an empty value, which an
	// unset shell variable gives and which must never weaken the check.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
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
		return verifyError(errUsage, "", "", strings.Join(usage, "; ")), exitUsage
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
			return verifyError(errUnreadable, in.name, in.file, ioMessage(err)), exitUsage
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
			return verifyError(errLedger, "ledger", *ledgerPath, ledgerMessage(err)), c.ledgerFailure(cmd, err)
		}
		result, err = envelope.NewResolver(l).Resolve(context.Background(), env, resIn.src, action)
		if cerr := l.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return verifyError(errLedger, "ledger", *ledgerPath, ledgerMessage(err)), c.ledgerFailure(cmd, err)
		}
	}
	code := exitRejected
	if result.Authorizes() {
		code = exitOK
	}
	return verifyOutput{Outcome: result.Outcome.String(), Reason: result.Reason, SingleUse: &withLedger}, code
}

// envelopeEmit is "bbdigest envelope emit --ledger PATH [FILE|-]": it
// records the envelope's digest in the ledger as emitted and prints it.
func (c *cli) envelopeEmit(args []string) int {
	const cmd = "envelope emit"
	fs := c.flagSet(cmd)
	ledgerPath := fs.String("ledger", "", "")
	wait := fs.Duration("wait", bolt.LockTimeout, "")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "ledger" })
	switch {
	case !given:
		return c.usageError(cmd, "missing --ledger PATH")
	case *ledgerPath == "":
		return c.usageError(cmd, "empty --ledger PATH")
	case *ledgerPath == "-":
		return c.usageError(cmd, "--ledger -: the ledger is a file, not stdin")
	case *wait < 0:
		return c.usageError(cmd, "negative --wait "+wait.String())
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	src, err := c.readFile(nil, name, c.limit())
	if _, ok := errors.AsType[*canon.Error](err); !ok && err != nil {
		c.ioFailure(name, err)
		return exitUsage
	}
	env, err := parseEnvelope(src, err)
	if err != nil {
		c.reject(name, err)
		return exitRejected
	}
	l, err := bolt.Open(*ledgerPath, ledgerOptions(*wait, false))
	if err != nil {
		return c.ledgerFailure(cmd, err)
	}
	err = l.Emit(env.Digest())
	if cerr := l.Close(); err == nil && cerr != nil {
		err = cerr
	}
	switch {
	case errors.Is(err, ledger.ErrAlreadyResolved):
		c.rejection(name, "", fmt.Sprintf("envelope %s is already resolved", env.Digest()))
		c.hintf("to ask again, emit an envelope that differs, e.g. in its synopsis or findings (§12.5)")
		return exitRejected
	case err != nil:
		return c.ledgerFailure(cmd, err)
	}
	return c.write(fmt.Appendf(nil, "%s\n", env.Digest()))
}
