package canon

// NOTE: how the engine is organised.
//
// The engine makes one pass over the input with an explicit stack (it never
// recurses per nesting level, so depth is bounded by the profile, not by the
// goroutine stack). Output is produced lazily: c.pend marks the start of an
// input span that is known to be canonical but not yet copied to c.dst. Only
// when something must change (whitespace to drop, an escape or a number to
// rewrite, an object to reorder) is the pending span flushed with a single
// append, and the replacement written. Already-canonical input therefore
// costs one validating scan and one copy (or none, in View).
//
// The output position of input offset p is len(dst) + p - pend (the
// "output coordinate"). Object members record where they start; when an
// object closes with its members out of order, its content is permuted in
// place through a scratch copy (a member holding most of it is moved once,
// directly) while that stays within a budget linear in the input, and
// otherwise its order is recorded and applied in one final pass
// (permute.go), so crafted deep nesting cannot make the work quadratic. The
// outermost object is permuted in place whatever the budget: it closes
// once.
//
// Duplicate names: while names arrive in strictly increasing UTF-16 order,
// one comparison with the previous name proves each unique (the common,
// canonical case). Once an object is out of order, its names are checked
// when it closes, by the sort that orders them, which finds equal names
// next to each other (the rank sort of rank.go runs only when all prefix
// keys differ, so no two names can be equal). The error reported is still the first one in input
// order: when any error stops the scan, the open out-of-order objects are
// searched for a duplicate that comes before it (earlierDuplicate), so the
// result is what checking each name on arrival would give.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/bbdigest/bbdigest/internal/escbits"
	"github.com/bbdigest/bbdigest/internal/impl"
)

// frame is one open container.
type frame struct {
	contentStart int  // output position just after '{' or '['
	first        int  // objects: index in c.members of the first member
	namesStart   int  // objects: len(c.names) when the object opened
	cur          int  // objects: index of the current member (-1: none); arrays: element index
	object       bool // object or array
	unsorted     bool // objects: some member arrived out of order (names not yet checked for duplicates)
	deferred     bool // a record of deferred ordering lies within (permute.go)
}

// member is one object member seen so far in an open object. Its output
// span `"name":value` ends one byte (the comma) before the next member
// starts, or at the end of the object's content (memberSpan).
//
// An object can hold tens of millions of members, so the record is kept to
// sixteen bytes (crafted input has about nine bytes per member), with
// positions in 32 bits (MaxSizeLimit keeps every position of the input and
// of the output below 2^32):
//
//   - start is the output coordinate of the name's opening quote, modulo
//     2^32: only differences between coordinates of one object are taken,
//     and those are exact (memberSpan);
//   - name, for a name without escapes, is the input offset of its opening
//     quote: the name is the input up to the next '"' (it holds none).
//     With escBit set it is the offset in c.names of a header (the input
//     offset of the opening quote and the decoded length, four bytes each,
//     little-endian) followed by the decoded name.
type member struct {
	key   uint64 // nameKey of the decoded name
	start uint32 // output coordinate of the name's opening quote, modulo 2^32
	name  uint32 // see above
}

// escBit marks a member whose decoded name is in c.names.
const escBit = 1 << 31

// escHeader is the size of the header before a decoded name in c.names.
const escHeader = 8

// begin prepares the per-call state. The classification window is kept
// when it already describes src: when the canonical fast path has just
// given up on this same src (it leaves c.src set; end clears it once a call
// is over, so a window never outlives the call that filled it).
func (c *Canonicalizer) begin(dst, src []byte) {
	if len(src) == 0 || len(c.src) != len(src) || unsafe.SliceData(c.src) != unsafe.SliceData(src) {
		c.win.reset()
	}
	c.src, c.dst, c.pend = src, dst, 0
	c.stack = c.stack[:0]
	c.members = c.members[:0]
	c.names = c.names[:0]
	c.recs = c.recs[:0]
	c.spans = c.spans[:0]
	c.base = len(dst)
	c.growth = [4]growth{}
	c.sortBudget = 2*len(src) + 4096
	if testDeferAllSorts {
		c.sortBudget = -1
	}
}

// testDeferAllSorts makes every out-of-order object take the deferred path
// (permute.go), so that tests cover both.
var testDeferAllSorts = false

// end drops references to caller memory so the arena does not pin it.
func (c *Canonicalizer) end() {
	c.src, c.dst = nil, nil
}

// flush copies the pending canonical span up to input offset p.
func (c *Canonicalizer) flush(p int) {
	if cap(c.dst)-len(c.dst) < p-c.pend {
		c.grow(p-c.pend, p)
	}
	c.dst = appendSpan(c.dst, c.src, c.pend, p)
	c.pend = p
}

// flushRoom is the room grow leaves beyond its estimate, for what a caller
// of flush writes next (a number, an escape).
const flushRoom = 64

// grow makes room in c.dst for n more bytes, which complete the output of
// the input up to offset from (its callers test first whether it has
// them), and for an estimate of the output of the rest of the input: as
// long as the rest times the ratio of output to input so far, plus an
// eighth (whitespace shrinks the output; numbers such as 1e20 can make it
// up to 5.25 times longer). Before growEarly bytes of input, too few to
// tell, it doubles instead. Growing to an estimate of the whole output
// keeps the buffer near the output's size and copies it about once.
func (c *Canonicalizer) grow(n, from int) {
	rest := int64(len(c.src) - from)
	if out := int64(len(c.dst) - c.base + n); from < growEarly {
		rest = min(rest, max(growEarly, 2*out))
	} else {
		rest = min(rest*out/int64(from)*9/8, 6*rest)
	}
	c.dst = growBytes(c.dst, n+int(rest)+flushRoom)
}

