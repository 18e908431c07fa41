package canon

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unsafe"

	"github.com/bbdigest/bbdigest/internal/boundedread"
	"github.com/bbdigest/bbdigest/internal/es6"
	"github.com/bbdigest/bbdigest/internal/poolcap"
)

// Canonicalizer turns JSON text into its canonical form under one Profile.
//
// The zero value is ready to use with the Strict profile. A Canonicalizer
// keeps its scratch memory (its arena) between calls, so once warm it does
// not allocate: Append into a buffer with enough capacity makes no
// allocations at all. It is not safe for concurrent use; use one per
// goroutine, or the one-shot functions, which draw from a pool.
type Canonicalizer struct {
	profile Profile

	// per call
	src  []byte
	dst  []byte
	pend int // start of the pending canonical input span (see state.go)
	base int // len(dst) when the call began (permute.go)

	// arena, kept between calls
	stack   []frame
	members []member
	names   []byte  // decoded names that had escapes
	order   []int32 // sort permutation
	scratch []byte  // staging copy of the output while members are reordered

	// deferred member ordering (permute.go)
	recs       []sortRec
	spans      []span
	growth     [4]growth // of members, recs, spans and names (grown)
	kids       []int32
	topKids    int
	recOrder   []int32
	recStack   []int32
	emitStack  []emitFrame
	sortBudget int                   // bytes that may still be moved by in-place sorting
	quick      []quickFrame          // stack of the canonical fast path (quick.go)
	quickMode  bool                  // the fast path is calling the engine's helpers
	win        classWindow           // string scanning bitmaps (scan_amd64.go)
	out        []byte                // output buffer of View, Encode and Transcode
	in         []byte                // input buffer of Transcode; the copy of an src that overlaps an output (detach)
	mini       []byte                // the input with its whitespace removed (minify.go)
	numBuf     [es6.DecimalRoom]byte // room for es6.AppendDecimal
	// The indexed fast path (index.go), after the fields above so that
	// their layout is the one the walk and the engine were tuned with.
	ix       *indexer // its memory, made when first needed
	walkSlow bool     // the walk met an escape or a byte above 0x7F
}

// New returns a Canonicalizer for profile p.
func New(p Profile) *Canonicalizer {
	return &Canonicalizer{profile: p}
}

// Reset switches c to profile p. Its arena is kept.
func (c *Canonicalizer) Reset(p Profile) { c.profile = p }

// Profile returns the profile c applies.
func (c *Canonicalizer) Profile() Profile { return c.profile }

// Append appends the canonical form of the JSON text src to dst and returns
// the extended buffer. On error it returns dst unchanged in length (bytes
// beyond len(dst) may have been written) and a *Error.
//
// src may overlap dst, its spare capacity included, so a buffer can be
// canonicalized in place with buf, err = c.Append(buf[:0], buf). The output
// is written while the input is read, and can be longer than it (1e21
// becomes 1e+21), so such an src is first copied into c's arena; an src
// apart from dst is read where it lies, and Append then makes no
// allocation once c is warm and dst has room.
func (c *Canonicalizer) Append(dst, src []byte) ([]byte, error) {
	if c.aliased(src, dst) {
		src = c.detach(src)
	}
	if !indented(src) && c.quickCanonical(src) {
		c.end()
		return append(dst, src...), nil
	}
	if compact, ok := c.minify(src); ok {
		if out, err := c.appendEngine(dst, compact); err == nil {
			return out, nil
		}
		// Errors are reported against src (minify.go).
	}
	return c.appendEngine(dst, src)
}

// indented reports input that starts like pretty-printed JSON (whitespace
// in its first two bytes), which the canonical fast path would give up on
// at once: it is not tried.
func indented(src []byte) bool {
	return len(src) >= 2 && (isSpace[src[0]] || isSpace[src[1]])
}

// appendEngine is Append without the canonical fast path.
func (c *Canonicalizer) appendEngine(dst, src []byte) ([]byte, error) {
	c.begin(dst, src)
	err := c.run()
	if err == nil {
		c.finish(false)
	}
	out := c.dst
	c.end()
	if err != nil {
		return dst, err
	}
	return out, nil
}

