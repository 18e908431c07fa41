package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
)

// linesOutSize is the output buffer of --lines, flushed whenever the run
// waits for input (batch.Options.Idle) and at the end.
const linesOutSize = 64 << 10

// maxWorkers is the largest --workers: each worker keeps about two blocks
// of batch.DefaultBlockSize in flight (some 2 MB), so a mistyped count
// must not ask for gigabytes.
const maxWorkers = 1024

// workersFlag is the value of --workers; 0, its default, means one worker
// per core (GOMAXPROCS).
type workersFlag int

func (w *workersFlag) String() string { return strconv.Itoa(int(*w)) }

func (w *workersFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxWorkers {
		return fmt.Errorf("want a whole number of workers from 1 to %d", maxWorkers)
	}
	*w = workersFlag(n)
	return nil
}

// linesFlags defines the flags of --lines on the flag set of canon or
// digest: --lines itself and --workers.
func linesFlags(fs *flag.FlagSet) (lines *bool, workers *workersFlag) {
	lines = fs.Bool("lines", false, "")
	workers = new(workersFlag)
	fs.Var(workers, "workers", "")
	return lines, workers
}

// workersWithoutLines reports a --workers given without --lines, which it
// would not change, as a usage error of the command cmd, and returns
// whether it did.
func (c *cli) workersWithoutLines(fs *flag.FlagSet, lines bool) bool {
	if lines {
		return false
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "workers" })
	if set {
		c.usageError(fs.Name(), "--workers goes with --lines")
	}
	return set
}

// lines runs --lines over the input called name: each line is one JSON
// text under profile p, answered by one output line with its digest
// (digest) or its canonical form, or with its error. The lines are
// canonicalized and hashed by package batch on workers goroutines (0: one
// per core); the output does not depend on their number.
func (c *cli) lines(p canon.Profile, name string, digest bool, workers int) int {
	r, done, err := c.open(name)
	if err != nil {
		c.ioFailure(name, err)
		return exitUsage
	}
	defer done()
	w := bufio.NewWriterSize(stdoutWriter{c.stdout}, linesOutSize)
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
		Idle: w.Flush,
	}
	ans := answerer{digest: digest}
	sum, err := batch.Stream(context.Background(), r, opts, func(res batch.Result) error {
		return ans.write(w, res)
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		if we, ok := errors.AsType[writeError](err); ok {
			c.errorf("%v", we.err)
		} else {
			c.ioFailure(name, err)
		}
		return exitUsage
	}
	if sum.Rejected > 0 {
		return exitRejected
	}
	return exitOK
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
		a.out = appendErrorLine(a.out[:0], e)
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

// stdoutWriter wraps stdout's errors in a writeError, so that they can be
// told from the input's.
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = writeError{err}
	}
	return n, err
}

// writeError is an error writing stdout.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }
func (e writeError) Unwrap() error { return e.err }

// appendErrorLine appends the --lines answer to a rejected line:
//
//	error CLASS OFFSET MESSAGE within "POINTER"
//
// OFFSET is the byte offset in the line. MESSAGE and POINTER are escaped
// as every diagnostic is (see diag.go), so the answer is one line and holds
// nothing a terminal interprets.
func appendErrorLine(b []byte, e *canon.Error) []byte {
	b = append(b, "error "...)
	b = append(b, e.Class.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, ' ')
	if e.Msg != "" {
		b = appendEscaped(b, e.Msg, escText)
		b = append(b, ' ')
	}
	b = append(b, "within "...)
	b = appendQuoted(b, e.Pointer)
	return append(b, '\n')
}