// growEarly is the input read from which grow extrapolates.
const growEarly = 64 << 10

// growBytes returns b with room for exactly n more bytes (or more, if it
// has it), copying it once.
func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}

// growth records where one of the scan's per-member (or per-object) arrays
// last grew: its length and the input offset.
type growth struct{ n, pos int }

// grown returns s with room for k more elements (at least least in all, at
// most most: no input can need more), for a scan at input offset pos of an
// input of size bytes; g records the previous growth of s. It grows s
// geometrically, but once s holds enough elements to extrapolate from, to
// at least the count that its growth since g predicts for the whole input
// (plus a sixteenth): a crafted input of tens of millions of members then
// allocates each array about once, instead of leaving behind a trail of
// copies of up to the final size (which the garbage collector lets build
// up to the size of the live heap before it collects them).
func grown[E any](s []E, g *growth, k, pos, size, least, most int) []E {
	n := len(s)
	want := max(2*n, n+k, 64, least)
	if n >= 4096 && pos > g.pos && n > g.n {
		est := n + int(int64(n-g.n)*int64(size-pos)/int64(pos-g.pos))
		want = max(n+n/4, n+k, least, est+est/16)
	}
	want = max(min(want, most), n+k)
	g.n, g.pos = n, pos
	out := make([]E, n, want)
	copy(out, s)
	return out
}

// isSpace reports the four whitespace bytes of RFC 8259.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// run canonicalizes c.src, appending to c.dst, and returns the first error
// in input order: scan's, or a duplicate name before it in an object that
// was still open when scan stopped (earlierDuplicate).
func (c *Canonicalizer) run() error {
	err := c.scan()
	if err != nil {
		err = c.earlierDuplicate(err)
	}
	return err
}

// scan is run's single pass: a state machine whose states are the labels
// value, next and name, each a dispatch on the byte at pos, joined by gotos
// (nesting lives in c.stack: scan never recurses).
//
// Its protocol: the state that every token touches is held in locals. pos,
// the input offset, exists only there; dst and pend are scan's copies of
// c.dst and c.pend, read and written without going through c. At every
// label it holds that dst followed by src[pend:pos] is the output for
// src[:pos], except that the members of open objects, and of objects whose
// order is recorded for finish (recordSort), are still in input order; so
// len(dst)+pos-pend is the output coordinate of pos (frame.contentStart,
// member.start, the end given to recordSort); dropping whitespace keeps it
// by appending src[pend:pos] to dst and moving pend past the whitespace
// (appendSpan). While scan runs, c.dst and c.pend are stale, so a helper
// that reads or rewrites the output through them (scanString for a string
// with escapes, escapedName for a name with escapes, number, sortInPlace)
// runs between "c.dst, c.pend = dst, pend" and "dst, pend = c.dst, c.pend";
// and the deferred assignment writes them back on every return, for finish
// to flush the pending span and for the caller to keep the buffer that dst
// grew into. (A write-back at each return instead of the defer, and frames
// pushed field by field, were tried (15b155b) and undone: large pretty
// inputs measured 2-5% slower.) Helpers that read only the input or the
// member records (scanPlain, literal, addMember, sortMembers, recordSort,
// errorf) need neither. Every goto keeps this and lands where its label's
// line says.
//
// Whitespace is looked for only where the byte that should come next is
// not there: each dispatch on the next byte has a case for the four
// whitespace bytes, which drops the run and dispatches again (a goto to the
// same label). Compact input (and the compact text of minify.go) so pays
// nothing for whitespace between its tokens.
func (c *Canonicalizer) scan() (err error) {
	src := c.src
	n := len(src)
	if n > c.profile.MaxSize() {
		return c.errorf(ClassTooLarge, int64(c.profile.MaxSize()), "input longer than the %d-byte bound", c.profile.MaxSize())
	}
	if n >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		return c.errorf(ClassSyntax, 0, "byte-order mark before the value")
	}
	maxDepth := c.profile.MaxDepth()
	strict := !c.profile.rfc8785
	dst, pend := c.dst, c.pend
	defer func() { c.dst, c.pend = dst, pend }()
	pos := 0

	if j := wsEnd(src, pos); j != pos {
		pend, pos = j, j
	}

	// value: a value starts at pos, after any whitespace (the dispatch drops it).
