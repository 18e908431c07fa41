package bench

// NOTE: how the corpus is built.
//
// Every input is generated, not committed: a seeded math/rand/v2 PCG stream
// per input (seed -corpus.seed, stream = the input's index) drives a small
// JSON tree generator and a writer that chooses member order, escapes and
// whitespace. The same seed always gives the same bytes, and the seed is
// logged, so a benchmark figure or a failure can be reproduced exactly.
// Generation and writing draw from separate streams, so changing how a
// document is written does not change what it says.

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/bbdigest/bbdigest/internal/demo"
)

var (
	corpusSeed = flag.Uint64("corpus.seed", 0x6262646967657374, "seed of the generated benchmark corpus")
	corpusDir  = flag.String("corpus.dir", "", "TestWriteCorpus writes the corpus to `dir`, one NAME.json per input")
)

// TestWriteCorpus writes the benchmark inputs to files in -corpus.dir, for
// the report's programs in other languages (bench/report), and does nothing
// without that flag.
func TestWriteCorpus(t *testing.T) {
	if *corpusDir == "" {
		t.Skip("no -corpus.dir")
	}
	for _, in := range corpus() {
		if err := os.WriteFile(filepath.Join(*corpusDir, in.name+".json"), in.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Input names, used in benchmark names (input=<name>). Never rename one
// casually: benchstat compares runs by name.
const (
	inEnvelopePretty    = "envelope-pretty"
	inEnvelopeCanonical = "envelope-canonical"
	inMixed             = "mixed-1M"
	inCanonical         = "canonical-1M"
	inDoubles           = "doubles-100k"
	inStrict            = "strict-1M"
	inCanonicalInts     = "canonical-ints"
	inEnvelopes         = "canonical-envelopes-1M"
)

const mib = 1 << 20

// input is one benchmark document.
type input struct {
	name      string
	data      []byte
	strict    bool // valid under canon.Strict as well as canon.RFC8785
	canonical bool // already in RFC 8785 canonical form
}

// corpus returns the benchmark inputs, generated once per process.
var corpus = sync.OnceValue(func() []input {
	envPretty := writeDoc(envelopeExample(), newRand(0), writeOptions{indent: "  ", shuffle: true})
	pretty := writeOptions{indent: "  ", shuffle: true, escapes: true, noise: true}
	mixed := sizedDoc(newRand(2), false, mib, func(doc *node) []byte {
		return writeDoc(doc, newRand(3), pretty)
	})
	// The canonical input is produced by a peer (jsontext), so that
	// bbdigest's own output is not what it is measured against.
	canonical := sizedDoc(newRand(4), false, mib, func(doc *node) []byte {
		return peerCanonical(writeDoc(doc, newRand(5), writeOptions{shuffle: true, escapes: true}))
	})
	strict := sizedDoc(newRand(6), true, mib, func(doc *node) []byte {
		return writeDoc(doc, newRand(7), writeOptions{indent: "\t", shuffle: true, escapes: true, noise: true})
	})

	return []input{
		{name: inEnvelopePretty, data: envPretty, strict: true},
		{name: inEnvelopeCanonical, data: peerCanonical(envPretty), strict: true, canonical: true},
		{name: inMixed, data: mixed},
		{name: inCanonical, data: canonical, canonical: true},
		{name: inDoubles, data: doublesDoc(newRand(8), 100_000)},
		{name: inStrict, data: strict, strict: true},
		// The strict records in canonical form (0.62 MiB): strings and integers only.
		{name: inCanonicalInts, data: peerCanonical(strict), strict: true, canonical: true},
		// An archive of stored envelopes: the §6.4 shape with varied text
		// and digests, canonical, in one array (the audit workload).
		{name: inEnvelopes, data: peerCanonical(envelopesDoc(newRand(9), mib)), strict: true, canonical: true},
	}
})

// peerCanonical returns the canonical form of src as jsontext writes it, so
// that the canonical inputs do not come from the library being measured.
func peerCanonical(src []byte) []byte {
	v := jsontext.Value(bytes.Clone(src)) // Canonicalize works in place
	if err := v.Canonicalize(); err != nil {
		panic(fmt.Sprintf("BUG: bench: jsontext rejects a generated input: %v", err))
	}
	return v
}

func newRand(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(*corpusSeed, stream)) }

// kind is the type of a generated JSON value.
type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// node is a generated JSON value. Object members are kept in generation
// order; the writer decides the order they are written in.
type node struct {
	kind  kind
	text  string   // kBool, kNumber: the literal; kString: the decoded string
	names []string // kObject: member names, parallel to kids
	kids  []*node  // kArray elements, kObject member values
}

func str(s string) *node      { return &node{kind: kString, text: s} }
func num(lit string) *node    { return &node{kind: kNumber, text: lit} }
func boolean(b bool) *node    { return &node{kind: kBool, text: strconv.FormatBool(b)} }
func arr(kids ...*node) *node { return &node{kind: kArray, kids: kids} }

// obj builds an object from name, value pairs.
func obj(pairs ...any) *node {
	n := &node{kind: kObject}
	for i := 0; i < len(pairs); i += 2 {
		n.names = append(n.names, pairs[i].(string))
		n.kids = append(n.kids, pairs[i+1].(*node))
	}
	return n
}

// envelopeActions returns the two actions of the envelope draft's §6.4, as
// the demo embeds them (demo.DraftAction1 and DraftAction2).
func envelopeActions() [2]*node {
	return [2]*node{decodeNode(demo.DraftAction1()), decodeNode(demo.DraftAction2())}
}

// envelopeExample returns the binding_moment value of the envelope draft's
// §6.4, with the digests written out in full, as the demo embeds it
// (demo.DraftEnvelope).
func envelopeExample() *node { return decodeNode(demo.DraftEnvelope()) }

// decodeNode reads the JSON document src into a new tree, its members in the
// order src writes them, for the writer to write again in other forms.
func decodeNode(src []byte) *node {
	dec := jsontext.NewDecoder(bytes.NewReader(src))
	n, err := readNode(dec)
	if err == nil {
		_, err = dec.ReadToken()
		if err == io.EOF {
			return n
		}
		err = fmt.Errorf("more than one value (%v)", err)
	}
	panic(fmt.Sprintf("BUG: bench: jsontext cannot read a demo document: %v", err))
}

func readNode(dec *jsontext.Decoder) (*node, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return &node{kind: kNull}, nil
	case 'f', 't':
		return boolean(tok.Bool()), nil
	case '0':
		return num(tok.String()), nil // the literal as written
	case '"':
		return str(tok.String()), nil
	case '[':
		n := arr()
		for dec.PeekKind() != ']' {
			kid, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		_, err := dec.ReadToken()
		return n, err
	case '{':
		n := &node{kind: kObject}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			n.names = append(n.names, name.String()) // before the token is voided
			kid, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		_, err := dec.ReadToken()
		return n, err
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// prose is the vocabulary of envelopesDoc: English, with the odd
// non-ASCII word as real text has.
var prose = []string{
	"the", "booking", "service", "asks", "for", "dates", "and", "passport", "number",
	"share", "withhold", "until", "check-in", "reservation", "hold", "release", "travel",
	"is", "only", "needed", "at", "a", "second", "request", "avoids", "keeps", "private",
	"what", "should", "be", "shared", "with", "agent", "tool", "result", "approve", "deny",
	"café", "Zürich", "naïve", "€", "—",
}

// sentence returns n words of prose, capitalised, with a full stop.
func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		w := prose[r.IntN(len(prose))]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	return b.String()
}

// envelopesDoc returns a JSON array of envelopes in the §6.4 shape, with
// random text, options and action digests, at least size bytes long.
func envelopesDoc(r *rand.Rand, size int) []byte {
	var envs []*node
	total := 0
	for total < size {
		env := randomEnvelope(r)
		envs = append(envs, env)
		total += len(writeDoc(env, r, writeOptions{}))
	}
	return writeDoc(arr(envs...), r, writeOptions{})
}

// randomEnvelope returns an envelope in the §6.4 shape with random text,
// options and action digests: 1-2 KB when written compactly.
func randomEnvelope(r *rand.Rand) *node {
	hex := func() string {
		const digits = "0123456789abcdef"
		b := []byte("sha256:")
		for range 64 {
			b = append(b, digits[r.IntN(16)])
		}
		return string(b)
	}
	sentences := func(lo, hi, words int) *node {
		a := arr()
		for range lo + r.IntN(hi-lo+1) {
			a.kids = append(a.kids, str(sentence(r, words+r.IntN(words))))
		}
		return a
	}
	options := arr()
	nopt := 2 + r.IntN(2)
	for range nopt {
		options.kids = append(options.kids, obj(
			"label", str(sentence(r, 3+r.IntN(3))),
			"reasoning", str(sentence(r, 6+r.IntN(8))),
			"action_digest", str(hex()),
		))
	}
	return obj(
		"synopsis", str(sentence(r, 8+r.IntN(8))),
		"findings", sentences(1, 4, 6),
		"recommendations", sentences(1, 3, 5),
		"offer", str(sentence(r, 5+r.IntN(4))),
		"question", obj(
			"stem", str(sentence(r, 6+r.IntN(6))),
			"options", options,
			"recommended_idx", num(strconv.Itoa(r.IntN(nopt))),
			"hatches", obj("free_text", boolean(r.IntN(2) == 0), "dialogue", boolean(r.IntN(2) == 0)),
		),
	)
}

// sizedDoc generates a document of nested records and returns the shortest
// one whose rendering by write is at least size bytes long. The records carry
// non-ASCII text (CJK, emoji, accents), characters that need escaping,
// integers and (unless intsOnly) floats in varied spellings. With intsOnly
// every number is an integer literal within ±(2^53-1), so the document is
// valid under the strict profile.
func sizedDoc(r *rand.Rand, intsOnly bool, size int, write func(*node) []byte) []byte {
	g := gen{r: r, intsOnly: intsOnly}
	doc := func(records []*node) *node {
		return obj(
			"version", num("3"),
			"generator", str("bbdigest bench corpus"),
			"records", arr(records...),
			"count", num(strconv.Itoa(len(records))),
		)
	}
	var records []*node
	out := write(doc(records))
	for len(out) < size {
		for range len(records) + 1 {
			records = append(records, g.record(0))
		}
		out = write(doc(records))
	}
	// Find the shortest prefix of records that is still large enough.
	lo, hi := len(records)/2, len(records) // write(doc(records[:hi])) is large enough
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if b := write(doc(records[:mid])); len(b) >= size {
			hi, out = mid, b
		} else {
			lo = mid
		}
	}
	return out
}

type gen struct {
	r        *rand.Rand
	intsOnly bool
}

var (
	words = []string{
		"alpha", "bravo", "charlie", "delta", "echo", "booking", "travel", "dates",
		"passport", "review", "approve", "deny", "context", "summary", "digest",
		"café", "naïve", "Zürich", "São Paulo", "Ålesund", "façade", "jalapeño",
		"東京", "日本語", "中文", "한국어", "北京市", "データ", "検証",
		"😀", "🎉", "👍🏽", "🇳🇴", "𝄞", "€", "∑", "Ω", "דּ", "\u2028", "\ufeff",
	}
	specials  = []string{"\n", "\t", "\"", "\\", "/", "\r", "\u0001", "\u001f", "\b", "\f", "\u007f"}
	extraKeys = []string{"€uro", "ключ", "キー", "\U0001F600", "\ufb33", "a\nb", "z", "A", "_", "a/b", "quote\"d"}
)

// text returns a random string of n words, sometimes with special characters.
func (g *gen) text(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[g.r.IntN(len(words))])
		if g.r.IntN(6) == 0 {
			b.WriteString(specials[g.r.IntN(len(specials))])
		}
	}
	return b.String()
}

