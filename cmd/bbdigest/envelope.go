package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/verdict"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

// envelopeUsage is the help of envelope and its subcommands, help/envelope.txt.
var envelopeUsage = helpFile("envelope")

// envelopeInput parses args into fs, whose flags are defined, and reads
// the one input (readInput).
func (c *cli) envelopeInput(fs *flag.FlagSet, args []string) (name string, src []byte, rejected error, code int) {
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return "", nil, nil, code
	}
	name = "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	src, rejected, code = c.readInput(name)
	return name, src, rejected, code
}

// readInput reads the whole input called name ("-": stdin) under the
// bound of the inputs read whole (envelopes, resolutions, actions). A code
// of -1 means go on; rejected is then non-nil when the input was rejected
// unread, past the size bound (a *canon.Error, to be reported as Parse's
// errors are). A failure to read is reported, exitUsage.
func (c *cli) readInput(name string) (src []byte, rejected error, code int) {
	src, err := c.readFile(nil, name, c.limit())
	if _, ok := errors.AsType[*canon.Error](err); ok {
		return nil, err, -1
	}
	if err != nil {
		c.ioFailure(name, err)
		return nil, nil, exitUsage
	}
	return src, nil, -1
}

// parseEnvelope parses src, unless the input was already rejected.
func parseEnvelope(src []byte, rejected error) (*envelope.Envelope, error) {
	if rejected != nil {
		return nil, rejected
	}
	return envelope.Parse(src)
}

// writeJSON writes v as one line of JSON, escaped by safeJSON.
func (c *cli) writeJSON(v any) int {
	out, err := json.Marshal(v)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return c.write(append(safeJSON(out), '\n'))
}

func (c *cli) envelopeValidate(args []string) int {
	fs := c.flagSet("envelope validate")
	asJSON := fs.Bool("json", false, "")
	name, src, rejected, code := c.envelopeInput(fs, args)
	if code >= 0 {
		return code
	}
	e, err := parseEnvelope(src, rejected)
	if *asJSON {
		if code := c.writeJSON(verdict.Validate(e, err)); code != exitOK {
			return code
		}
	} else if err != nil {
		c.reject(name, err)
	}
	if err != nil {
		return exitRejected
	}
	return exitOK
}

func (c *cli) envelopeDigest(args []string) int {
	fs := c.flagSet("envelope digest")
	name, src, rejected, code := c.envelopeInput(fs, args)
	if code >= 0 {
		return code
	}
	e, err := parseEnvelope(src, rejected)
	if err != nil {
		c.reject(name, err)
		return exitRejected
	}
	return c.write(fmt.Appendf(nil, "%s\n", e.Digest()))
}

func (c *cli) envelopeRender(args []string) int {
	fs := c.flagSet("envelope render")
	name, src, rejected, code := c.envelopeInput(fs, args)
	if code >= 0 {
		return code
	}
	var p envelope.Parser // its scratch memory serves the fallback too
	var e *envelope.Envelope
	err := rejected
	if err == nil {
		e, err = p.Parse(src)
	}
	if err == nil {
		text := envelope.RenderText(e)
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		return c.write([]byte(text))
	}
	// §4, §9.3: never render a malformed envelope as a decision; show the
	// conventional payload and say why the envelope was discarded. An
	// input too large to read has no payload to show.
	if rejected == nil {
		if code := c.write(p.FallbackText(src)); code != exitOK {
			return code
		}
	}
	c.reject(name, err)
	c.hintf("the binding moment of %s was discarded: not rendered as a decision", fileField(name))
	return exitRejected
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
	switch {
	case !gnuflag.Given(fs)["ledger"]:
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
	src, rejected, code := c.readInput(name)
	if code >= 0 {
		return code
	}
	env, err := parseEnvelope(src, rejected)
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