value:
	if pos >= n {
		return c.errorf(ClassSyntax, int64(pos), "unexpected end of input, want a value")
	}
	switch src[pos] {
	case '{':
		if len(c.stack) >= maxDepth {
			return c.errorf(ClassDepth, int64(pos), "object opens nesting level %d, deeper than %d", len(c.stack)+1, maxDepth)
		}
		pos++
		c.stack = append(c.stack, frame{contentStart: len(dst) + pos - pend, first: len(c.members), namesStart: len(c.names), cur: -1, object: true})
		if j := wsEnd(src, pos); j != pos {
			dst, pend = appendSpan(dst, src, pend, pos), j
			pos = j
		}
		if pos < n && src[pos] == '}' {
			pos++
			c.stack = c.stack[:len(c.stack)-1]
			goto next
		}
		goto name
	case '[':
		if len(c.stack) >= maxDepth {
			return c.errorf(ClassDepth, int64(pos), "array opens nesting level %d, deeper than %d", len(c.stack)+1, maxDepth)
		}
		pos++
		c.stack = append(c.stack, frame{contentStart: len(dst) + pos - pend})
		if j := wsEnd(src, pos); j != pos {
			dst, pend = appendSpan(dst, src, pend, pos), j
			pos = j
		}
		if pos < n && src[pos] == ']' {
			pos++
			c.stack = c.stack[:len(c.stack)-1]
			goto next
		}
		goto value
	case '"':
		j, esc := c.scanPlain(pos)
		if esc {
			c.dst, c.pend = dst, pend
			j, err = c.scanString(pos, j, false)
			dst, pend = c.dst, c.pend
			if err != nil {
				return err
			}
		}
		pos = j
	case 't':
		pos, err = c.literal(pos, "true")
	case 'f':
		pos, err = c.literal(pos, "false")
	case 'n':
		pos, err = c.literal(pos, "null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		c.dst, c.pend = dst, pend
		pos, err = c.number(pos, strict)
		dst, pend = c.dst, c.pend
	case ' ', '\t', '\n', '\r':
		j := wsEnd(src, pos)
		dst, pend = appendSpan(dst, src, pend, pos), j
		pos = j
		goto value
	default:
		return c.errorf(ClassSyntax, int64(pos), "%s looking for the beginning of a value", badChar(src, pos))
	}
	if err != nil {
		return err
	}

	// next: a value ends at pos; the innermost frame (if any) says what may follow.
next:
	if len(c.stack) == 0 {
		if j := wsEnd(src, pos); j != pos {
			dst, pend = appendSpan(dst, src, pend, pos), j
			pos = j
		}
		if pos != n {
			return c.errorf(ClassSyntax, int64(pos), "%s after the top-level value", badChar(src, pos))
		}
		// The caller flushes the pending span (or, if c.pend is still 0,
		// may use src itself: nothing was rewritten).
		return nil
	}
	if f := &c.stack[len(c.stack)-1]; f.object {
		if pos >= n {
			return c.errorf(ClassSyntax, int64(pos), "unexpected end of input inside an object")
		}
		switch src[pos] {
		case ',':
			pos++
			goto name
		case ' ', '\t', '\n', '\r':
			j := wsEnd(src, pos)
			dst, pend = appendSpan(dst, src, pend, pos), j
			pos = j
			goto next
		case '}':
			if f.unsorted {
				// Rearrange small objects at once while that stays within a
				// linear budget and nothing inside is deferred (which would
				// move bytes under recorded spans); record the order of the
				// rest (see permute.go).
				end := len(dst) + pos - pend
				if dup := c.sortMembers(f.first, len(c.members)); dup >= 0 {
					return c.dupError(dup)
				}
				// The outermost object closes once, so sorting it in place
				// costs its size whatever the budget says.
				if size := end - f.contentStart; !f.deferred && (size <= c.sortBudget || len(c.stack) == 1 && !testDeferAllSorts) {
					c.sortBudget -= size
					c.dst, c.pend = dst, pend
					c.sortInPlace(f, pos)
					dst, pend = c.dst, c.pend
				} else {
					c.recordSort(f, pos, end)
					f.deferred = true
				}
			}
			if f.deferred && len(c.stack) > 1 {
				c.stack[len(c.stack)-2].deferred = true
			}
			c.members = c.members[:f.first]
			c.names = c.names[:f.namesStart]
			c.stack = c.stack[:len(c.stack)-1]
			pos++
			goto next
		}
		return c.errorf(ClassSyntax, int64(pos), "%s after an object member, want ',' or '}'", badChar(src, pos))
	} else {
		if pos >= n {
			return c.errorf(ClassSyntax, int64(pos), "unexpected end of input inside an array")
		}
		switch src[pos] {
		case ',':
			f.cur++
			pos++
			goto value
		case ' ', '\t', '\n', '\r':
			j := wsEnd(src, pos)
			dst, pend = appendSpan(dst, src, pend, pos), j
			pos = j
			goto next
		case ']':
			if f.deferred && len(c.stack) > 1 {
				c.stack[len(c.stack)-2].deferred = true
			}
			c.stack = c.stack[:len(c.stack)-1]
			pos++
			goto next
		}
		return c.errorf(ClassSyntax, int64(pos), "%s after an array element, want ',' or ']'", badChar(src, pos))
	}

	// name: an object member starts at pos, after any whitespace.
name:
	if pos >= n {
		return c.errorf(ClassSyntax, int64(pos), "unexpected end of input, want an object member name")
	}
	if src[pos] != '"' {
		if isSpace[src[pos]] {
			j := wsEnd(src, pos)
			dst, pend = appendSpan(dst, src, pend, pos), j
			pos = j
			goto name
		}
		return c.errorf(ClassSyntax, int64(pos), "%s, want '\"' starting an object member name", badChar(src, pos))
	}
	{
		start := len(dst) + pos - pend
		idx := len(c.members)
		if idx == cap(c.members) {
			// Every member takes at least four bytes of input.
			c.members = grown(c.members, &c.growth[0], 1, pos, n, 0, idx+1+(n-pos)/4)
		}
		c.members = c.members[:idx+1]
		m := &c.members[idx]
		m.start = uint32(start)
		end, esc := c.scanPlain(pos)
		if !esc {
			m.name = uint32(pos)
			m.key = nameKeyAt(src, pos+1, end-1)
		} else {
			c.dst, c.pend = dst, pend
			end, err = c.escapedName(idx, pos, end)
			dst, pend = c.dst, c.pend
			if err != nil {
				return err
			}
			m = &c.members[idx]
		}
		// Names in strictly increasing order are unique: the common case
		// is decided here by the prefix keys alone.
		if f := &c.stack[len(c.stack)-1]; idx == f.first || (!f.unsorted && c.members[idx-1].key < m.key) {
			f.cur = idx
		} else if err := c.addMember(idx); err != nil {
			return err
		}
		pos = end
		if pos >= n || src[pos] != ':' {
			if j := wsEnd(src, pos); j != pos {
				dst, pend = appendSpan(dst, src, pend, pos), j
				pos = j
			}
			if pos >= n {
				return c.errorf(ClassSyntax, int64(pos), "unexpected end of input, want ':' after an object member name")
			}
			if src[pos] != ':' {
				return c.errorf(ClassSyntax, int64(pos), "%s after an object member name, want ':'", badChar(src, pos))
			}
		}
		pos++
	}
	goto value
}