// integer returns a random integer literal within ±(2^53-1).
func (g *gen) integer() *node {
	var v int64
	switch g.r.IntN(8) {
	case 0:
		v = g.r.Int64N(1<<53) * int64(1-2*g.r.IntN(2)) // up to 16 digits
	case 1, 2:
		v = -g.r.Int64N(1_000_000)
	default:
		v = g.r.Int64N(100_000)
	}
	return num(strconv.FormatInt(v, 10))
}

// float returns a random finite number literal in one of many spellings,
// most of them not canonical.
func (g *gen) float() *node {
	if g.intsOnly {
		return g.integer()
	}
	f := g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(16)-8))
	switch g.r.IntN(8) {
	case 0:
		return num(strconv.FormatFloat(f, 'e', g.r.IntN(8), 64))
	case 1:
		return num(strings.ToUpper(strconv.FormatFloat(f, 'e', -1, 64)))
	case 2:
		return num(strconv.FormatFloat(f, 'f', 2, 64) + "0") // trailing zero
	case 3:
		return num(strconv.FormatUint(g.r.Uint64(), 10)) // beyond 2^53
	case 4:
		return num(strconv.Itoa(g.r.IntN(1000)) + ".0")
	}
	return num(strconv.FormatFloat(f, 'g', -1, 64))
}

