package jsonread

// Iter walks the members of an object or the elements of an array in
// canonical JSON, reading each byte once: the end of the current value is
// found by whoever reads the value (who then records it with SetValueEnd),
// or by SkipValue when the walk moves on and nobody did. Make it with
// [Object] or [Array]; walk an object with Next and an array with Elem:
//
//	for it := jsonread.Object(b, i); it.Next(); {
//		switch string(it.Name()) { ... }
//	}
//
// Names are raw: as the canonical text writes them, without their quotes
// and still escaped (canonical JSON escapes only '"', '\' and the controls
// below U+0020 in them, so a name to compare with that holds none of
// those compares as it stands).
//
// The accessors (Name, Value and the rest) read the current member or
// element: call them after Next or Elem has returned true.
//
// On text that is not canonical JSON the walk stops where a separator, a
// bracket or a member name is not where canonical JSON has one, and Close
// reports -1; the values are skipped (SkipValue), not checked. No method
// panics or reads outside b. An Iter is a value: copying it copies the
// walk.
type Iter struct {
	b      []byte
	i      int // the opening bracket
	ns, ne int // the current member's raw name, without its quotes
	vs, ve int // the current value (vs is 0 before the first and once the walk is over); ve < 0 while its end is not known
	n      int // the members or elements passed
	close  int // once the walk is over, past the closing bracket, or -1 if it stopped on malformed text; 0 before
}

// Object returns the walk of the members of the object at b[i] == '{'.
// If b[i] is not '{' the walk is over at once, and Close is -1.
func Object(b []byte, i int) Iter { return open(b, i, '{') }

// Array returns the walk of the elements of the array at b[i] == '['.
// If b[i] is not '[' the walk is over at once, and Close is -1.
func Array(b []byte, i int) Iter { return open(b, i, '[') }

func open(b []byte, i int, c byte) Iter {
	if uint(i) >= uint(len(b)) || b[i] != c {
		return Iter{b: b, close: -1}
	}
	return Iter{b: b, i: i}
}

// Next advances to the next member of an object and reports whether there
// is one.
func (it *Iter) Next() bool {
	b, i := it.b, it.i
	switch {
	case it.vs != 0: // past a member: its value, then ',' or '}'
		it.n++
		if i = it.ValueEnd(); uint(i) >= uint(len(b)) || b[i] != ',' {
			return it.end(i, '}')
		}
		i++
	case it.close != 0: // over
		return false
	default: // past '{': the first member, or '}'
		if i++; i < len(b) && b[i] == '}' {
			return it.end(i, '}')
		}
	}
	if uint(i) >= uint(len(b)) || b[i] != '"' {
		return it.end(-1, '}')
	}
	ne := skipString(b, i) // past the name's closing quote; -1 if b ends inside it
	if ne < 0 || uint(ne+1) >= uint(len(b)) || b[ne] != ':' {
		return it.end(-1, '}')
	}
	it.ns, it.ne = i+1, ne-1
	it.vs, it.ve = ne+1, -1
	return true
}

// Elem advances to the next element of an array and reports whether there
// is one.
func (it *Iter) Elem() bool {
	b, i := it.b, it.i
	switch {
	case it.vs != 0: // past an element, then ',' or ']'
		it.n++
		if i = it.ValueEnd(); uint(i) >= uint(len(b)) || b[i] != ',' {
			return it.end(i, ']')
		}
		if i++; i >= len(b) || b[i] == ']' {
			return it.end(-1, ']')
		}
	case it.close != 0: // over
		return false
	default: // past '[': the first element, or ']'
		if i++; i >= len(b) || b[i] == ']' {
			return it.end(i, ']')
		}
	}
	it.vs, it.ve = i, -1
	return true
}

// end ends the walk at b[i]: past it if it is the closing bracket, else
// (or for i out of b) on malformed text, with Close -1.
func (it *Iter) end(i int, closing byte) bool {
	it.close = -1
	if uint(i) < uint(len(it.b)) && it.b[i] == closing {
		it.close = i + 1
	}
	it.vs = 0
	return false
}

// Name returns the current member's raw name, without its quotes.
func (it *Iter) Name() []byte { return it.b[it.ns:it.ne] }

// QuotedName returns the current member's name as the text writes it,
// quotes included: a JSON string literal, for Unquote or a message.
func (it *Iter) QuotedName() []byte { return it.b[it.ns-1 : it.ne+1] }

// MemberStart returns the index in b of the current member: its name's
// opening quote.
func (it *Iter) MemberStart() int { return it.ns - 1 }

// ValueStart returns the index in b of the current value.
func (it *Iter) ValueStart() int { return it.vs }

// ValueEnd returns the index in b just past the current value, finding it
// if need be: -1 if b ends inside it.
func (it *Iter) ValueEnd() int {
	if it.ve < 0 {
		it.ve = SkipValue(it.b, it.vs)
	}
	return it.ve
}

// SetValueEnd records end as the end of the current value, found by the
// caller that read the value (by a nested walk's Close, or AppendUnquote),
// so that the walk moves on without reading it again. A negative end
// records nothing: the walk will find the end itself.
func (it *Iter) SetValueEnd(end int) {
	if end >= 0 {
		it.ve = end
	}
}

// Value returns the current value: nil if b ends inside it.
func (it *Iter) Value() []byte {
	if end := it.ValueEnd(); end >= 0 {
		return it.b[it.vs:end]
	}
	return nil
}

// Scalar returns the current value if it is not an object or array, and
// otherwise only its first byte (enough to name its Kind), without reading
// it: the caller that reads it records its end with SetValueEnd.
func (it *Iter) Scalar() []byte {
	if c := it.b[it.vs]; c == '{' || c == '[' {
		return it.b[it.vs : it.vs+1]
	}
	return it.Value()
}

// StringBody returns the current value's body, between its quotes and as
// the text writes it (escaped), when the value is a string, and records
// its end; plain reports that the body holds no escape, so that it is the
// string's text. ok is false when the value is not a string or b ends
// inside it. It reads the string once, where Value and a search for a
// backslash would read it twice.
func (it *Iter) StringBody() (body []byte, plain, ok bool) {
	vs := it.vs
	if uint(vs) >= uint(len(it.b)) || it.b[vs] != '"' {
		return nil, false, false
	}
	end, plain := StringEnd(it.b, vs)
	if end < 0 {
		return nil, false, false
	}
	it.ve = end
	return it.b[vs+1 : end-1], plain, true
}

// Index returns the index of the current member or element, from 0; once
// Next or Elem has returned false, how many there were.
func (it *Iter) Index() int { return it.n }

// Close returns the index in b just past the closing bracket, once Next or
// Elem has returned false: -1 if the walk stopped on text that is not
// canonical JSON, and 0 while the walk goes on.
func (it *Iter) Close() int { return it.close }