// escapedName finishes the member name at pos (member idx), whose plain
// prefix ends at j with an escape or a byte that needs the full scanner:
// the name is decoded into c.names if it has escapes, and the member's name
// fields are set. It returns the offset after the name. (Out of line, it
// keeps scan's loop free of the registers it needs; TestInline pins that.)
func (c *Canonicalizer) escapedName(idx, pos, j int) (int, error) {
	h := len(c.names)
	if cap(c.names)-h < escHeader+nameRoom {
		// Decoded names take at most 1.5 bytes per byte of input (a
		// header of eight for `"\n":0,`).
		n := len(c.src)
		c.names = grown(c.names, &c.growth[3], escHeader+nameRoom, pos, n, 0, h+escHeader+nameRoom+(n-pos)*3/2)
	}
	c.names = append(c.names, make([]byte, escHeader)...)
	end, err := c.scanString(pos, j, true)
	if err != nil {
		c.members = c.members[:idx] // the name is not known
		return 0, err
	}
	m := &c.members[idx]
	if name := c.names[h+escHeader:]; len(name) != 0 {
		binary.LittleEndian.PutUint32(c.names[h:], uint32(pos))
		binary.LittleEndian.PutUint32(c.names[h+4:], uint32(len(name)))
		m.name = uint32(h) | escBit
		m.key = nameKey(name)
	} else {
		c.names = c.names[:h]
		m.name = uint32(pos)
		m.key = nameKeyAt(c.src, pos+1, end-1)
	}
	return end, nil
}

// nameRoom is the room escapedName makes in c.names for a decoded name
// (a longer one grows c.names as append does).
const nameRoom = 256

// wsEnd returns the offset of the first non-whitespace byte at or after pos.
func wsEnd(src []byte, pos int) int {
	for pos < len(src) && isSpace[src[pos]] {
		pos++
	}
	return pos
}

// utf8Size returns the length of the well-formed UTF-8 sequence at src[i]
// (a non-ASCII lead byte), or 0 if it is ill-formed.
func utf8Size(src []byte, i int) int {
	b := src[i]
	switch {
	case b >= 0xC2 && b <= 0xDF:
		if i+1 < len(src) && src[i+1]&0xC0 == 0x80 {
			return 2
		}
	case b >= 0xE0 && b <= 0xEF:
		if i+2 < len(src) && src[i+2]&0xC0 == 0x80 {
			c1 := src[i+1]
			lo, hi := byte(0x80), byte(0xBF)
			if b == 0xE0 {
				lo = 0xA0 // no overlongs
			} else if b == 0xED {
				hi = 0x9F // no surrogates
			}
			if c1 >= lo && c1 <= hi {
				return 3
			}
		}
	default:
		r, size := utf8.DecodeRune(src[i:])
		if r != utf8.RuneError && size == 4 {
			return 4
		}
	}
	return 0
}

// literal consumes the literal lit (true, false, null) at pos.
func (c *Canonicalizer) literal(pos int, lit string) (int, error) {
	src := c.src
	if len(src)-pos >= len(lit) && string(src[pos:pos+len(lit)]) == lit {
		return pos + len(lit), nil
	}
	i := 0
	for pos+i < len(src) && i < len(lit) && src[pos+i] == lit[i] {
		i++
	}
	if pos+i >= len(src) {
		return 0, c.errorf(ClassSyntax, int64(pos+i), "unexpected end of input inside literal %s", lit)
	}
	return 0, c.errorf(ClassSyntax, int64(pos+i), "%s in literal %s", badChar(src, pos+i), lit)
}

// nameOf returns the decoded name of m.
func (c *Canonicalizer) nameOf(m *member) []byte {
	if m.name&escBit != 0 {
		h := int(m.name &^ escBit)
		n := int(binary.LittleEndian.Uint32(c.names[h+4:]))
		return c.names[h+escHeader : h+escHeader+n]
	}
	name := c.src[m.name+1:]
	return name[:bytes.IndexByte(name, '"')]
}