func (g *gen) record(depth int) *node {
	n := &node{kind: kObject}
	add := func(name string, v *node) {
		n.names = append(n.names, name)
		n.kids = append(n.kids, v)
	}
	add("id", g.integer())
	add("name", str(g.text(1+g.r.IntN(3))))
	add("email", str(fmt.Sprintf("user%d@example.%s", g.r.IntN(1e6), []string{"com", "org", "jp"}[g.r.IntN(3)])))
	add("active", boolean(g.r.IntN(2) == 0))
	add("score", g.float())
	tags := arr()
	for range g.r.IntN(5) {
		tags.kids = append(tags.kids, str(g.text(1)))
	}
	add("tags", tags)
	add("location", obj("lat", g.float(), "lon", g.float(), "city", str(g.text(1))))
	add("notes", str(g.text(4+g.r.IntN(12))))
	if g.r.IntN(3) == 0 {
		add("meta", &node{kind: kNull})
	} else {
		meta := obj()
		for _, k := range g.r.Perm(len(extraKeys))[:1+g.r.IntN(4)] {
			meta.names = append(meta.names, extraKeys[k])
			meta.kids = append(meta.kids, str(g.text(1)))
		}
		add("meta", meta)
	}
	hist := arr()
	for range g.r.IntN(6) {
		hist.kids = append(hist.kids, g.float())
	}
	add("history", hist)
	if depth < 3 && g.r.IntN(3) == 0 {
		kids := arr()
		for range 1 + g.r.IntN(3) {
			kids.kids = append(kids.kids, g.record(depth+1))
		}
		add("children", kids)
	}
	return n
}

