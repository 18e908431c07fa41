package archive

// lineStream positions a run of rehash or verify in its input's JSON
// Lines (decompressed): past the lines before a shard's range; it gives
// batch the lines an interrupted run already answered (--resume), which
// it computes again to check them, and then the rest, which it answers;
// and it ends the streams given to batch at the end of the shard's
// range.
//
// Positions are byte offsets in the stream. A line starts at 0 and after
// every "\n"; such a position is a line boundary, and so is the end of
// the stream. The range of a shard with the nominal bounds [lo, hi) is
// [B(lo), B(hi)), where B(x) is the first line boundary at or after x:
// the lines that start in [lo, hi). So the lines of consecutive ranges
// follow one another with no gap or overlap, whatever lo and hi are, and
// each range is found without reading the others' outputs.

import (
	"bytes"
	"hash"
	"io"
	"sync"
	"sync/atomic"

	"github.com/bbdigest/bbdigest/hashing"
)

// lineStreamBuf is the size of lineStream's buffer.
const lineStreamBuf = 256 << 10

type lineStream struct {
	r     io.Reader
	buf   []byte
	start int // buf[start:end] is read and not yet consumed
	end   int
	err   error // what r reported once buf[:end] was read; io.EOF at the end

	pos      int64 // bytes consumed
	newlines int64 // "\n" consumed
	atLine   bool  // pos is a line boundary (pos == 0, or "\n" consumed last)

	count *atomic.Int64 // if not nil, counts the bytes read through reader

	// h hashes the bytes consumed, [0, pos), as they are consumed: the
	// summary records the SHA-256 of the stream before a shard's range
	// and up to its end, which archive join chains from shard to shard,
	// and --resume checks the input it skips against FILE.resume. It is
	// nil when nothing will read the hash (Options.NoInputSHA256, without
	// OutFile): hashing every input byte costs a run about a fifth of its
	// time on SHA-NI.
	h hash.Hash

	// mark, if not nil, is called after a read through reader that ends
	// at a line boundary (on the goroutine that reads).
	mark func()
}

// lineStreamBufs keeps the buffers of the lineStreams that are done, for
// the next run in the process (the tests and the fuzz target run the
// command many times in one process, on small inputs, and would otherwise
// spend most of each run clearing new buffers).
var lineStreamBufs = sync.Pool{New: func() any { return new([lineStreamBuf]byte) }}

// newLineStream returns a lineStream over r that hashes what it consumes
// when hashed is set (see sum). The caller calls release when it is done
// with it.
func newLineStream(r io.Reader, hashed bool) *lineStream {
	s := &lineStream{r: r, buf: lineStreamBufs.Get().(*[lineStreamBuf]byte)[:], atLine: true}
	if hashed {
		s.h = hashing.New()
	}
	return s
}

// release gives s's buffer back to lineStreamBufs; s is not used after.
func (s *lineStream) release() {
	lineStreamBufs.Put((*[lineStreamBuf]byte)(s.buf))
	s.buf, s.start, s.end = nil, 0, 0
}

// sum returns the SHA-256 of the bytes consumed so far, [0, pos), or the
// zero Digest for a stream made without hashing.
func (s *lineStream) sum() hashing.Digest {
	var d hashing.Digest
	if s.h != nil {
		copy(d[:], s.h.Sum(nil))
	}
	return d
}

// fill reads more into the buffer, once everything in it is consumed. It
// reports false, with the reason in s.err, when nothing more comes.
func (s *lineStream) fill() bool {
	if s.start < s.end {
		return true
	}
	n := s.readInto(s.buf)
	s.start, s.end = 0, n
	return n > 0
}

// readInto reads the next bytes of the input into p (len(p) > 0), with
// the buffer empty, and records in s.err what r reports with them. It
// returns 0 only when nothing more comes, the reason in s.err.
func (s *lineStream) readInto(p []byte) int {
	for empty := 0; s.err == nil; empty++ {
		n, err := s.r.Read(p)
		s.err = err
		if n > 0 {
			return n
		}
		if empty == 100 && err == nil {
			s.err = io.ErrNoProgress // as bufio gives up on a reader
		}
	}
	return 0
}

// consume moves past the next n buffered bytes.
func (s *lineStream) consume(n int) {
	s.account(s.buf[s.start : s.start+n])
	s.start += n
}

// account counts b, the next bytes of the input, as consumed.
func (s *lineStream) account(b []byte) {
	if s.h != nil {
		s.h.Write(b)
	}
	s.newlines += int64(bytes.Count(b, []byte{'\n'}))
	s.atLine = b[len(b)-1] == '\n'
	s.pos += int64(len(b))
}

