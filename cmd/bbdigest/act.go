package main

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/sumline"
)

// actHelp is the help of act, help/act.txt.
var actHelp = helpFile("act")

// act is "bbdigest act": the act digest of one tool call, or with
// --canonical the canonical act.
func (c *cli) act(args []string) int {
	const cmd = "act"
	fs := c.flagSet(cmd)
	shapeName := fs.String("shape", "auto", "")
	server := fs.String("server", "", "")
	profileName := fs.String("profile", "strict", "")
	canonical := fs.Bool("canonical", false, "")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	shape, err := act.ParseShape(*shapeName)
	if err != nil {
		return c.usageError(cmd, "unknown shape "+quote(*shapeName)+": want auto, anthropic, openai or mcp")
	}
	if !utf8.ValidString(*server) {
		return c.usageError(cmd, "--server "+quote(*server)+" is not valid UTF-8")
	}
	profile, ok := c.profile(*profileName)
	if !ok {
		return exitUsage
	}
	// The act takes the profile's rules, not its size bound: the input's
	// is c.limit().
	if profile.IntegersOnly() {
		profile = canon.Strict
	} else {
		profile = canon.RFC8785
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	src, err := c.readFile(c.in, name, c.limit())
	c.in = src[:0]
	if err != nil {
		if _, ok := errors.AsType[*canon.Error](err); ok {
			c.reject(name, err)
			return exitRejected
		}
		c.ioFailure(name, err)
		return exitUsage
	}
	p := act.Parser{Server: *server, Profile: profile}
	var a act.Act
	err = p.ParseInto(&a, src, shape)
	if errors.Is(err, act.ErrMessage) {
		return c.actMessage(&p, name, src, shape, *canonical)
	}
	if err != nil {
		return c.actRefused(name, err)
	}
	if *canonical {
		return c.write(a.Canonical)
	}
	return c.write(append(a.Digest.AppendTo(nil), '\n'))
}

// actMessage is "bbdigest act" for an assistant message or model response
// (act.ParseInto refused src with act.ErrMessage): one line per call, in
// order, "sha256:<hex>  TOOL" with TOOL escaped as digest --names escapes
// a name, or with canonical the canonical act and a newline.
func (c *cli) actMessage(p *act.Parser, name string, src []byte, shape act.Shape, canonical bool) int {
	acts, err := p.AppendMessage(nil, src, shape)
	if err != nil {
		return c.actRefused(name, err)
	}
	var line []byte
	for i := range acts {
		a := &acts[i]
		if canonical {
			line = append(line[:0], a.Canonical...)
		} else {
			line = sumline.AppendName(append(a.Digest.AppendTo(line[:0]), "  "...), a.Tool)
		}
		if code := c.write(append(line, '\n')); code != exitOK {
			return code
		}
	}
	return exitOK
}

// actRefused reports the refusal err of the input called name.
func (c *cli) actRefused(name string, err error) int {
	e, ok := errors.AsType[*act.Error](err)
	if !ok {
		c.errorf("%v", err) // the server, checked before reading: not reached; act's errors start "act: "
		return exitUsage
	}
	c.rejection(name, e.Pointer, actReason(e))
	return exitRejected
}

// actReason is the REASON of a refused call: "CLASS: MESSAGE at offset N",
// or, inside an OpenAI arguments string, "CLASS: MESSAGE within "INNER" at
// offset N of the decoded string".
func actReason(e *act.Error) string {
	ce, isCanon := errors.AsType[*canon.Error](e.Err)
	if isCanon && !e.InString {
		return canonReason(ce)
	}
	var b strings.Builder
	if isCanon {
		b.WriteString(ce.Class.String())
		b.WriteString(": ")
		b.WriteString(ce.Msg)
		b.WriteString(" within ")
		b.WriteString(quote(ce.Pointer))
	} else {
		b.WriteString(act.ClassShape)
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	b.WriteString(" at offset ")
	b.WriteString(strconv.FormatInt(e.Offset, 10))
	if e.InString {
		b.WriteString(" of the decoded string")
	}
	return b.String()
}