// View returns the canonical form of src. When src is already canonical it
// returns src itself and copies nothing; otherwise it returns a slice of c's
// arena that stays valid until the next call on c. The caller must not
// modify the result. src may be (a part of) a result of an earlier View on
// c: as the arena it lies in is rewritten, it is then copied first, and
// the result is never src itself.
func (c *Canonicalizer) View(src []byte) ([]byte, error) {
	if c.aliased(src, nil) {
		src = c.detach(src)
	}
	if !indented(src) && c.quickCanonical(src) {
		c.end()
		return src, nil
	}
	if compact, ok := c.minify(src); ok {
		if out, _, err := c.viewEngine(compact); err == nil {
			return out, nil
		}
		// Errors are reported against src (minify.go).
	}
	out, _, err := c.viewEngine(src)
	return out, err
}

// viewEngine is View without the canonical fast path; verbatim reports
// that the engine found src canonical.
func (c *Canonicalizer) viewEngine(src []byte) (out []byte, verbatim bool, err error) {
	c.begin(c.out[:0], src)
	err = c.run()
	verbatim = err == nil && c.finish(true)
	out = c.dst
	c.end()
	c.out = out[:0]
	switch {
	case err != nil:
		return nil, false, err
	case verbatim:
		return src, true, nil
	}
	return out, false, nil
}

