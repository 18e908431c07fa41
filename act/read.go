package act

// The package reads JSON with internal/jsonread, the module's one reader of
// JSON that canon has checked. Calls are read from the canonical bytes the
// canon gate returns (no whitespace, members sorted by name, unique names,
// strings escaped only as RFC 8785 §3.2.2.2 requires) with jsonread.Iter.
// The caller's input as written is read (find, jsonread.TextArray) only
// where offsets in it are needed: error offsets, and the strict gate of
// the arguments of a call whose wrapper only the rfc8785 profile accepts.

import "github.com/bbdigest/bbdigest/internal/jsonread"

// span is a value's bytes [start, end) in a document. The zero span is no
// value: inside an object, no value starts at offset 0.
type span struct{ start, end int }

func (s span) found() bool { return s.start != 0 }

// valueSpan returns the span of the current value of the walk it.
func valueSpan(it *jsonread.Iter) span { return span{it.ValueStart(), it.ValueEnd()} }

// find returns the span in src, the input as written, of the value at
// path from the value at src[at] (jsonread.Find): a step is a member name,
// or in an array an index in decimal. ok is false when a step is missing.
func find(src []byte, at int, path []string) (s span, ok bool) {
	s.start, s.end, ok = jsonread.Find(src, at, path)
	return s, ok
}

// findTop is find from the input's top-level value.
func findTop(src []byte, path []string) (span, bool) {
	return find(src, jsonread.SkipSpace(src, 0), path)
}