// offOf returns the input offset of m's opening quote.
func (c *Canonicalizer) offOf(m *member) int {
	if m.name&escBit != 0 {
		return int(binary.LittleEndian.Uint32(c.names[m.name&^escBit:]))
	}
	return int(m.name)
}

// addMember makes c.members[idx], just appended, the current member of the
// innermost (object) frame. While the object's names are in increasing
// order it rejects a name equal to the previous one; once they are not,
// duplicates are left to the sort at the close (see the NOTE above). On
// error the member stays recorded, so the error's JSON Pointer names it.
func (c *Canonicalizer) addMember(idx int) error {
	f := &c.stack[len(c.stack)-1]
	f.cur = idx
	if idx == f.first || f.unsorted {
		return nil
	}
	switch c.compareMembers(&c.members[idx-1], &c.members[idx]) {
	case -1:
		return nil // strictly increasing so far: unique
	case 0:
		return c.dupError(idx)
	}
	f.unsorted = true
	return nil
}

// dupError is the error for member idx, whose name an earlier member of the
// innermost object has.
func (c *Canonicalizer) dupError(idx int) error {
	c.stack[len(c.stack)-1].cur = idx
	m := &c.members[idx]
	return c.errorf(ClassDuplicateName, int64(c.offOf(m)), "duplicate object member name %s", abbrev(c.nameOf(m)))
}

// earlierDuplicate returns the error the scan should report in place of
// err: a duplicate member name in an open out-of-order object that comes
// before err in the input (its names are checked only when it closes), or
// err itself.
func (c *Canonicalizer) earlierDuplicate(err error) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	best, bestDepth := -1, -1
	for d := range c.stack {
		f := &c.stack[d]
		if !f.object || !f.unsorted {
			continue
		}
		end := len(c.members)
		for k := d + 1; k < len(c.stack); k++ {
			if c.stack[k].object {
				end = c.stack[k].first
				break
			}
		}
		if dup := c.sortMembers(f.first, end); dup >= 0 && int64(c.offOf(&c.members[dup])) < e.Offset &&
			(best < 0 || c.offOf(&c.members[dup]) < c.offOf(&c.members[best])) {
			best, bestDepth = dup, d
		}
	}
	if best < 0 {
		return err
	}
	c.stack = c.stack[:bestDepth+1] // the pointer names the duplicate
	return c.dupError(best)
}

// compareMembers compares the names of two members in UTF-16 order,
// deciding on the 8-byte prefix keys when they differ.
func (c *Canonicalizer) compareMembers(a, b *member) int {
	if a.key != b.key {
		if a.key < b.key {
			return -1
		}
		return +1
	}
	if (a.name|b.name)&escBit == 0 {
		// Equal keys of names without escapes (which hold no NUL byte):
		// the same name if shorter than eight bytes, else the same first
		// eight bytes.
		if a.key&0xFF == 0 {
			return 0
		}
		return compareQuoted(c.src, int(a.name)+9, int(b.name)+9)
	}
	return CompareUTF16(c.nameOf(a), c.nameOf(b))
}

// compareQuoted is CompareUTF16 of src[a:] and src[b:], each cut at its
// first '"' (names without escapes, from some offset in them on).
func compareQuoted(src []byte, a, b int) int {
	for {
		x, y := src[a], src[b]
		if x != y {
			switch {
			case x == '"': // a ends first: a prefix of b
				return -1
			case y == '"':
				return +1
			case utf16Key(x) < utf16Key(y):
				return -1
			}
			return +1
		}
		if x == '"' {
			return 0
		}
		a++
		b++
	}
}

// nameKey packs the first eight bytes of a name, each mapped by utf16Key
// (lead bytes EE and EF above F0-F4), big-endian and zero-padded. Where two
// keys differ, they order the names as CompareUTF16 does (the bytes before
// the first difference are equal, and the mapping at the first difference
// is CompareUTF16's); equal keys need the full comparison.
func nameKey(name []byte) uint64 {
	var k uint64
	n := min(len(name), 8)
	for _, b := range name[:n] {
		k = k<<8 | uint64(b)
	}
	k <<= 8 * (8 - n)
	if k&0x8080808080808080 != 0 {
		k = 0
		for i := range 8 {
			var b byte
			if i < n {
				b = name[i]
			}
			k = k<<8 | uint64(utf16Key(b))
		}
	}
	return k
}

// nameKeyAt is nameKey(src[start:end]), with one load where it can.
func nameKeyAt(src []byte, start, end int) uint64 {
	n := end - start
	if start+8 > len(src) {
		return nameKey(src[start:end])
	}
	k := binary.BigEndian.Uint64(src[start : start+8])
	if n < 8 {
		k &^= ^uint64(0) >> (8 * n)
	}
	if k&0x8080808080808080 != 0 {
		return nameKey(src[start:end])
	}
	return k
}

