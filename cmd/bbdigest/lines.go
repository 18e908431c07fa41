package main

// --lines, of canon and digest: its flags, and the run of internal/perline
// over the input, with the command's diagnostics and exit code.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/perline"
)

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
	set := gnuflag.Given(fs)["workers"]
	if set {
		c.usageError(fs.Name(), "--workers goes with --lines")
	}
	return set
}

// lines runs --lines over the input called name: each line is one JSON
// text under profile p, answered by one output line with its digest
// (digest) or its canonical form, or with its error (internal/perline).
// The lines are canonicalized and hashed by package batch on workers
// goroutines (0: one per core); the output does not depend on their number.
func (c *cli) lines(p canon.Profile, name string, digest bool, workers int) int {
	r, done, err := c.open(name)
	if err != nil {
		c.ioFailure(name, err)
		return exitUsage
	}
	defer done()
	rejected, err := perline.Run(r, stdoutWriter{c.stdout}, p, digest, workers)
	if err != nil {
		if we, ok := errors.AsType[writeError](err); ok {
			c.errorf("%v", we.err)
		} else {
			c.ioFailure(name, err)
		}
		return exitUsage
	}
	if rejected > 0 {
		return exitRejected
	}
	return exitOK
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