// ended reports whether the whole input has been consumed.
func (s *lineStream) ended() bool { return s.start == s.end && s.err == io.EOF }

// toBoundary consumes bytes up to the first line boundary at or after the
// position at (at <= s.pos: the next boundary from here). It returns
// nil, or the error of the input other than io.EOF.
func (s *lineStream) toBoundary(at int64) error {
	for s.pos < at || !s.atLine {
		if !s.fill() {
			return s.readErr() // the end of the input is a boundary
		}
		if s.pos < at {
			s.consume(int(min(at-s.pos, int64(s.end-s.start))))
			continue
		}
		i := bytes.IndexByte(s.buf[s.start:s.end], '\n')
		if i < 0 {
			s.consume(s.end - s.start)
		} else {
			s.consume(i + 1)
		}
	}
	return nil
}

// readErr returns the input's error, nil at its end.
func (s *lineStream) readErr() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}

// lines returns the number of lines consumed: the "\n" consumed, and the
// last line of an input that does not end with one once it is consumed.
func (s *lineStream) lines() int64 {
	if !s.atLine && s.ended() {
		return s.newlines + 1
	}
	return s.newlines
}

// reader returns the rest of the input up to the line boundary at or
// after hi (hi < 0: to the end of the input).
func (s *lineStream) reader(hi int64) io.Reader { return &rangeReader{s: s, hi: hi, lines: -1} }

// linesReader returns the next k lines of the input, or as many as there
// are before the line boundary at or after hi (hi < 0: the end of the
// input); k < 0 is no limit. s must be at a line boundary.
func (s *lineStream) linesReader(k, hi int64) io.Reader {
	return &rangeReader{s: s, hi: hi, lines: k}
}

type rangeReader struct {
	s     *lineStream
	hi    int64
	lines int64 // the "\n" still to read, or -1: no limit
}

// Read gives the next bytes of the range. With the stream's buffer empty
// it reads from the input straight into p, and puts back into the buffer
// only what p gets and must not (past the range, past the lines asked
// for, or past the last line boundary of a read with a mark): batch reads
// in blocks of its own, and a copy of every byte through the buffer cost
// a run of rehash on already-canonical input about a seventh of its CPU.
func (r *rangeReader) Read(p []byte) (int, error) {
	s := r.s
	if r.lines == 0 || r.hi >= 0 && s.pos >= r.hi && s.atLine {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	var got []byte // what is there to give, in s.buf or (direct) in p
	direct := s.start == s.end && len(p) >= directRead
	if direct {
		got = p[:s.readInto(p[:min(len(p), len(s.buf))])]
		if len(got) == 0 {
			return 0, s.err
		}
	} else {
		if !s.fill() {
			return 0, s.err
		}
		got = s.buf[s.start:s.end]
	}
	avail := r.limit(got[:min(len(got), len(p))])
	n := len(avail)
	if direct {
		// Keep what p must not get for the next read.
		s.start, s.end = 0, copy(s.buf, got[n:])
		s.account(avail)
	} else {
		copy(p, avail)
		s.consume(n)
	}
	if r.lines > 0 {
		r.lines -= int64(bytes.Count(avail, []byte{'\n'}))
	}
	if s.count != nil {
		s.count.Add(int64(n))
	}
	if s.mark != nil && s.atLine {
		s.mark()
	}
	return n, nil
}

// directRead is the smallest read that rangeReader.Read makes into the
// caller's buffer rather than through the stream's.
const directRead = 4 << 10

// limit returns the part of avail, the next bytes of the stream, that the
// range gives now (never empty when avail is not): up to hi (or, past
// it, to the end of the line), up to the last "\n" of the lines still to
// give, and, for a stream with a mark, up to the last line boundary in it
// if there is one.
func (r *rangeReader) limit(avail []byte) []byte {
	s := r.s
	switch {
	case r.hi < 0:
	case s.pos < r.hi:
		avail = avail[:min(int64(len(avail)), r.hi-s.pos)]
	default: // past hi, inside a line: to its end
		if i := bytes.IndexByte(avail, '\n'); i >= 0 {
			avail = avail[:i+1]
		}
	}
	if r.lines > 0 && int64(bytes.Count(avail, []byte{'\n'})) >= r.lines {
		// Up to the last "\n" allowed.
		end := 0
		for range r.lines {
			end += bytes.IndexByte(avail[end:], '\n') + 1
		}
		avail = avail[:end]
	}
	if s.mark != nil && avail[len(avail)-1] != '\n' {
		// End the read at a line boundary, if there is one in it, for
		// a checkpoint.
		if i := bytes.LastIndexByte(avail, '\n'); i >= 0 {
			avail = avail[:i+1]
		}
	}
	return avail
}
