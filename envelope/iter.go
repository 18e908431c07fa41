package envelope

// The package reads JSON with internal/jsonread, the module's one reader
// of JSON that canon has checked. Envelopes (decode.go), their placement
// in a wrapper (parse.go) and resolutions (resolution.go) are all read
// from the canonical bytes the canon gate returns, with jsonread.Iter: no
// whitespace, members sorted by name, unique names, strings escaped only
// as RFC 8785 §3.2.2.2 requires, numbers as plain decimal integers. The
// caller's input as written is read (jsonread.Find) in the one place that
// needs offsets in it: the strict gate of a binding_moment value inside a
// wrapper that only the rfc8785 profile accepts.

import "github.com/bbdigest/bbdigest/internal/jsonread"

// span is where a member lies in a canonical object: member is the offset
// of its name's opening quote, and [start, end) is its value. The zero span
// is no member: inside an object, no value starts at offset 0.
type span struct{ member, start, end int }

// found reports whether s is a member that was found.
func (s span) found() bool { return s.start != 0 }

// spanOf returns the span of the current member of the walk it.
func spanOf(it *jsonread.Iter) span {
	return span{member: it.MemberStart(), start: it.ValueStart(), end: it.ValueEnd()}
}

// lookup returns the span of the member called name in the canonical value
// b: the zero span when b is not an object or has no such member.
func lookup(b []byte, name string) span {
	for it := jsonread.Object(b, 0); it.Next(); {
		if string(it.Name()) == name {
			return spanOf(&it)
		}
	}
	return span{}
}

// unquote returns the text of the canonical JSON string literal q: a
// member name (jsonread.Iter.QuotedName) or a string value, for a
// message or a check that needs it decoded.
func unquote(q []byte) string {
	s, _ := jsonread.Unquote(q)
	return s
}
