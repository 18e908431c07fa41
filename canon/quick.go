package canon

import "errors"

// NOTE: the canonical fast path.
//
// Input that is already canonical (a stored envelope, a receipt, a
// tool call's arguments as signed) is the common case on verification hot
// paths. quickCanonical recognises it with a lean scan that keeps none of
// the general engine's records: per open container only whether it is an
// object and the previous member name, since in canonical input names are
// strictly increasing in UTF-16 order, which proves them unique too (names
// with escapes are compared decoded, as the engine compares them). Strings
// and numbers go through the engine's own helpers, so their rules live in
// one place. At the first byte that is not canonical (whitespace, an
// out-of-order name, a number or escape that would be rewritten) or not
// valid, it gives up, and the general engine (state.go) runs from the start
// and produces the output or the error with its offset and pointer. So
// every error still comes from one place. TestQuickCanonicalAgrees and
// FuzzCanonicalize check both directions: the fast path accepts only what
// the engine returns unchanged, and it accepts all of the engine's output.
//
// Giving up costs the prefix scanned so far: nothing for pretty-printed
// input (it gives up at the first newline), at most one extra scan for
// compact input whose first non-canonical byte comes late.

// errQuick is what the engine's helpers return to the fast path instead of
// an error: the fast path discards it and the engine reports the real one.
var errQuick = errors.New("canon: not canonical (fast path)")

// quickFrame is an open container of the fast path.
type quickFrame struct {
	object      bool
	prevEsc     bool   // the previous name had escapes: it is c.names[prev:prev2]
	prevKey     uint64 // nameKey of the previous member's decoded name
	prev, prev2 int    // the previous member's name: src[prev:prev2] (objects with a member)
	namesStart  int    // len(c.names) when the object opened
}

// quickCanonical reports whether src is valid and canonical under c's
// profile (see the NOTE above). Where the quick kernel is an indexed one,
// an input of at most indexMaxInput bytes is checked by quickIndexed
// (index.go) instead, which leaves to quickRun only the inputs it cannot
// judge (a name with an escape, a \u escape); the adaptive kernel checks
// it with quickRun where that was the cheaper pass for the last input
// (see index.go).
func (c *Canonicalizer) quickCanonical(src []byte) bool {
	if len(src) > c.profile.MaxSize() {
		return false
	}
	c.src = src
	c.dst = c.out[:0]
	c.win.reset()
	c.names = c.names[:0]
	c.quickMode = true
	v, st := indexUnsure, c.quick[:0]
	if useQuickIndex && len(src) <= indexMaxInput && !(useQuickAdapt && c.ix != nil && c.ix.preferWalk) {
		v, st = c.quickIndexed(src, st)
		st = st[:0]
		if useQuickAdapt {
			switch v {
			case indexYes:
				c.ix.preferWalk, c.ix.slowRun = !c.ix.anyHigh && !c.ix.anyBS, 0
			case indexNo:
				c.ix.preferWalk, c.ix.slowRun = true, 0
			}
		}
	}
	ok := v == indexYes
	if v == indexUnsure {
		c.walkSlow = false
		ok, st = c.quickRun(src, st)
		if c.ix != nil && c.ix.preferWalk {
			c.ix.adaptAfterWalk(ok && c.walkSlow)
		}
	}
	c.quick, c.quickMode = st[:0], false
	// A helper that began rewriting (and so made the fast path give up)
	// wrote into c.dst: keep that memory for next time.
	if cap(c.dst) > cap(c.out) {
		c.out = c.dst[:0]
	}
	return ok
}