// sortInPlace reorders the members of f, whose closing brace is at input
// offset pos, into the order of c.order (sortMembers), in the output buffer. Member spans are separated by exactly
// one comma in the output, so the permuted content has the same length.
func (c *Canonicalizer) sortInPlace(f *frame, pos int) {
	if first := c.offOf(&c.members[f.first]); c.pend <= first {
		// Nothing in the object was dropped or rewritten: its content is
		// src[first:pos] as it stands, members separated by single commas,
		// so the members are copied in order straight from the input, each
		// from the input offset its output coordinate gives.
		c.flush(first)
		if cap(c.dst)-len(c.dst) < pos-first {
			c.grow(pos-first, pos)
		}
		toOff := uint32(first) - c.members[f.first].start
		for i, j := range c.order {
			if i > 0 {
				c.dst = append(c.dst, ',')
			}
			end := pos
			if int(j)+1 < len(c.members) {
				end = int(c.members[j+1].start+toOff) - 1
			}
			c.dst = appendSpan(c.dst, c.src, int(c.members[j].start+toOff), end)
		}
		c.pend = pos
		return
	}
	c.flush(pos)
	start, end := f.contentStart, len(c.dst)
	// A member that holds most of the object (a document's array of
	// records) is moved once, straight to its place, and only the others
	// go through the scratch copy.
	big, bs, be := -1, 0, 0 // that member: its place in c.order, its span
	if end-start >= bigMember {
		for i, j := range c.order {
			if ms, me := c.memberSpan(int(j), start, end); 2*(me-ms) > end-start {
				big, bs, be = i, ms, me
				break
			}
		}
	}
	if big < 0 {
		// The common case, on its own: folded into the loop below, with an
		// empty big span, it would pay that loop's two tests per member
		// (bench/cgab.sh on Canonicalize/input=mixed-1M measures it).
		c.scratch = append(c.scratch[:0], c.dst[start:end]...)
		w := start
		for i, j := range c.order {
			if i > 0 {
				c.dst[w] = ','
				w++
			}
			ms, me := c.memberSpan(int(j), start, end)
			w += copy(c.dst[w:], c.scratch[ms-start:me-start])
		}
		if w != end {
			panic("BUG: canon: permuted object changed length")
		}
		return
	}
	bt := start // the big member's place: after those before it, each with its comma
	for _, j := range c.order[:big] {
		ms, me := c.memberSpan(int(j), start, end)
		bt += me - ms + 1
	}
	c.scratch = append(append(c.scratch[:0], c.dst[start:bs]...), c.dst[be:end]...)
	copy(c.dst[bt:], c.dst[bs:be])
	w := start
	for i, j := range c.order {
		if i > 0 {
			c.dst[w] = ','
			w++
		}
		if i == big {
			w += be - bs
			continue
		}
		ms, me := c.memberSpan(int(j), start, end)
		if ms > bs { // after the big member in the scratch copy
			ms, me = ms-(be-bs), me-(be-bs)
		}
		w += copy(c.dst[w:], c.scratch[ms-start:me-start])
	}
	if w != end || bt+(be-bs) > end {
		panic("BUG: canon: permuted object changed length")
	}
}

// bigMember is the content size from which sortInPlace looks for a member
// holding more than half of an object, to move it only once.
const bigMember = 4096

// scanString consumes the string whose opening quote is at pos and returns
// the offset after its closing quote. The string is kept verbatim unless it
// has an escape that is not in canonical form, in which case the output is
// rewritten from that escape on. For a member name with escapes, the decoded
// name is appended to c.names.
//
// The bytes from pos+1 up to i are known to be plain (scanPlainString).
func (c *Canonicalizer) scanString(pos, i int, name bool) (int, error) {
	src := c.src
	if i < len(src) && src[i] == '\\' {
		return c.scanEscaped(pos, i, name) // where scanPlain stops, mostly
	}
	j, ok := c.stopRun(i)
	if !ok {
		if err := c.checkRun(i, j); err != nil {
			return 0, err
		}
	}
	if j >= len(src) {
		return 0, c.errorf(ClassSyntax, int64(len(src)), "unexpected end of input inside a string starting at offset %d", pos)
	}
	switch src[j] {
	case '"':
		return j + 1, nil
	case '\\':
		return c.scanEscaped(pos, j, name)
	}
	return 0, c.errorf(ClassSyntax, int64(j), "unescaped control character %s in a string", quoteByte(src, j))
}

// checkRun returns the error of the first ill-formed UTF-8 sequence in the
// string content src[i:j], which holds no stop byte, or nil if it is
// well-formed.
func (c *Canonicalizer) checkRun(i, j int) error {
	src := c.src
	for i < j {
		if src[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:j])
		if r == utf8.RuneError && size <= 1 {
			return c.errorf(ClassInvalidUTF8, int64(i), "invalid UTF-8 byte %#02x in a string", src[i])
		}
		i += size
	}
	return nil
}