// doublesDoc returns a JSON array of n doubles with random bit patterns
// (finite ones only), each written by strconv 'g' with the shortest
// precision that parses back exactly.
func doublesDoc(r *rand.Rand, n int) []byte {
	b := make([]byte, 0, n*24)
	b = append(b, '[')
	for i := 0; i < n; {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, f, 'g', -1, 64)
		i++
	}
	return append(b, ']')
}

// writeOptions selects how writeDoc spells a document.
type writeOptions struct {
	indent  string // indentation per level; "" writes compactly
	shuffle bool   // write object members in random order
	escapes bool   // in some strings, spell some characters as escapes: \u00e9, \/, surrogate pairs
	noise   bool   // add random insignificant whitespace between tokens
	spaced  bool   // without indent: a space after each ',' and ':', on one line
}

// writeDoc writes n as JSON text.
func writeDoc(n *node, r *rand.Rand, o writeOptions) []byte {
	w := writer{r: r, o: o}
	w.value(n, 0)
	if o.indent != "" {
		w.b = append(w.b, '\n')
	}
	return w.b
}

type writer struct {
	r *rand.Rand
	o writeOptions
	b []byte
}

func (w *writer) newline(depth int) {
	if w.o.indent == "" {
		return
	}
	w.b = append(w.b, '\n')
	for range depth {
		w.b = append(w.b, w.o.indent...)
	}
}

