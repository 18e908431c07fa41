package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
)

const envelopeUsage = `bbdigest envelope checks, digests and renders a binding-moment envelope
(draft-morrison-binding-moment-envelope-04).

Usage:
  bbdigest envelope validate [--json] [FILE|-]
  bbdigest envelope digest   [FILE|-]
  bbdigest envelope render   [FILE|-]
  bbdigest envelope emit     --ledger PATH [FILE|-]
  bbdigest envelope help

Commands:
  validate  check the envelope against §4 and §5 and the canon gate of
            §6.3; print nothing when it is well-formed, else one line per
            problem on stderr: "bbdigest: error: FILE: POINTER: reason",
            every problem, not only the first
  digest    print the envelope digest of §6.2, sha256:<64 lowercase hex>,
            over the canonical form of the binding_moment value alone
  render    print the plain-text rendering of the decision (§9); for a
            malformed envelope, print the tool result without it instead
            (§9.3) and report the problems on stderr
  emit      record the envelope in a ledger as emitted and print its digest
            (see 'bbdigest resolution help')

Options:
  --json  validate: print one JSON object on stdout,
            {"valid":true,"digest":"sha256:...","problems":[]}
          or, when malformed, "valid":false, "digest":null and one
          {"pointer":"...","reason":"..."} per problem

  The input is the binding_moment value itself, a tool result with a
  binding_moment member, an MCP tools/call result whose structuredContent
  carries it, or a JSON-RPC response with such a result. FILE "-" or no
  FILE reads stdin. Pointers are relative to the binding_moment value,
  except for inputs the canon gate rejects, whose pointer is in the input.

Exit status:
  0  the envelope is well-formed
  1  the envelope is malformed, missing, or rejected by the canon gate
  2  usage or I/O error

Examples:
  bbdigest envelope validate tool-result.json
  bbdigest envelope validate --json < envelope.json
  bbdigest envelope digest envelope.json
  bbdigest envelope render tool-result.json
`

func (c *cli) envelope(args []string) int {
	if len(args) == 0 {
		c.errorf("envelope: missing subcommand")
		c.hintf("run 'bbdigest envelope help' for usage")
		return exitUsage
	}
	switch args[0] {
	case "validate":
		return c.envelopeValidate(args[1:])
	case "digest":
		return c.envelopeDigest(args[1:])
	case "render":
		return c.envelopeRender(args[1:])
	case "emit":
		return c.envelopeEmit(args[1:])
	case "help", "-h", "-help", "--help":
		io.WriteString(c.stdout, envelopeUsage)
		return exitOK
	}
	c.errorf("envelope: unknown subcommand %q", args[0])
	c.hintf("run 'bbdigest envelope help' for usage")
	return exitUsage
}

// envelopeInput parses args into fs, whose flags are defined, and reads
// the one input. A code of -1 means go on.
func (c *cli) envelopeInput(fs *flag.FlagSet, args []string) (name string, src []byte, code int) {
	if isHelp(args) {
		io.WriteString(c.stdout, envelopeUsage)
		return "", nil, exitOK
	}
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return "", nil, code
	}
	name = "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	src, err := c.readInput(name)
	if err != nil {
		c.errorf("%s: %v", fs.Name(), err)
		return "", nil, exitUsage
	}
	return name, src, -1
}

// reportEnvelope reports why the envelope in name was rejected: the canon
// error as one line, or one line per problem.
func (c *cli) reportEnvelope(name string, err error) {
	if ce, ok := canon.AsError(err); ok {
		c.errorf("%s: %v", name, ce)
		return
	}
	for _, p := range envelope.Problems(err) {
		c.errorf("%s: %q: %s", name, p.Pointer, p.Reason)
	}
}

func (c *cli) envelopeValidate(args []string) int {
	fs := c.flagSet("envelope validate")
	asJSON := fs.Bool("json", false, "")
	_, src, code := c.envelopeInput(fs, args)
	if code >= 0 {
		return code
	}
	e, err := envelope.Parse(src)
	if *asJSON {
		type result struct {
			Valid    bool               `json:"valid"`
			Digest   *string            `json:"digest"`
			Problems []envelope.Problem `json:"problems"`
		}
		r := result{Valid: err == nil, Problems: envelope.Problems(err)}
		if r.Problems == nil {
			r.Problems = []envelope.Problem{}
		}
		if err == nil {
			d := e.Digest().String()
			r.Digest = &d
		}
		out, merr := json.Marshal(r)
		if merr != nil {
			panic("BUG: " + merr.Error())
		}
		if code := c.write(append(out, '\n')); code != exitOK {
			return code
		}
		if err != nil {
			return exitRejected
		}
		return exitOK
	}
	if err != nil {
		// The contract scripts rely on: one "POINTER: reason" line per
		// problem (a canon-gate rejection is one such problem).
		for _, p := range envelope.Problems(err) {
			fmt.Fprintf(c.stderr, "%s: %s\n", p.Pointer, p.Reason)
		}
		return exitRejected
	}
	return exitOK
}

func (c *cli) envelopeDigest(args []string) int {
	fs := c.flagSet("envelope digest")
	name, src, code := c.envelopeInput(fs, args)
	if code >= 0 {
		return code
	}
	e, err := envelope.Parse(src)
	if err != nil {
		c.reportEnvelope(name, err)
		return exitRejected
	}
	return c.write(fmt.Appendf(nil, "%s\n", e.Digest()))
}

func (c *cli) envelopeRender(args []string) int {
	fs := c.flagSet("envelope render")
	name, src, code := c.envelopeInput(fs, args)
	if code >= 0 {
		return code
	}
	e, err := envelope.Parse(src)
	if err == nil {
		text := envelope.RenderText(e)
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		return c.write([]byte(text))
	}
	// §4, §9.3: never render a malformed envelope as a decision; show the
	// conventional payload and say why the envelope was discarded.
	if code := c.write(envelope.FallbackText(src)); code != exitOK {
		return code
	}
	c.errorf("%s: binding moment discarded", name)
	c.reportEnvelope(name, err)
	return exitRejected
}