// scanEscaped is the slow path of scanString, from the first backslash at i.
// The string is taken as runs of content between escapes (stopRun), each
// copied whole.
func (c *Canonicalizer) scanEscaped(pos, i int, name bool) (int, error) {
	src := c.src
	rewriting := false
	simple := 0 // the \" and \\ escapes taken in line so far
	if name {
		c.names = append(c.names, src[pos+1:i]...)
	}
	for {
		if i >= len(src) || src[i] != '\\' { // not another escape straight away
			j, ok := c.stopRun(i)
			if !ok {
				if err := c.checkRun(i, j); err != nil {
					return 0, err
				}
			}
			if name {
				c.names = append(c.names, src[i:j]...)
			}
			if rewriting {
				c.dst = append(c.dst, src[i:j]...)
			}
			i = j
		}
		if i >= len(src) {
			return 0, c.errorf(ClassSyntax, int64(len(src)), "unexpected end of input inside a string starting at offset %d", pos)
		}
		switch b := src[i]; {
		case b == '"':
			if rewriting {
				c.dst = append(c.dst, '"')
				c.pend = i + 1
			}
			return i + 1, nil
		case b < 0x20:
			return 0, c.errorf(ClassSyntax, int64(i), "unescaped control character %s in a string", quoteByte(src, i))
		default: // backslash
			// \" and \\, the escapes of JSON text held in a string (an
			// OpenAI arguments string is full of them), are canonical:
			// taken in line, as decodeEscape would take them.
			if i+1 < len(src) {
				if e := src[i+1]; e == '"' || e == '\\' {
					if useEscRunAVX512 && !name && simple >= escapeRunAfter {
						// The run from here that is canonical as it
						// stands, 64 bytes per step (escapeRun).
						j := c.escapeRun(i)
						if rewriting {
							c.dst = append(c.dst, src[i:j]...)
						}
						i = j
						continue
					}
					simple++
					if rewriting {
						c.dst = append(c.dst, '\\', e)
					}
					if name {
						c.names = append(c.names, e)
					}
					i += 2
					continue
				}
			}
			// \uXXXX of a character written raw (not a control, '"', '\\'
			// or a surrogate) is never canonical: decoded in line.
			if i+1 < len(src) && src[i+1] == 'u' {
				if v, ok := c.hex4(i + 2); ok && v >= 0x20 && v != '"' && v != '\\' && (v < 0xD800 || v >= 0xE000) {
					if !rewriting {
						c.flush(i)
						rewriting = true
					}
					c.dst = utf8.AppendRune(c.dst, v)
					if name {
						c.names = utf8.AppendRune(c.names, v)
					}
					i += 6
					continue
				}
			}
			r, size, canonical, err := c.decodeEscape(i)
			if err != nil {
				return 0, err
			}
			if !canonical && !rewriting {
				c.flush(i)
				rewriting = true
			}
			if rewriting {
				c.dst = appendStringRune(c.dst, r)
			}
			if name {
				c.names = utf8.AppendRune(c.names, r)
			}
			i += size
		}
	}
}

// escapeRunAfter is how many \" and \\ escapes of a string scanEscaped
// takes in line before it hands the rest to escapeRun: a call of
// escapeRun costs more than a few escapes in line, so a string with one
// or two (a quoted word) never pays for it, and JSON text held in a
// string (an escape every few bytes) soon does (BenchmarkEscRun).
const escapeRunAfter = 2

// escapeRun returns the offset of the first byte from src[i] on that is
// not a \" or \\ escape or a printable ASCII byte other than '"' and '\\'
// (src[i] is the backslash of a \" or \\): the end of the run of a string
// that is canonical as it stands and needs no check of its own, which
// scanEscaped passes in one go. JSON text held in a string (an OpenAI
// arguments string) has an escape every few bytes, each a trip round
// scanEscaped's loop otherwise.
//
// It reads 64 bytes per step (escbits.Masks): the bitmaps of quotes,
// backslashes and of controls and high bytes give, with escbits.Escapes,
// the escaping backslashes and the bytes they escape, and the run ends at
// the first quote not escaped, control or high byte not escaped (a high
// byte's UTF-8 is scanEscaped's to check), backslash whose escaped byte
// is not '"' or '\\', or backslash whose escaped byte lies past the step.
// Where it stops, scanEscaped goes on as before. Only with
// useEscRunAVX512.
func (c *Canonicalizer) escapeRun(i int) int {
	src := c.src
	for i < len(src) {
		l := min(len(src)-i, 64)
		q, bs, _, other := escbits.Masks(&src[i], l)
		esc, escaped := escbits.Escapes(bs)
		stops := (q|other)&^escaped | (escaped&^(q|bs))>>1
		if esc>>(l-1)&1 != 0 {
			stops |= 1 << (l - 1) // its escaped byte is in the next step, or past the input
		}
		if stops != 0 {
			return i + bits.TrailingZeros64(stops)
		}
		i += l
	}
	return len(src)
}

func init() {
	escRunKernel = impl.Register(&impl.Kernel{
		Package: "canon",
		Name:    "escrun",
		Impls:   []impl.Impl{{Name: "generic", Available: true}, {Name: "avx512", Available: escbits.HaveAVX512}},
		Active:  boolName(&useEscRunAVX512, "generic", "avx512"),
		Set:     setBool(&useEscRunAVX512, "avx512"),
	})
}

