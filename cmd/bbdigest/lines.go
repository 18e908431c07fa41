package main

import (
	"bufio"
	"errors"
	"io"
	"strconv"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/boundedread"
)

// lineBufSize is the read buffer of --lines. A line that fits in it is
// canonicalized where it lies; a longer one is gathered into lineProc.long.
const lineBufSize = 64 << 10

// lines runs --lines over the input called name: each line is one JSON
// text, answered by one output line.
func (c *cli) lines(cz *canon.Canonicalizer, name string, digest bool) int {
	r, done, err := c.open(name)
	if err != nil {
		c.ioFailure(name, err)
		return exitUsage
	}
	defer done()
	w := bufio.NewWriterSize(stdoutWriter{c.stdout}, lineBufSize)
	lp := newLineProc(cz, digest, w)
	err = lp.run(bufio.NewReaderSize(r, lineBufSize))
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
	if lp.rejected {
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

// lineProc answers the lines of one input. Once warm it makes no
// allocations for accepted lines.
type lineProc struct {
	cz       *canon.Canonicalizer
	digest   bool
	limit    int // longest line accepted, without its "\n"
	w        *bufio.Writer
	long     []byte // memory for a line longer than the read buffer
	out      []byte // the answer being built
	rejected bool   // some line was rejected
}

func newLineProc(cz *canon.Canonicalizer, digest bool, w *bufio.Writer) *lineProc {
	return &lineProc{cz: cz, digest: digest, limit: cz.Profile().MaxSize(), w: w}
}

// run answers every line of br. It returns only read and write errors.
func (lp *lineProc) run(br *bufio.Reader) error {
	for {
		if br.Buffered() == 0 {
			// About to wait for input: let the answers so far out, so that
			// a line-at-a-time producer sees each answer before it writes
			// the next line.
			if err := lp.w.Flush(); err != nil {
				return err
			}
		}
		frag, err := br.ReadSlice('\n')
		switch err {
		case nil: // a whole line in the buffer
			if err := lp.answer(frag[:len(frag)-1]); err != nil {
				return err
			}
		case io.EOF:
			if len(frag) == 0 {
				return nil // no final line after the last "\n"
			}
			return lp.answer(frag)
		case bufio.ErrBufferFull:
			eof, err := lp.gather(br, frag)
			if err != nil || eof {
				return err
			}
		default:
			return err
		}
	}
}

// gather reads the rest of a line that does not fit in the read buffer,
// whose first part is frag, and answers it. It reports whether the line
// ended at end of input.
//
// The line is read with boundedread.ReadAll, into lp.long's memory and then
// into chunks of at most boundedread.ChunkMax, never more than the bound
// plus one byte in all: a line past the bound is dropped as soon as that is
// known and the rest of it is skipped unkept, so rejecting it costs the
// bound, not a multiple of it (an append that doubles its buffer would hold
// the old buffer and a new one twice its size at once).
func (lp *lineProc) gather(br *bufio.Reader, frag []byte) (eof bool, err error) {
	lr := lineReader{br: br, pending: frag}
	line, err := boundedread.ReadAll(lp.long, &lr, lp.limit)
	lp.long = line[:0]
	switch {
	case errors.Is(err, boundedread.ErrTooLarge):
		if err := lr.skip(); err != nil {
			return false, err
		}
		return lr.eof, lp.reject(lp.tooLarge())
	case err != nil:
		return false, err
	}
	return lr.eof, lp.answer(line)
}

// lineReader reads one line from br, without its "\n", then reports
// io.EOF. pending is the part already taken from br and not yet read.
type lineReader struct {
	br      *bufio.Reader
	pending []byte
	done    bool // the line's end has been taken from br
	eof     bool // the line ended at the end of the input
}

func (lr *lineReader) Read(p []byte) (int, error) {
	for len(lr.pending) == 0 {
		if lr.done {
			return 0, io.EOF
		}
		if err := lr.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, lr.pending)
	lr.pending = lr.pending[n:]
	return n, nil
}

// next takes the next part of the line from br into pending. pending
// points into br's buffer, valid until the next read from br.
func (lr *lineReader) next() error {
	frag, err := lr.br.ReadSlice('\n')
	switch err {
	case nil:
		frag = frag[:len(frag)-1]
		lr.done = true
	case io.EOF:
		lr.done, lr.eof = true, true
	case bufio.ErrBufferFull:
	default:
		return err
	}
	lr.pending = frag
	return nil
}

// skip reads the rest of the line, keeping none of it.
func (lr *lineReader) skip() error {
	for !lr.done {
		if err := lr.next(); err != nil {
			return err
		}
	}
	lr.pending = nil
	return nil
}

// answer writes the answer to one line, doc, which excludes the "\n".
func (lp *lineProc) answer(doc []byte) error {
	if len(doc) > lp.limit {
		return lp.reject(lp.tooLarge())
	}
	out, err := lp.cz.View(doc)
	if err != nil {
		e, ok := errors.AsType[*canon.Error](err)
		if !ok {
			return err
		}
		return lp.reject(e)
	}
	if lp.digest {
		lp.out = append(appendDigest(lp.out[:0], out), '\n')
		_, err = lp.w.Write(lp.out)
		return err
	}
	if _, err := lp.w.Write(out); err != nil {
		return err
	}
	return lp.w.WriteByte('\n')
}

func (lp *lineProc) tooLarge() *canon.Error {
	return &canon.Error{
		Class:  canon.ClassTooLarge,
		Offset: int64(lp.limit),
		Msg:    "line longer than the " + strconv.Itoa(lp.limit) + "-byte bound",
	}
}

// reject writes the answer to a rejected line.
func (lp *lineProc) reject(e *canon.Error) error {
	lp.rejected = true
	lp.out = appendErrorLine(lp.out[:0], e)
	_, err := lp.w.Write(lp.out)
	return err
}

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
