package jsonread

import (
	"bytes"
	"strconv"
)

// The readers of JSON text as written: whitespace between tokens, names
// spelled with any escape. The packages read canonical JSON with Iter; they
// read the caller's input as written only where they need offsets in it
// (an error's, or the raw bytes of a value to put through a stricter canon
// gate on their own).

// Find returns the bounds [start, end) in src of the value at path from
// the value that starts at src[at]. src is JSON text as written, that
// canon accepted (so without duplicate names); a step of the path is a
// member name, compared with the name as it decodes, or, in an array, an
// index in decimal. The empty path is the value at src[at] itself. ok is
// false when a step is missing, or the value it steps into is not an
// object or array, or src is not text Find reads.
func Find(src []byte, at int, path []string) (start, end int, ok bool) {
	start = at
	for _, step := range path {
		if uint(start) >= uint(len(src)) {
			return 0, 0, false
		}
		switch src[start] {
		case '{':
			if start, end, ok = member(src, start, step); !ok {
				return 0, 0, false
			}
		case '[':
			k, err := strconv.Atoi(step)
			if err != nil || k < 0 {
				return 0, 0, false
			}
			a := OpenTextArray(src, start)
			for a.Next() && k > 0 {
				k--
			}
			if k > 0 || !a.found {
				return 0, 0, false
			}
			start, end = a.Value()
		default:
			return 0, 0, false
		}
	}
	if len(path) == 0 {
		if end = SkipValue(src, start); end < 0 {
			return 0, 0, false
		}
	}
	return start, end, true
}

// member returns the bounds of the value of the member called name in the
// object at src[i] == '{', as written.
func member(src []byte, i int, name string) (start, end int, ok bool) {
	i = SkipSpace(src, i+1)
	for i < len(src) && src[i] == '"' {
		ne := SkipString(src, i)
		if ne < 0 {
			return 0, 0, false
		}
		match := nameIs(src[i:ne], name)
		if i = SkipSpace(src, ne); i >= len(src) || src[i] != ':' {
			return 0, 0, false
		}
		start = SkipSpace(src, i+1)
		if end = SkipValue(src, start); end < 0 {
			return 0, 0, false
		}
		if match {
			return start, end, true
		}
		if i = SkipSpace(src, end); i < len(src) && src[i] == ',' {
			i = SkipSpace(src, i+1)
		}
	}
	return 0, 0, false
}

// nameIs reports whether the JSON string literal q decodes to name.
func nameIs(q []byte, name string) bool {
	body := q[1 : len(q)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == name
	}
	var stack [64]byte
	text, end := AppendUnquote(stack[:0], q, 0)
	return end == len(q) && string(text) == name
}

// TextArray walks the elements of an array in JSON text as written.
type TextArray struct {
	src        []byte
	i          int // the next element, or the closing bracket
	start, end int // the current element
	found      bool
}

// OpenTextArray returns the walk of the array at src[i] == '['.
func OpenTextArray(src []byte, i int) TextArray {
	return TextArray{src: src, i: SkipSpace(src, i+1)}
}

// Next advances to the next element and reports whether there is one.
func (a *TextArray) Next() bool {
	i := a.i
	a.found = false
	if uint(i) >= uint(len(a.src)) || a.src[i] == ']' {
		return false
	}
	end := SkipValue(a.src, i)
	if end <= i {
		return false
	}
	a.start, a.end = i, end
	if i = SkipSpace(a.src, end); i < len(a.src) && a.src[i] == ',' {
		i = SkipSpace(a.src, i+1)
	}
	a.i, a.found = i, true
	return true
}

// Value returns the bounds [start, end) in src of the current element.
func (a *TextArray) Value() (start, end int) { return a.start, a.end }