// decodeEscape decodes the escape sequence at src[i] == '\\', joining a
// surrogate pair into one rune. canonical reports whether the sequence is
// exactly how RFC 8785 §3.2.2.2 writes the rune.
func (c *Canonicalizer) decodeEscape(i int) (r rune, size int, canonical bool, err error) {
	src := c.src
	if i+1 >= len(src) {
		return 0, 0, false, c.errorf(ClassSyntax, int64(len(src)), "unexpected end of input inside an escape sequence")
	}
	switch src[i+1] {
	case '"', '\\':
		return rune(src[i+1]), 2, true, nil
	case 'b':
		return '\b', 2, true, nil
	case 'f':
		return '\f', 2, true, nil
	case 'n':
		return '\n', 2, true, nil
	case 'r':
		return '\r', 2, true, nil
	case 't':
		return '\t', 2, true, nil
	case '/':
		return '/', 2, false, nil
	case 'u':
		v, ok := c.hex4(i + 2)
		if !ok {
			return 0, 0, false, c.badHex(i)
		}
		switch {
		case v >= 0xD800 && v < 0xDC00:
			if i+7 < len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
				w, ok := c.hex4(i + 8)
				if !ok {
					return 0, 0, false, c.badHex(i + 6)
				}
				if w >= 0xDC00 && w < 0xE000 {
					return 0x10000 + (v-0xD800)<<10 + (w - 0xDC00), 12, false, nil
				}
				return 0, 0, false, c.errorf(ClassUnpairedSurrogate, int64(i), "high surrogate escape \\u%04x followed by \\u%04x, not a low surrogate", v, w)
			}
			return 0, 0, false, c.errorf(ClassUnpairedSurrogate, int64(i), "high surrogate escape \\u%04x not followed by a low surrogate escape", v)
		case v >= 0xDC00 && v < 0xE000:
			return 0, 0, false, c.errorf(ClassUnpairedSurrogate, int64(i), "low surrogate escape \\u%04x without a preceding high surrogate", v)
		}
		return v, 6, canonicalUEscape(src, i, v), nil
	}
	return 0, 0, false, c.errorf(ClassSyntax, int64(i), "invalid escape sequence %s in a string", strconv.Quote(string(src[i:i+2])))
}

// canonicalUEscape reports whether the escape src[i:i+6] == `\uXXXX`, whose
// value is v, is how RFC 8785 §3.2.2.2 writes v: only a control character
// without a two-character escape is written \u00xx, in lowercase hex.
func canonicalUEscape(src []byte, i int, v rune) bool {
	return v < 0x20 && src[i+2] == '0' && src[i+3] == '0' &&
		v != '\b' && v != '\f' && v != '\n' && v != '\r' && v != '\t' &&
		src[i+4] == hexLower[v>>4] && src[i+5] == hexLower[v&0xF]
}

func (c *Canonicalizer) badHex(i int) error {
	end := min(i+6, len(c.src))
	if end < i+6 {
		return c.errorf(ClassSyntax, int64(len(c.src)), "unexpected end of input inside an escape sequence")
	}
	return c.errorf(ClassSyntax, int64(i), "invalid escape sequence %s in a string", strconv.Quote(string(c.src[i:end])))
}

// hex4 parses four hex digits at src[i:i+4].
func (c *Canonicalizer) hex4(i int) (rune, bool) {
	if i+4 > len(c.src) {
		return 0, false
	}
	// A non-digit maps to 1<<16, which lands above bit 15 however far it
	// is shifted: one test covers all four bytes.
	s := c.src[i : i+4 : i+4]
	v := unhex[s[0]]<<12 | unhex[s[1]]<<8 | unhex[s[2]]<<4 | unhex[s[3]]
	return rune(v), v <= 0xFFFF
}

const hexLower = "0123456789abcdef"

// unhex maps each hex digit to its value and every other byte to 1<<16.
var unhex = func() (t [256]uint32) {
	for i := range t {
		t[i] = 1 << 16
	}
	for i := 0; i < 10; i++ {
		t['0'+i] = uint32(i)
	}
	for i := 0; i < 6; i++ {
		t['a'+i] = uint32(10 + i)
		t['A'+i] = uint32(10 + i)
	}
	return t
}()

// appendStringRune appends r as it appears inside a canonical string
// (RFC 8785 §3.2.2.2).
func appendStringRune(dst []byte, r rune) []byte {
	switch r {
	case '"', '\\':
		return append(dst, '\\', byte(r))
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	if r < 0x20 {
		return append(dst, '\\', 'u', '0', '0', hexLower[r>>4], hexLower[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// badChar describes the unexpected byte at src[i] (or the end of input) for
// a syntax error message.
func badChar(src []byte, i int) string {
	if i >= len(src) {
		return "unexpected end of input"
	}
	return "invalid character " + quoteByte(src, i)
}

// quoteByte describes src[i] for an error message.
func quoteByte(src []byte, i int) string {
	if i >= len(src) {
		return "end of input"
	}
	b := src[i]
	if b < utf8.RuneSelf {
		return strconv.QuoteRune(rune(b))
	}
	r, _ := utf8.DecodeRune(src[i:])
	if r == utf8.RuneError {
		return "byte " + strconv.Quote(string(src[i:i+1]))
	}
	return strconv.QuoteRune(r)
}

// appendSpan appends src[a:b] to dst. Spans of up to 16 bytes (most of
// those between two runs of whitespace in pretty-printed input) are copied
// as two eight-byte words, without a call to memmove, when dst has the
// spare capacity and src the bytes to read past the span; the bytes written
// past the span lie in dst's spare capacity, so they are harmless.
func appendSpan(dst, src []byte, a, b int) []byte {
	w := len(dst)
	if b-a <= 16 && cap(dst)-w >= 16 && len(src)-a >= 16 {
		d, s := dst[w:w+16], src[a:a+16]
		binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(s))
		binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:]))
		return dst[:w+b-a]
	}
	return append(dst, src[a:b]...)
}