// comma writes the ',' between two elements or members.
func (w *writer) comma() {
	w.b = append(w.b, ',')
	if w.o.spaced && w.o.indent == "" {
		w.b = append(w.b, ' ')
	}
}

func (w *writer) space() {
	if w.o.noise && w.r.IntN(16) == 0 {
		w.b = append(w.b, " \t\r\n"[w.r.IntN(4)])
	}
}

func (w *writer) value(n *node, depth int) {
	switch n.kind {
	case kNull:
		w.b = append(w.b, "null"...)
	case kBool, kNumber:
		w.b = append(w.b, n.text...)
	case kString:
		w.str(n.text)
	case kArray:
		w.b = append(w.b, '[')
		for i, k := range n.kids {
			if i > 0 {
				w.comma()
			}
			w.newline(depth + 1)
			w.space()
			w.value(k, depth+1)
			w.space()
		}
		if len(n.kids) > 0 {
			w.newline(depth)
		}
		w.b = append(w.b, ']')
	case kObject:
		w.b = append(w.b, '{')
		order := make([]int, len(n.kids))
		for i := range order {
			order[i] = i
		}
		if w.o.shuffle {
			w.r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		for i, k := range order {
			if i > 0 {
				w.comma()
			}
			w.newline(depth + 1)
			w.space()
			w.str(n.names[k])
			w.space()
			w.b = append(w.b, ':')
			if w.o.indent != "" || w.o.spaced {
				w.b = append(w.b, ' ')
			}
			w.value(n.kids[k], depth+1)
			w.space()
		}
		if len(n.kids) > 0 {
			w.newline(depth)
		}
		w.b = append(w.b, '}')
	}
}

// str writes s as a JSON string. Characters that must be escaped are; with
// o.escapes, in one string in eight a quarter of the others are escaped too,
// in every valid spelling.
func (w *writer) str(s string) {
	const hexLower, hexUpper = "0123456789abcdef", "0123456789ABCDEF"
	u4 := func(v rune) {
		hex := hexLower
		if w.r.IntN(2) == 0 {
			hex = hexUpper
		}
		w.b = append(w.b, '\\', 'u', hex[v>>12&0xF], hex[v>>8&0xF], hex[v>>4&0xF], hex[v&0xF])
	}
	w.b = append(w.b, '"')
	escapes := w.o.escapes && w.r.IntN(8) == 0 // one string in eight
	for _, c := range s {
		esc := escapes && w.r.IntN(4) == 0
		switch {
		case c == '"' || c == '\\':
			w.b = append(w.b, '\\', byte(c))
		case c < 0x20:
			short := map[rune]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}[c]
			if short != 0 && !esc {
				w.b = append(w.b, '\\', short)
			} else {
				u4(c)
			}
		case !esc:
			w.b = utf8.AppendRune(w.b, c)
		case c == '/':
			w.b = append(w.b, '\\', '/')
		case c >= 0x10000:
			c -= 0x10000
			u4(0xD800 + c>>10)
			u4(0xDC00 + c&0x3FF)
		default:
			u4(c)
		}
	}
	w.b = append(w.b, '"')
}
