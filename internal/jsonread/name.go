package jsonread

// This file is the fold of member names: how Go's JSON decoders match
// JSON object member names to struct fields when they ignore case, so that
// a reader of JSON that binds some members can refuse the members another
// reader would take for them.
//
// encoding/json (v1) matches a member to a field by its exact name first,
// then by foldName (encoding/json/fold.go): ASCII letters without case, and
// every other rune as the smallest rune of its unicode.SimpleFold orbit,
// which folds U+017F (ſ, long s) to "S" and U+212A (Kelvin sign) to "K"
// (the only two runes outside ASCII that fold into it). encoding/json/v2
// and github.com/go-json-experiment/json, with MatchCaseInsensitiveNames or
// a `case:ignore` field, fold the same way and drop every '_' and '-' as
// well (their fold.go), so "tool_calls", "toolCalls" and "Tool-Calls" are
// one name to them; v1 under GOEXPERIMENT=jsonv2 sets
// MatchCaseSensitiveDelimiter and matches as v1 does. [Fold] is the union
// of those rules: the v2 fold, under which every pair of names that
// either decoder matches folds equal (v1's matches are the v2 matches
// that need no delimiter dropped).
//
// Names are compared as text: after JSON escapes are decoded. A name read
// from canonical JSON (RFC 8785) keeps escapes only for '"', '\' and the
// controls below U+0020, none of which is a letter, '_' or '-', so such a
// name may be folded as its bytes stand (Iter.Name): a backslash left in
// it folds to itself, and it folds equal to no name without one.
//
// EqualFoldASCII, the other fold here, is for names that are not JSON
// member names but the words of an API (a profile, a shape): ASCII letters
// without case, and nothing else folded.

import (
	"unicode"
	"unicode/utf8"
)

// foldRune returns the smallest rune of r's unicode.SimpleFold orbit, as
// encoding/json's foldRune does: two runes fold equal exactly when
// strings.EqualFold says they are equal.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// next returns the next folded rune of name at or after i, skipping '_'
// and '-', and the index past it; r < 0 at the end of name. Invalid UTF-8
// decodes to U+FFFD one byte at a time, as the decoders do.
func next[T ~string | ~[]byte](name T, i int) (r rune, j int) {
	for i < len(name) {
		if c := name[i]; c < utf8.RuneSelf {
			i++
			if c, ok := foldASCII(c); ok {
				return rune(c), i
			}
			continue
		}
		// At most 4 bytes: the conversion stays on the stack.
		r, n := utf8.DecodeRuneInString(string(name[i:min(i+utf8.UTFMax, len(name))]))
		return foldRune(r), i + n
	}
	return -1, i
}

// AppendFold appends the folded form of name to dst and returns the
// extended slice: '_' and '-' dropped, ASCII letters in upper case, every
// other rune the smallest of its case-fold orbit (ſ is "S", the Kelvin
// sign "K"). Two names are one member to a case-insensitive Go decoder
// only if their folded forms are equal; see the package documentation.
func AppendFold(dst []byte, name string) []byte {
	for i := 0; ; {
		var r rune
		if r, i = next(name, i); r < 0 {
			return dst
		}
		dst = utf8.AppendRune(dst, r)
	}
}

// Fold returns the folded form of name: AppendFold(nil, name) as a string.
func Fold(name string) string { return string(AppendFold(nil, name)) }

// EqualFold reports whether a and b fold equal (Fold(a) == Fold(b)),
// without allocating: whether encoding/json v1, encoding/json/v2 or
// go-json-experiment/json ignoring case could take a member called a for a
// field called b.
func EqualFold(a, b string) bool {
	i, j := 0, 0
	for {
		var ra, rb rune
		ra, i = next(a, i)
		rb, j = next(b, j)
		if ra != rb {
			return false
		}
		if ra < 0 {
			return true
		}
	}
}

// NameSet is a fixed set of member names that a reader binds, for telling
// which of them another name folds equal to. Make it with [NewNameSet]; it is
// safe for concurrent use.
type NameSet struct {
	names []string
	folds []string // Fold of each name
	// byFirst lists, for each ASCII rune, the indexes of the names whose
	// folds start with it, in order; other the rest.
	byFirst [utf8.RuneSelf][]int8
	other   []int8
}

// NewNameSet returns the NameSet of names: at most 127 of them, none folding to
// nothing. It panics otherwise, since the names are the caller's
// constants.
func NewNameSet(names ...string) *NameSet {
	if len(names) > 127 {
		panic("BUG: jsonread: NewNameSet: more than 127 names")
	}
	s := &NameSet{names: names, folds: make([]string, len(names))}
	for i, n := range names {
		f := Fold(n)
		switch {
		case f == "":
			panic("BUG: jsonread: NewNameSet: the name " + n + " folds to nothing")
		case f[0] < utf8.RuneSelf:
			s.byFirst[f[0]] = append(s.byFirst[f[0]], int8(i))
		default:
			s.other = append(s.other, int8(i))
		}
		s.folds[i] = f
	}
	return s
}

// Match returns the index of the first name of s that name folds equal
// to, or -1 if there is none. It does not allocate, and compares name
// only with the names whose folds start as its own does.
func (s *NameSet) Match(name []byte) int {
	r, i := next(name, 0)
	var cands []int8
	switch {
	case r < 0:
		return -1
	case r < utf8.RuneSelf:
		cands = s.byFirst[r]
	default:
		cands = s.other
	}
	for _, k := range cands {
		f := s.folds[k]
		if fr, n := utf8.DecodeRuneInString(f); fr == r && foldsTo(name, i, f[n:]) {
			return int(k)
		}
	}
	return -1
}

// foldsTo reports whether name[i:] folds to f, a folded form. It is next
// and a comparison in one loop, with ASCII bytes read inline.
func foldsTo(name []byte, i int, f string) bool {
	j := 0
	for i < len(name) {
		c := name[i]
		if c >= utf8.RuneSelf {
			var r rune
			r, i = next(name, i)
			fr, n := utf8.DecodeRuneInString(f[j:])
			if j == len(f) || r != fr {
				return false
			}
			j += n
			continue
		}
		i++
		c, ok := foldASCII(c)
		if !ok {
			continue
		}
		if j == len(f) || f[j] != c {
			return false
		}
		j++
	}
	return j == len(f)
}

// foldASCII returns the folded form of the ASCII byte c (a letter in upper
// case), or false for '_' and '-', which fold to nothing.
func foldASCII(c byte) (byte, bool) {
	switch {
	case c == '_' || c == '-':
		return 0, false
	case 'a' <= c && c <= 'z':
		return c - ('a' - 'A'), true
	}
	return c, true
}

// Has reports whether name is one of the names of s, as it is written.
// With Match, it tells a name a reader binds from a spelling of one that
// a case-insensitive decoder takes for it: Match(name) >= 0 && !Has(name).
func (s *NameSet) Has(name []byte) bool {
	for _, n := range s.names {
		if n == string(name) {
			return true
		}
	}
	return false
}

// EqualFoldASCII reports whether s equals name, a lowercase ASCII word,
// when ASCII letters are compared without case; it folds nothing else (no
// ſ for s, no Kelvin sign for k), as strings.EqualFold would.
func EqualFoldASCII(s, name string) bool {
	if len(s) != len(name) {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != name[i] {
			return false
		}
	}
	return true
}
