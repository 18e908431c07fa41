package main

// Diagnostics: the one-line format of errors, rejections and hints. The
// escaping that keeps everything bbdigest writes inert on a terminal is
// internal/diag's (its package documentation says what is escaped, and
// how), shared with package archive, whose messages and result lines the
// command prints; the functions below are the names of the ones every
// command uses.

import (
	"errors"
	"strconv"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/internal/diag"
	"github.com/bbdigest/bbdigest/internal/verdict"
)

func quote(s string) string        { return diag.Quote(s) }
func safeText(s string) string     { return diag.Text(s) }
func fileField(name string) string { return diag.FileField(name) }
func safeJSON(b []byte) []byte     { return diag.SafeJSON(b) }
func ioMessage(err error) string   { return diag.IOMessage(err) }

func plural[N ~int | ~int64 | ~uint64](n N, one, many string) string {
	return diag.Plural(n, one, many)
}

// canonReason is the REASON of a canon-gate rejection (verdict.CanonReason).
func canonReason(e *canon.Error) string { return verdict.CanonReason(e) }

// rejection writes one rejection diagnostic,
//
//	bbdigest: error: FILE: POINTER: REASON
//
// the format "bbdigest help" documents under Diagnostics.
func (c *cli) rejection(name, pointer, reason string) {
	b := append([]byte("bbdigest: error: "), fileField(name)...)
	b = append(b, ": "...)
	b = diag.AppendQuoted(b, pointer)
	b = append(b, ": "...)
	b = diag.AppendEscaped(b, reason, diag.ModeText)
	c.stderr.Write(append(b, '\n'))
}

// reject reports why the input called name was rejected: a canon-gate
// rejection as one line, with its offset; an envelope that is malformed or
// not found as one line per problem.
func (c *cli) reject(name string, err error) {
	if ce, ok := errors.AsType[*canon.Error](err); ok {
		c.rejection(name, ce.Pointer, canonReason(ce))
		return
	}
	for _, p := range envelope.Problems(err) {
		c.rejection(name, p.Pointer, p.Reason)
	}
	if n := verdict.Omitted(err); n > 0 {
		c.rejection(name, "", "and "+plural(n, "more problem", "more problems")+", not listed")
	}
}

// ioFailure reports that the input called name could not be opened or
// read: "bbdigest: error: FILE: MESSAGE", MESSAGE being the operation and
// the cause without the path ("open: no such file or directory").
func (c *cli) ioFailure(name string, err error) {
	c.errorf("%s: %s", fileField(name), ioMessage(err))
}

// tooLarge is the rejection of an input longer than limit bytes, as the
// canon gate words it.
func tooLarge(limit int) *canon.Error {
	return &canon.Error{
		Class:  canon.ClassTooLarge,
		Offset: int64(limit),
		Msg:    "input longer than the " + strconv.Itoa(limit) + "-byte bound",
	}
}
