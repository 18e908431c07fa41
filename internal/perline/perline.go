// Package perline answers a JSON Lines input line by line: the --lines
// mode of "bbdigest canon" and "bbdigest digest". Each line is one JSON
// text under a profile, answered by one output line, its digest or its
// canonical form, or by its error line (AppendErrorLine). The lines are
// canonicalized and hashed by package batch, on every core, and answered
// in input order; the output does not depend on the number of workers.
package perline

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/diag"
)

// outSize is the output buffer of Run, flushed whenever the run waits for
// input (batch.Options.Idle) and at the end.
const outSize = 64 << 10

// Run answers each line of r on w: with its digest when digest is set,
// else with its canonical form, or with its error line, under profile p,
// whose size bound is the bound of a line. The lines are canonicalized and
// hashed on workers goroutines (0: one per core). Each answer is written
// before the run waits for more input, so that a line-at-a-time producer
// sees each answer before it writes the next line. Run returns the number
// of lines rejected, and the first failure to read r or to write w, as
// they returned it.
func Run(r io.Reader, w io.Writer, p canon.Profile, digest bool, workers int) (rejected int64, err error) {
	bw := bufio.NewWriterSize(w, outSize)
	mode := batch.ModeCanonical
	if digest {
		mode = batch.ModeDigest
	}
	opts := batch.Options{
		Profile: p, // its size bound is the bound of a line
		Mode:    mode,
		Workers: workers,
		// About to wait for input: let the answers so far out, so that a
		// line-at-a-time producer sees each answer before it writes the
		// next line.
		Idle: bw.Flush,
		// r is a file or a pipe: a Read is a copy, which the workers
		// make themselves (see batch.Options.WorkersRead).
		WorkersRead: true,
	}
	ans := answerer{digest: digest}
	sum, err := batch.Stream(context.Background(), r, opts, func(res batch.Result) error {
		return ans.write(bw, res)
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return sum.Rejected, err
}

// answerer writes the answers of --lines. Once warm it makes no
// allocations for accepted lines.
type answerer struct {
	digest bool   // answer with digests, not canonical forms
	out    []byte // the answer being built
}

// write writes the answer to one line: its digest or its canonical form,
// or its error line.
func (a *answerer) write(w *bufio.Writer, res batch.Result) error {
	if res.Err != nil {
		e, ok := errors.AsType[*canon.Error](res.Err)
		if !ok {
			return res.Err // batch answers every line with a *canon.Error
		}
		a.out = AppendErrorLine(a.out[:0], e)
		_, err := w.Write(a.out)
		return err
	}
	if a.digest {
		a.out = append(res.Digest.AppendTo(a.out[:0]), '\n')
		_, err := w.Write(a.out)
		return err
	}
	if _, err := w.Write(res.Canonical); err != nil {
		return err
	}
	return w.WriteByte('\n')
}

// AppendErrorLine appends the answer to a rejected line:
//
//	error CLASS OFFSET MESSAGE within "POINTER"
//
// OFFSET is the byte offset in the line. MESSAGE and POINTER are escaped
// as every diagnostic of the command is (internal/diag), so the answer is
// one line and holds nothing a terminal interprets.
func AppendErrorLine(b []byte, e *canon.Error) []byte {
	b = append(b, "error "...)
	b = append(b, e.Class.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, ' ')
	if e.Msg != "" {
		b = diag.AppendEscaped(b, e.Msg, diag.ModeText)
		b = append(b, ' ')
	}
	b = append(b, "within "...)
	b = diag.AppendQuoted(b, e.Pointer)
	return append(b, '\n')
}
