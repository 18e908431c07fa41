package batch

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/bbdigest/bbdigest/internal/boundedread"
)

// lineSource cuts a stream into blocks of whole lines (see pipeline.go).
//
// Each block starts with carry, the bytes read after the last line of the
// block before, and is filled by reads from r until it holds a whole line;
// it then goes to the workers with all the whole lines it holds (at most
// cfg.maxRecs of them), and the rest is the next carry. So a block goes
// out after every Read that completes a line: a producer that writes a
// line and waits for its answer is never kept waiting by a block that
// would be filled first.
//
// A line that fills a whole block is read by long instead: gathered into
// memory of its own, up to the bound, and sent in a block of its own, or,
// once it is known to be longer than the bound, skipped to its end
// without keeping any of it.
type lineSource struct {
	p     *pipeline
	r     io.Reader
	carry []byte // read after the last line sent; in the buffer of an earlier block

	// What r has reported, once it has: the bytes read before it are
	// still answered (at the end of the input, the bytes after the last
	// "\n" as one more line; before an error, the whole lines only).
	eof     bool
	err     error
	empties int // reads in a row that returned nothing
}

// maxEmptyReads is how many reads in a row may return no bytes and no
// error before the input is failed with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// errBadCount fails an io.Reader that reports an impossible count.
var errBadCount = errors.New("batch: reader returned an invalid count")

// next returns the next block, or nil when there is none: the input has
// ended (nil), it failed, or ctx is done.
func (s *lineSource) next(ctx context.Context) (*block, error) {
	b, err := s.p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	if ok, err := s.fill(ctx, b); !ok {
		s.p.unused(b)
		return nil, err
	}
	return b, nil
}

