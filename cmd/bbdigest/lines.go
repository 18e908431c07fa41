package main

import (
	"bufio"
	"io"
	"strconv"

	"github.com/bbdigest/bbdigest/canon"
)

// lineBufSize is the read buffer of --lines. A line that fits in it is
// canonicalized where it lies; a longer one is gathered into lineProc.long.
const lineBufSize = 64 << 10

// lines runs --lines over the input called name: each line is one JSON
// text, answered by one output line.
func (c *cli) lines(cz *canon.Canonicalizer, name string, digest bool) int {
	r, done, err := c.open(name)
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	defer done()
	w := bufio.NewWriterSize(c.stdout, lineBufSize)
	lp := newLineProc(cz, digest, w)
	err = lp.run(bufio.NewReaderSize(r, lineBufSize))
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	if lp.rejected {
		return exitRejected
	}
	return exitOK
}

// lineProc answers the lines of one input. Once warm it makes no
// allocations for accepted lines.
type lineProc struct {
	cz       *canon.Canonicalizer
	digest   bool
	limit    int // longest line accepted, without its "\n"
	w        *bufio.Writer
	long     []byte // a line longer than the read buffer
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
// whose first part is frag, and answers it. Beyond the size bound it stops
// keeping the line and only skips to its end. It reports whether the line
// ended at end of input.
func (lp *lineProc) gather(br *bufio.Reader, frag []byte) (eof bool, err error) {
	lp.long = append(lp.long[:0], frag...)
	over := len(lp.long) > lp.limit
	for {
		frag, err := br.ReadSlice('\n')
		switch err {
		case nil:
			frag = frag[:len(frag)-1]
		case io.EOF:
			eof = true
		case bufio.ErrBufferFull:
		default:
			return false, err
		}
		if !over {
			over = len(lp.long)+len(frag) > lp.limit
			if over {
				lp.long = lp.long[:0]
			} else {
				lp.long = append(lp.long, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if over {
			return eof, lp.reject(lp.tooLarge())
		}
		return eof, lp.answer(lp.long)
	}
}

// answer writes the answer to one line, doc, which excludes the "\n".
func (lp *lineProc) answer(doc []byte) error {
	if len(doc) > lp.limit {
		return lp.reject(lp.tooLarge())
	}
	out, err := lp.cz.View(doc)
	if err != nil {
		e, ok := canon.AsError(err)
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
// OFFSET is the byte offset in the line. The message is kept on one line.
func appendErrorLine(b []byte, e *canon.Error) []byte {
	b = append(b, "error "...)
	b = append(b, e.Class.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, ' ')
	if e.Msg != "" {
		for i := 0; i < len(e.Msg); i++ {
			switch c := e.Msg[i]; c {
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, c)
			}
		}
		b = append(b, ' ')
	}
	b = append(b, "within "...)
	b = strconv.AppendQuote(b, e.Pointer)
	return append(b, '\n')
}