// quickRun is quickCanonical's pass over src, with st (empty) for its
// open containers; it returns st's memory for the next call with its
// answer (a deferred clean-up in quickCanonical cost a defer record per
// call: Go does not open-code the defer of a function with this many
// returns).
func (c *Canonicalizer) quickRun(src []byte, st []quickFrame) (bool, []quickFrame) {
	maxDepth := c.profile.MaxDepth()
	strict := !c.profile.rfc8785
	n := len(src)
	pos := 0

value:
	if pos >= n {
		return false, st
	}
	switch src[pos] {
	case '{':
		if len(st) >= maxDepth {
			return false, st
		}
		pos++
		if pos < n && src[pos] == '}' {
			pos++
			goto next
		}
		st = pushQuick(st)
		st[len(st)-1] = quickFrame{object: true, prev: -1, namesStart: len(c.names)}
		goto name
	case '[':
		if len(st) >= maxDepth {
			return false, st
		}
		pos++
		if pos < n && src[pos] == ']' {
			pos++
			goto next
		}
		st = pushQuick(st)
		st[len(st)-1] = quickFrame{}
		goto value
	case '"':
		j, esc := c.scanPlainQuick(pos)
		if esc {
			if j = c.quickEscaped(j); j < 0 {
				return false, st
			}
		}
		pos = j
	case 't':
		if n-pos < 4 || string(src[pos:pos+4]) != "true" {
			return false, st
		}
		pos += 4
	case 'f':
		if n-pos < 5 || string(src[pos:pos+5]) != "false" {
			return false, st
		}
		pos += 5
	case 'n':
		if n-pos < 4 || string(src[pos:pos+4]) != "null" {
			return false, st
		}
		pos += 4
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		c.pend = pos
		end, err := c.number(pos, strict)
		if err != nil || c.pend != pos {
			return false, st
		}
		pos = end
	default:
		return false, st
	}

next:
	if len(st) == 0 {
		return pos == n, st
	}
	if pos >= n {
		return false, st
	}
	switch src[pos] {
	case ',':
		pos++
		if st[len(st)-1].object {
			goto name
		}
		goto value
	case '}':
		if !st[len(st)-1].object {
			return false, st
		}
		c.names = c.names[:st[len(st)-1].namesStart]
	case ']':
		if st[len(st)-1].object {
			return false, st
		}
	default:
		return false, st
	}
	st = st[:len(st)-1]
	pos++
	goto next

name:
	if pos >= n || src[pos] != '"' {
		return false, st
	}
	{
		j, esc := c.scanPlainQuick(pos)
		nameEsc, ns, ne := false, pos+1, j-1
		var key uint64
		if !esc {
			key = nameKeyAt(src, ns, ne)
		} else {
			if j, ns, ne, key = c.quickEscapedName(pos, j); j < 0 {
				return false, st
			}
			nameEsc = true
		}
		f := &st[len(st)-1]
		if f.prev >= 0 && (key < f.prevKey || key == f.prevKey && c.quickCompare(f, nameEsc, ns, ne) >= 0) {
			return false, st
		}
		f.prevEsc, f.prevKey, f.prev, f.prev2 = nameEsc, key, ns, ne
		pos = j
	}
	if pos >= n || src[pos] != ':' {
		return false, st
	}
	pos++
	goto value
}

// pushQuick returns st one frame longer, the new frame's contents
// unspecified: the caller writes it in place. (append(st, quickFrame{...})
// built the frame in a temporary and copied it with wide loads that the
// narrower stores before them could not forward to, a stall per container
// that showed as 16% of quickRun's samples on records of envelopes.)
func pushQuick(st []quickFrame) []quickFrame {
	if len(st) < cap(st) {
		return st[:len(st)+1]
	}
	return append(st, quickFrame{})
}

// quickEscaped finishes a string value whose plain prefix ends at j, with a
// backslash, a control byte or the end of the input. Escapes may be canonical (\n,
// \u001f, \"): each one is checked here, and the plain run after it is
// found with scanPlain, as the string's first run was. It returns the offset
// after the string, or -1 at the first byte that the engine would reject or
// rewrite (so that the engine, which explains errors, takes over). (Out of
// line, it keeps the fast path's loop free of the registers it needs;
// TestInline pins that.)
func (c *Canonicalizer) quickEscaped(j int) int {
	c.walkSlow = true
	src := c.src
	for {
		if j+1 >= len(src) || src[j] != '\\' {
			return -1 // the input ends, or a control byte
		}
		switch src[j+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if v, ok := c.hex4(j + 2); !ok || !canonicalUEscape(src, j, v) {
				return -1
			}
			j += 6
		default:
			return -1 // \/ is rewritten; anything else is an error
		}
		if j >= len(src) {
			return -1 // unterminated
		}
		// scanPlainQuick(j-1) scans from j: the plain run after the escape.
		end, esc := c.scanPlainQuick(j - 1)
		if !esc {
			return end
		}
		j = end
	}
}

// quickEscapedName is quickEscaped for a member name: the decoded name is
// appended to c.names as the engine does, and returned as c.names[ns:ne]
// with its nameKey.
func (c *Canonicalizer) quickEscapedName(pos, j int) (end, ns, ne int, key uint64) {
	c.walkSlow = true
	ns = len(c.names)
	c.pend = pos
	end, err := c.scanString(pos, j, true)
	if err != nil || c.pend != pos {
		return -1, 0, 0, 0
	}
	ne = len(c.names)
	return end, ns, ne, nameKey(c.names[ns:ne])
}

// quickCompare compares the previous member name of f with the name at
// [ns:ne) (in c.names if esc, else in c.src) in UTF-16 order.
func (c *Canonicalizer) quickCompare(f *quickFrame, esc bool, ns, ne int) int {
	a, b := c.src[f.prev:f.prev2], c.src[ns:ne]
	if f.prevEsc {
		a = c.names[f.prev:f.prev2]
	}
	if esc {
		b = c.names[ns:ne]
	}
	return CompareUTF16(a, b)
}
