// Package jsonnametest holds the test helpers that hold the fold of member
// names of package jsonread (and its users, such as act) to the real
// decoders: the spellings of a member name that a Go decoder may take for
// it, and encoding/json's own answer to whether it does. The fuzz module
// uses it too, to ask go-json-experiment/json the same questions. It
// imports only the standard library.
package jsonnametest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Names are member names to test the fold with: every name act reads (of
// a call, its wrapper, a message and its items), and names beside them
// that act does not read, with and without '_' and '-'.
var Names = []string{
	"name", "arguments", "input", "args", "type", "function", "params", "Params", "method", "jsonrpc",
	"choices", "tool_calls", "function_call", "content", "output", "role", "object", "message",
	"id", "call_id", "_meta", "status", "x-request-id", "Session", "Extra", "kind",
}

// lookAlikes are runes that look like an ASCII letter but are not in its
// case-fold orbit (dotless ı and dotted İ beside i, ś beside s, ĸ and κ
// beside k, Cyrillic а, е, о, р, с beside a, e, o, p, c), and the two that
// are (ſ beside s, the Kelvin sign K beside k).
var lookAlikes = map[byte][]rune{
	'i': {'ı', 'İ'},
	's': {'ſ', 'ś'},
	'k': {'K', 'ĸ', 'κ'},
	'a': {'а'},
	'e': {'е'},
	'o': {'о'},
	'p': {'р'},
	'c': {'с'},
}

// Variants returns spellings of name that a decoder ignoring case may or
// may not take for it, name itself included, sorted: every combination of
// the case of its letters (for names of up to 10 letters; else each letter
// flipped alone, all upper and all lower); each s, S, k and K written as ſ
// or the Kelvin sign, alone and all at once, as written and in upper case;
// '_' and '-' inserted at every position and at both ends, the name's own
// '_' and '-' removed, doubled or swapped; and near misses: a letter
// dropped, doubled or written as a look-alike outside its fold orbit
// (ı İ ś ĸ κ and Cyrillic letters).
func Variants(name string) []string {
	set := map[string]bool{name: true}
	add := func(s string) { set[s] = true }
	b := []byte(name)
	var letters []int
	for i, c := range b {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			letters = append(letters, i)
		}
	}
	flip := func(c byte) byte { return c ^ 0x20 }
	if len(letters) <= 10 {
		for m := range 1 << len(letters) {
			v := slices.Clone(b)
			for k, i := range letters {
				if m>>k&1 == 1 {
					v[i] = flip(v[i])
				}
			}
			add(string(v))
		}
	} else {
		for _, i := range letters {
			v := slices.Clone(b)
			v[i] = flip(v[i])
			add(string(v))
		}
		add(strings.ToUpper(name))
		add(strings.ToLower(name))
	}
	for _, base := range []string{name, strings.ToUpper(name)} {
		all := []rune(base)
		changed := false
		for i, r := range []rune(base) {
			if r >= utf8.RuneSelf {
				continue
			}
			for _, la := range lookAlikes[byte(unicode.ToLower(r))] {
				v := []rune(base)
				v[i] = la
				add(string(v))
				if la == 'ſ' || la == 'K' {
					all[i], changed = la, true
				}
			}
		}
		if changed {
			add(string(all))
		}
		for i := 0; i <= len(base); i++ {
			for _, d := range []string{"_", "-", "__", "_-"} {
				add(base[:i] + d + base[i:])
			}
		}
		for i := 0; i < len(base); i++ {
			c := base[i]
			if c == '_' || c == '-' {
				add(base[:i] + base[i+1:])
				add(base[:i] + string(c) + base[i:])
				add(base[:i] + string(c^'_'^'-') + base[i+1:])
			}
		}
	}
	for i := range len(b) {
		add(name[:i] + name[i+1:])
		add(name[:i] + name[i:i+1] + name[i:])
	}
	delete(set, "")
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Quote returns s as a JSON string literal. With escape set, every rune
// is written as a \u escape (a pair of them above U+FFFF), as a decoder
// must read it after decoding the escapes; otherwise as strconv would,
// with no escape for a rune outside ASCII.
func Quote(s string, escape bool) string {
	if !escape {
		b, err := json.Marshal(s)
		if err != nil {
			panic("BUG: jsonnametest: " + err.Error())
		}
		return string(b)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			b.WriteString(`\u` + hex4(r1) + `\u` + hex4(r2))
			continue
		}
		b.WriteString(`\u` + hex4(r))
	}
	b.WriteByte('"')
	return b.String()
}

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}

var structs sync.Map // field name -> reflect.Type

// Struct returns a struct type with one int field whose JSON name is
// field (its json tag): what a host's decoder fills from a member.
func Struct(field string) reflect.Type {
	if t, ok := structs.Load(field); ok {
		return t.(reflect.Type)
	}
	t := reflect.StructOf([]reflect.StructField{{
		Name: "F",
		Type: reflect.TypeFor[int](),
		Tag:  reflect.StructTag(`json:` + strconv.Quote(field)),
	}})
	structs.Store(field, t)
	return t
}

// MatchV1 reports whether encoding/json's Unmarshal stores the member
// whose name is the JSON string literal quoted into a struct field called
// field: whether it takes that member for the field.
func MatchV1(field, quoted string) bool {
	v := reflect.New(Struct(field))
	if err := json.Unmarshal([]byte(`{`+quoted+`:1}`), v.Interface()); err != nil {
		panic("BUG: jsonnametest: " + err.Error())
	}
	return v.Elem().Field(0).Int() == 1
}

// StripDelimiters returns s without its '_' and '-'.
func StripDelimiters(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return r
	}, s)
}