// Encode writes the canonical form of src to w.
func (c *Canonicalizer) Encode(w io.Writer, src []byte) error {
	out, err := c.View(src)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// Transcode reads one JSON text from r, up to the profile's size bound, and
// writes its canonical form to w. The whole input is held in c's arena
// (object members can only be ordered once all are read), so memory use is
// bounded by the profile's MaxSize, not by the stream. An input longer than
// the bound is rejected with class too-large (Offset = MaxSize) without
// reading the rest, and costs little more memory than the bound: a regular
// file that is already longer is rejected before a byte of it is read, and
// anything else is read in chunks of a few MiB (internal/boundedread), not
// into a buffer that doubles. Errors from r and w are returned as they are.
func (c *Canonicalizer) Transcode(w io.Writer, r io.Reader) error {
	limit := c.profile.MaxSize()
	buf, err := boundedread.ReadAll(c.in, r, limit)
	if err == nil {
		c.in = buf
		err = c.Encode(w, buf)
	} else if errors.Is(err, boundedread.ErrTooLarge) {
		err = &Error{Class: ClassTooLarge, Offset: int64(limit), Msg: "input longer than the " + strconv.Itoa(limit) + "-byte bound"}
	}
	c.in = buf[:0]
	if !poolcap.Keep(cap(c.in)) {
		c.in = nil
	}
	return err
}

// aliased reports whether src shares memory with a buffer the call writes
// while it reads src, and which a caller can hold: dst[:cap(dst)] (see
// appendSpan), c.out (which View returns) and c.mini (the compact text,
// which View returns when it is canonical).
func (c *Canonicalizer) aliased(src, dst []byte) bool {
	// (An empty src inside one of them is copied too, harmlessly.)
	s := uintptr(unsafe.Pointer(unsafe.SliceData(src)))
	e := s + uintptr(len(src))
	return overlaps(s, e, dst) || overlaps(s, e, c.out) || overlaps(s, e, c.mini)
}

// overlaps reports whether the bytes from s to e share memory with
// b[:cap(b)].
func overlaps(s, e uintptr, b []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return s < p+uintptr(cap(b)) && p < e
}

// detach returns a copy of src in c.in, which no call writes while it reads
// its input and which is never returned (Transcode reads into it, and
// passes it to View, which does not write it).
func (c *Canonicalizer) detach(src []byte) []byte {
	c.in = append(c.in[:0], src...)
	return c.in
}

// pools hold Canonicalizers that are Poolable, so that one huge input does
// not pin its memory forever.
var pools = [2]sync.Pool{
	{New: func() any { return New(Strict) }},
	{New: func() any { return New(RFC8785) }},
}

func poolIndex(p Profile) int {
	if p.rfc8785 {
		return 1
	}
	return 0
}

func getCanonicalizer(p Profile) *Canonicalizer {
	c := pools[poolIndex(p)].Get().(*Canonicalizer)
	c.Reset(p)
	return c
}

func putCanonicalizer(c *Canonicalizer) {
	// Poolable, written out: with arenaSize inlined, Poolable is past the
	// inlining budget, and the one-shot functions would pay for the call.
	if !poolcap.Keep(c.arenaSize()) {
		return
	}
	pools[poolIndex(c.profile)].Put(c)
}

// Poolable reports whether c is small enough to keep in a pool: whether the
// scratch memory it keeps between calls, which grows to the largest input
// it has seen, is within the module's one bound on what a pooled object
// keeps (1 MiB). A Canonicalizer that one huge input has grown is better
// dropped than kept, so that the input does not pin its memory for the
// life of the process (as jsontext's pools drop large buffers). Every pool
// of the module that holds Canonicalizers, this package's among them,
// applies it before a Put.
func (c *Canonicalizer) Poolable() bool { return poolcap.Keep(c.arenaSize()) }

// arenaSize reports roughly how many bytes of scratch memory c keeps between
// calls: the measure Poolable bounds.
func (c *Canonicalizer) arenaSize() int {
	n := cap(c.out) + cap(c.in) + cap(c.mini) + cap(c.scratch) + cap(c.names) +
		cap(c.members)*int(unsafe.Sizeof(member{})) + cap(c.stack)*int(unsafe.Sizeof(frame{})) +
		cap(c.recs)*int(unsafe.Sizeof(sortRec{})) + cap(c.spans)*int(unsafe.Sizeof(span{})) +
		4*(cap(c.order)+cap(c.kids)+cap(c.recOrder)+cap(c.recStack)) +
		int(unsafe.Sizeof(quickFrame{}))*cap(c.quick)
	if c.ix != nil { // the indexed fast path's, fixed
		n += int(unsafe.Sizeof(*c.ix))
	}
	return n
}

// AppendCanonical appends the canonical form of src under profile p to dst.
// It is the one-shot form of [Canonicalizer.Append]: src may overlap dst,
// its spare capacity included (AppendCanonical(buf[:0], buf, p)
// canonicalizes buf in place).
func AppendCanonical(dst, src []byte, p Profile) ([]byte, error) {
	c := getCanonicalizer(p)
	out, err := c.Append(dst, src)
	putCanonicalizer(c)
	return out, err
}

// Canonicalize returns the canonical form of src under profile p in a new
// slice.
func Canonicalize(src []byte, p Profile) ([]byte, error) {
	// No buffer of the input's size up front: the engine sizes the output
	// from what it has read (numbers such as 1e20 make it longer than the
	// input), and the canonical fast path copies src into one of its size.
	return AppendCanonical(nil, src, p)
}

// Validate reports whether src is acceptable under profile p, returning the
// *Error that Canonicalize would return.
func Validate(src []byte, p Profile) error {
	c := getCanonicalizer(p)
	_, err := c.View(src)
	putCanonicalizer(c)
	return err
}

// IsCanonical reports whether src is accepted under profile p and already in
// canonical form.
func IsCanonical(src []byte, p Profile) bool {
	c := getCanonicalizer(p)
	out, err := c.View(src)
	ok := err == nil && len(out) == len(src) && (len(src) == 0 || &out[0] == &src[0])
	putCanonicalizer(c)
	return ok
}

// Transform returns the RFC 8785 canonical form of src under the rfc8785
// profile. It has the signature of github.com/gowebpki/jcs Transform, so a
// project switches by changing its import.
func Transform(src []byte) ([]byte, error) {
	return Canonicalize(src, RFC8785)
}

// errorf builds the *Error for a rejection at input offset off, with the
// JSON Pointer of the value being parsed. It runs only on the error path.
func (c *Canonicalizer) errorf(class Class, off int64, format string, args ...any) error {
	if c.quickMode {
		return errQuick // the fast path only needs to know that it must give up
	}
	return &Error{Class: class, Offset: off, Pointer: c.pointer(), Msg: fmt.Sprintf(format, args...)}
}

// pointer returns the JSON Pointer of the value being parsed.
func (c *Canonicalizer) pointer() string {
	var b []byte
	for i := range c.stack {
		f := &c.stack[i]
		if f.object {
			if f.cur < f.first {
				break
			}
			b = appendPointerToken(b, c.nameOf(&c.members[f.cur]))
		} else {
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(f.cur), 10)
		}
	}
	return string(b)
}