// fill makes b the next block. It reports false when there is none: the
// input has ended (nil), it failed, or ctx is done.
func (s *lineSource) fill(ctx context.Context, b *block) (bool, error) {
	if len(b.buf) != s.p.cfg.blockSize {
		b.buf = make([]byte, s.p.cfg.blockSize)
	}
	b.kind = kindLines
	n := copy(b.buf, s.carry) // may move the carry within b.buf itself
	s.carry = nil
	scanned := 0 // b.buf[:scanned] has no "\n"
	for {
		if bytes.IndexByte(b.buf[scanned:n], '\n') >= 0 {
			b.end = wholeLines(b.buf[:n], s.p.cfg.maxRecs)
			s.carry = b.buf[b.end:n]
			return true, nil
		}
		scanned = n
		switch {
		case s.eof:
			b.end = n // the last line, which has no "\n", if any
			return n > 0, nil
		case s.err != nil:
			return false, s.err // a line cut short by the error is not answered
		case n == len(b.buf):
			if err := s.long(ctx, b); err != nil {
				return false, err
			}
			return true, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		k, _ := s.read(b.buf[n:])
		n += k
	}
}

// wholeLines returns the length of the first max whole lines of data, or
// of all of them if there are fewer, "\n" included.
func wholeLines(data []byte, max int) int {
	if bytes.Count(data, []byte{'\n'}) <= max {
		return bytes.LastIndexByte(data, '\n') + 1
	}
	end := 0
	for range max {
		end += bytes.IndexByte(data[end:], '\n') + 1
	}
	return end
}

// read reads from r into p, and records an end of input or an error.
func (s *lineSource) read(p []byte) (int, error) {
	switch {
	case s.err != nil:
		return 0, s.err
	case s.eof:
		return 0, io.EOF
	}
	k, err := s.r.Read(p)
	switch {
	case k < 0 || k > len(p):
		k, s.err = 0, errBadCount
	case err == io.EOF:
		s.eof = true
	case err != nil:
		s.err = err
	case k > 0:
		s.empties = 0
	default:
		if s.empties++; s.empties >= maxEmptyReads {
			s.err = io.ErrNoProgress
		}
	}
	return k, s.readErr()
}

// readErr returns what r has reported: io.EOF, an error, or nil.
func (s *lineSource) readErr() error {
	if s.eof {
		return io.EOF
	}
	return s.err
}

// long reads a line whose first len(b.buf) bytes fill b.buf, and makes b
// its block: kindLong with the line gathered whole if it is within the
// bound, kindTooLarge otherwise. The line is gathered only while b holds
// the long-record token, into the token's buffer, with
// boundedread.ReadAll: into the memory the last long line was gathered
// into while the line fits in it, and otherwise in chunks, never more than
// the bound plus one byte in all, so a line that turns out too long costs
// the bound once, and is then dropped and its rest skipped. What was read
// after the line's "\n" is left in b.buf as the next carry.
func (s *lineSource) long(ctx context.Context, b *block) error {
	lr := lineReader{ctx: ctx, s: s, buf: b.buf, pending: b.buf}
	b.kind = kindTooLarge
	if limit := s.p.cfg.maxRecord; len(b.buf) <= limit {
		t, err := s.p.takeLong(ctx)
		if err != nil {
			return err
		}
		line, err := boundedread.ReadAll(t.buf, &lr, limit)
		if err == nil {
			t.buf = line // grown, if the line needed more: kept for the next
			b.kind, b.long, b.size, b.token = kindLong, line, lr.size, t
			return nil
		}
		s.p.releaseLong(t)
		if !errors.Is(err, boundedread.ErrTooLarge) {
			return err
		}
	}
	lr.size += len(lr.pending)
	lr.pending = nil
	for !lr.done {
		if _, err := lr.Read(lr.buf); err != nil {
			return err
		}
	}
	b.size = lr.size
	return nil
}

// lineReader reads the rest of one line, without its "\n", and then
// reports io.EOF.
type lineReader struct {
	ctx     context.Context
	s       *lineSource
	buf     []byte // the block's buffer: the line's start, then room for reads
	pending []byte // the line's start, not yet read (in buf)
	size    int    // bytes of the line so far, its "\n" included once read
	done    bool   // the line has ended, at a "\n" or with the input
}

// Read reads directly into p, at most len(buf) bytes at a time, so that
// what follows the line's "\n" fits in buf, where it is left as the
// source's carry.
func (lr *lineReader) Read(p []byte) (int, error) {
	if len(lr.pending) > 0 {
		n := copy(p, lr.pending)
		lr.pending = lr.pending[n:]
		lr.size += n
		return n, nil
	}
	if lr.done {
		return 0, io.EOF
	}
	if err := lr.ctx.Err(); err != nil {
		return 0, err
	}
	p = p[:min(len(p), len(lr.buf))]
	k, err := lr.s.read(p)
	if i := bytes.IndexByte(p[:k], '\n'); i >= 0 {
		// p may be buf itself (long skips into it): copy moves.
		lr.s.carry = lr.buf[:copy(lr.buf, p[i+1:k])]
		lr.done = true
		lr.size += i + 1
		return i, nil // an error after the "\n" is the source's to report
	}
	lr.size += k
	if err == io.EOF {
		lr.done = true
		return k, nil
	}
	return k, err
}

// docsSource cuts docs into blocks of about the block size and at most
// cfg.maxRecs records; a record longer than a block and within the bound
// gets a block of its own, which holds the long-record token. (A record
// past the bound is rejected before any work, so it may share a block.)
type docsSource struct {
	p    *pipeline
	docs [][]byte // the documents not yet in a block
}

// next returns the next block, or nil when there is none: docs have all
// been sent (nil), or ctx is done.
func (s *docsSource) next(ctx context.Context) (*block, error) {
	p, docs := s.p, s.docs
	if len(docs) == 0 {
		return nil, nil
	}
	size, limit := p.cfg.blockSize, p.cfg.maxRecord
	long := func(d []byte) bool { return len(d) > size && len(d) <= limit }
	b, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	if long(docs[0]) {
		t, err := p.takeLong(ctx)
		if err != nil {
			p.unused(b)
			return nil, err
		}
		b.kind, b.long, b.size, b.token = kindLong, docs[0], len(docs[0]), t
		s.docs = docs[1:]
		return b, nil
	}
	j, n := 0, 0
	for j < len(docs) && j < p.cfg.maxRecs && !long(docs[j]) && (j == 0 || n+len(docs[j]) <= size) {
		n += len(docs[j])
		j++
	}
	b.kind, b.docs = kindDocs, docs[:j]
	s.docs = docs[j:]
	return b, nil
}
