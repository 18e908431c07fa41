package batch

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file generates the inputs of the tests and benchmarks: records of
// the shape of the envelope draft's §6.4 example
// (cmd/bbdigest/testdata/demo/envelope-draft-6.4.json), with varied text,
// accents and lengths, written canonical, compact with shuffled members, or
// pretty; and streams of them that are generated as they are read.

// member is one member of a generated object; value is a string, an int, a
// bool, a []any or an object.
type member struct {
	name  string
	value any
}

type object []member

var words = []string{
	"share", "the", "travel", "dates", "and", "withhold", "passport", "number",
	"booking", "service", "asks", "for", "reservation", "check-in", "release",
	"café", "naïve", "Zürich", "résumé", "São", "Paulo", "Kraków", "Ærøskøbing",
	"façade", "jalapeño", "Straße", "Øresund", "crème", "brûlée", "İstanbul",
	"東京", "dünya", "ελληνικά", "Привет", "🙂", "tab\there", "quote\"d", `back\slash`,
}

// text returns a sentence of n words.
func text(rng *rand.Rand, n int) string {
	var b []byte
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, words[rng.IntN(len(words))]...)
	}
	return string(b) + "."
}

// digestText returns a "sha256:" digest string of 64 random hex digits.
func digestText(rng *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := []byte("sha256:")
	for range 64 {
		b = append(b, hex[rng.IntN(16)])
	}
	return string(b)
}

// envelope returns a binding-moment envelope of random content, about
// 1-2 KB when written compact.
func envelope(rng *rand.Rand) object {
	list := func(n, words int) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = text(rng, words+rng.IntN(words))
		}
		return l
	}
	options := make([]any, 2+rng.IntN(3))
	for i := range options {
		options[i] = object{
			{"label", text(rng, 3+rng.IntN(4))},
			{"reasoning", text(rng, 6+rng.IntN(10))},
			{"action_digest", digestText(rng)},
		}
	}
	return object{
		{"synopsis", text(rng, 6+rng.IntN(8))},
		{"findings", list(2+rng.IntN(3), 6)},
		{"recommendations", list(1+rng.IntN(3), 5)},
		{"offer", text(rng, 4+rng.IntN(4))},
		{"question", object{
			{"stem", text(rng, 5+rng.IntN(6))},
			{"options", options},
			{"recommended_idx", rng.IntN(len(options))},
			{"hatches", object{{"free_text", rng.IntN(2) == 0}, {"dialogue", rng.IntN(2) == 0}}},
		}},
	}
}

// style is how a generated value is written.
type style struct {
	shuffle bool // object members in random order
	space   bool // a space after ':' and ','
	indent  bool // newlines and indentation (not for JSON Lines)
	escape  bool // non-ASCII characters as \u escapes
}

// appendJSON appends v written in style st.
func appendJSON(b []byte, v any, st style, rng *rand.Rand, depth int) []byte {
	nl := func(b []byte, depth int) []byte {
		if !st.indent {
			return b
		}
		b = append(b, '\n')
		for range depth {
			b = append(b, "  "...)
		}
		return b
	}
	sep := func(b []byte, c byte) []byte {
		b = append(b, c)
		if st.space && (c == ':' || !st.indent) {
			b = append(b, ' ')
		}
		return b
	}
	switch v := v.(type) {
	case string:
		return appendString(b, v, st.escape)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case bool:
		return strconv.AppendBool(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = sep(b, ',')
			}
			b = nl(b, depth+1)
			b = appendJSON(b, e, st, rng, depth+1)
		}
		if len(v) > 0 {
			b = nl(b, depth)
		}
		return append(b, ']')
	case object:
		order := make([]int, len(v))
		for i := range order {
			order[i] = i
		}
		if st.shuffle {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		b = append(b, '{')
		for i, k := range order {
			if i > 0 {
				b = sep(b, ',')
			}
			b = nl(b, depth+1)
			b = appendString(b, v[k].name, st.escape)
			b = sep(b, ':')
			b = appendJSON(b, v[k].value, st, rng, depth+1)
		}
		if len(v) > 0 {
			b = nl(b, depth)
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("BUG: appendJSON: %T", v))
}

// appendString appends s as a JSON string; with escape, every character
// that is not printable ASCII is written as a \u escape.
func appendString(b []byte, s string, escape bool) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20 || (escape && r >= 0x7f):
			if r >= 0x10000 {
				hi, lo := utf16.EncodeRune(r)
				b = fmt.Appendf(b, `\u%04x\u%04x`, hi, lo)
			} else {
				b = fmt.Appendf(b, `\u%04x`, r)
			}
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// genRecord returns a record of a generated archive: an envelope
// written canonical (from canonical, the canonical form of an envelope),
// compact with its members shuffled, or with spaces (and, when multiline,
// indented), one in three each.
func genRecord(rng *rand.Rand, multiline bool) []byte {
	env := envelope(rng)
	switch rng.IntN(3) {
	case 0: // sorted members, no whitespace: canonical unless escapes
		return appendJSON(nil, sortObject(env), style{}, rng, 0)
	case 1:
		return appendJSON(nil, env, style{shuffle: true, escape: rng.IntN(4) == 0}, rng, 0)
	default:
		return appendJSON(nil, env, style{shuffle: true, space: true, indent: multiline}, rng, 0)
	}
}

// sortObject returns v with the members of every object in canonical
// order (the names are ASCII, so byte order is UTF-16 order).
func sortObject(v any) any {
	switch v := v.(type) {
	case object:
		o := make(object, len(v))
		copy(o, v)
		for i := range o {
			o[i].value = sortObject(o[i].value)
		}
		for i := 1; i < len(o); i++ {
			for j := i; j > 0 && o[j].name < o[j-1].name; j-- {
				o[j], o[j-1] = o[j-1], o[j]
			}
		}
		return o
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = sortObject(e)
		}
		return l
	}
	return v
}

// archive returns n generated records as JSON Lines, and the records.
func archive(seed uint64, n int) ([]byte, [][]byte) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = genRecord(rng, false)
		b.Write(recs[i])
		b.WriteByte('\n')
	}
	return b.Bytes(), recs
}

// genReader is an endless (or, with limit, bounded) stream of lines that
// cycles through pool, generated as it is read: line i is
// pool[i%len(pool)].
type genReader struct {
	pool  [][]byte // each with its "\n"
	i     int      // index of the next line in pool
	cur   []byte   // the rest of the current line
	limit int64    // bytes still to give; < 0: no limit
}

func newGenReader(pool [][]byte, limit int64) *genReader {
	return &genReader{pool: pool, limit: limit}
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.limit == 0 {
		return 0, io.EOF
	}
	if g.limit > 0 && int64(len(p)) > g.limit {
		p = p[:g.limit]
	}
	n := 0
	for n < len(p) {
		if len(g.cur) == 0 {
			g.cur = g.pool[g.i%len(g.pool)]
			g.i++
		}
		k := copy(p[n:], g.cur)
		g.cur = g.cur[k:]
		n += k
	}
	if g.limit > 0 {
		g.limit -= int64(n)
	}
	return n, nil
}

// shortReader returns 1 to 7 bytes per Read.
type shortReader struct {
	r   io.Reader
	rng *rand.Rand
}

func (s *shortReader) Read(p []byte) (int, error) {
	return s.r.Read(p[:min(len(p), 1+s.rng.IntN(7))])
}

// spaces is an endless reader of spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
