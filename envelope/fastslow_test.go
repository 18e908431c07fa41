package envelope

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// The fast path (decodeFast) must accept exactly what decode accepts and
// give the same Envelope, and anything else must reach decode: the tests
// below run whole parses twice, once as ParseInto runs them and once with
// the fast path turned off (Parser.slowOnly), and require the same
// result, digest and placement, or the same error.

// spliceTokens are what the mutations below put into an envelope's
// canonical text: JSON's structural bytes, escapes, the scalars the
// grammar has and those it has not, numbers past int32 and 2^53, members
// the grammar does not define, and whole options.
var spliceTokens = func() []string {
	option := `{"action_digest":"` + demo.DraftAction1Digest + `","label":"L \"q\"","reasoning":"R"}`
	return []string{
		"", `"`, `\"`, `\\`, `\u0000`, `\n`, `é`, `,`, `:`, `{`, `}`, `[`, `]`, `{}`, `[]`, `""`, `"a"`,
		`0`, `1`, `3`, `4`, `-1`, `10`, `4294967297`, `9007199254740991`, `true`, `false`, `null`,
		`,"x":1`, `,"meta":{}`, `"meta":{},`, `,"zzz":"z"`, `"a":1,`, option, `,` + option, option + `,`,
		`"sha256:`, `0123456789abcdef`, `A`, `"binding_moment":`, `,"result":{}`,
	}
}()

// splice returns src with cut bytes at at replaced by tok.
func splice(src []byte, at, cut int, tok string) []byte {
	at = min(at, len(src))
	end := min(at+cut, len(src))
	out := make([]byte, 0, len(src)+len(tok))
	out = append(out, src[:at]...)
	out = append(out, tok...)
	return append(out, src[end:]...)
}

// fastSlowBase is what ParseInto into a reused Envelope starts from in
// checkFastSlow: an envelope with meta, four options and escaped strings,
// so that a fast path that gave up half way leaves slices and strings
// behind for decode to overwrite.
var fastSlowBase = []byte(`{"findings":["f1","f \"2\"","f3","f4","f5"],"meta":{"calibration_note":"c","decision_class":"d"},` +
	`"offer":"o","question":{"hatches":{"dialogue":false,"free_text":true},"options":[` +
	strings.Repeat(`{"action_digest":"`+demo.DraftAction2Digest+`","label":"l\\","reasoning":"r"},`, 3) +
	`{"action_digest":"` + demo.DraftAction2Digest + `","label":"l","reasoning":"r"}],"recommended_idx":3,"stem":"s"},` +
	`"recommendations":["r1","r2","r3","r4","r5"],"synopsis":"syn"}`)

// checkFastSlow parses src with and without the fast path, with Parse
// and with ParseInto into an Envelope that held fastSlowBase, and fails
// unless each pair agrees: both errors equal (reflect.DeepEqual: class,
// offset, pointer, problems), or both Envelopes equal with the same
// placement. It reports whether src was accepted.
func checkFastSlow(t testing.TB, src []byte) bool {
	t.Helper()
	var fp, sp Parser
	sp.slowOnly = true
	ef, errf := fp.Parse(src)
	es, errs := sp.Parse(src)
	if !reflect.DeepEqual(errf, errs) {
		t.Fatalf("Parse(%q): fast path error %v, decode's %v", src, errf, errs)
	}
	if errf == nil && (!reflect.DeepEqual(*ef, *es) || fp.Placement() != sp.Placement()) {
		t.Fatalf("Parse(%q): fast path\n%+v (%v)\ndecode\n%+v (%v)", src, *ef, fp.Placement(), *es, sp.Placement())
	}

	var reused, fresh Envelope
	if err := fp.ParseInto(&reused, fastSlowBase); err != nil {
		t.Fatalf("fastSlowBase: %v", err)
	}
	errf = fp.ParseInto(&reused, src)
	errs = sp.ParseInto(&fresh, src)
	if !reflect.DeepEqual(errf, errs) {
		t.Fatalf("ParseInto(%q): fast path error %v, decode's %v", src, errf, errs)
	}
	if errf == nil && (!reflect.DeepEqual(reused, fresh) || fp.Placement() != sp.Placement()) {
		t.Fatalf("ParseInto(%q) into a used Envelope: fast path\n%+v (%v)\ndecode\n%+v (%v)", src, reused, fp.Placement(), fresh, sp.Placement())
	}
	// Again, the text unchanged: the escaped strings unquoted before are
	// taken from the Parser (Parser.unq).
	var again Envelope
	if err := fp.ParseInto(&again, src); !reflect.DeepEqual(err, errs) || (err == nil && !reflect.DeepEqual(again, fresh)) {
		t.Fatalf("ParseInto(%q) a second time: %v\n%+v\ndecode\n%+v", src, err, again, fresh)
	}
	if errf == nil {
		checkOwnsMemory(t, src)
	}
	return errf == nil
}

// checkOwnsMemory parses a copy of src (an envelope that parses) with
// Parse and with ParseInto, clears the copy, and has the same Parsers
// parse other inputs (which write their canonicalizers' buffers); the
// Envelopes must not change: no string of theirs is a view of the input
// or of a Parser's memory (settle, textFor, newOwned), and ParseInto into
// a copy of one leaves it as it was.
func checkOwnsMemory(t testing.TB, src []byte) {
	t.Helper()
	in := bytes.Clone(src)
	var p, q Parser
	var into Envelope
	e, err := p.Parse(in)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	if err := q.ParseInto(&into, in); err != nil {
		t.Fatalf("ParseInto(%q): %v", src, err)
	}
	want := deepCopy(e)
	clear(in)
	for _, other := range [][]byte{src, fastSlowBase, []byte(`{"jsonrpc":"2.0","id":1,"result":{"binding_moment":` + string(fastSlowBase) + `}}`)} {
		p.Parse(other)
		q.Parse(other)
		// Copies of the Envelopes, parsed into (TestEnvelopeCopyUnchanged).
		ce, ci := *e, into
		p.ParseInto(&ce, other)
		q.ParseInto(&ci, other)
	}
	if !reflect.DeepEqual(*e, want) || !reflect.DeepEqual(into, want) {
		t.Fatalf("Parse(%q): the Envelope changed with the input or the Parser:\n%+v\n%+v\nwant\n%+v", src, *e, into, want)
	}
}

// deepCopy returns a copy of e that shares no memory with it.
func deepCopy(e *Envelope) Envelope {
	c := *e
	cl := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = strings.Clone(s)
		}
		return out
	}
	c.synopsis, c.offer, c.stem = strings.Clone(e.synopsis), strings.Clone(e.offer), strings.Clone(e.stem)
	c.findings, c.recommendations = cl(e.findings), cl(e.recommendations)
	c.options = make([]Option, len(e.options))
	for i, o := range e.options {
		c.options[i] = Option{Label: strings.Clone(o.Label), Reasoning: strings.Clone(o.Reasoning), ActionDigest: o.ActionDigest}
	}
	c.meta.decisionClass, c.meta.calNote = strings.Clone(e.meta.decisionClass), strings.Clone(e.meta.calNote)
	c.canonical = bytes.Clone(e.canonical)
	return c
}

// TestFastSlowMutations runs checkFastSlow over the envelopes of
// TestDecodeFastAgrees, in strict canonical form and wrapped (tool result,
// MCP result, JSON-RPC response), and over every splice of a token of
// spliceTokens into the canonical draft example and fastSlowBase at every
// position (every seventh with -short), replacing zero or one byte.
func TestFastSlowMutations(t *testing.T) {
	accepted, rejected := 0, 0
	count := func(ok bool) {
		if ok {
			accepted++
		} else {
			rejected++
		}
	}
	for _, v := range fastVariants(t) {
		c, err := canon.Canonicalize([]byte(v), canon.Strict)
		if err != nil {
			c = []byte(v)
		}
		count(checkFastSlow(t, c))
		for _, w := range []string{`{"binding_moment":%s,"note":1.5}`, `{"content":[],"structuredContent":{"binding_moment":%s}}`,
			`{"id":1,"jsonrpc":"2.0","result":{"structuredContent":{"binding_moment":%s}}}`} {
			count(checkFastSlow(t, []byte(strings.Replace(w, "%s", string(c), 1))))
		}
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	draft, err := canon.Canonicalize(demo.DraftEnvelope(), canon.Strict)
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range [][]byte{draft, fastSlowBase} {
		for at := 0; at <= len(base); at += step {
			for cut := range 2 {
				for _, tok := range spliceTokens {
					count(checkFastSlow(t, splice(base, at, cut, tok)))
				}
			}
		}
	}
	// Both ways are taken, many times: a test that accepted nothing (or
	// everything) would hold the fast path to nothing.
	if accepted < 200 || rejected < 1000 {
		t.Errorf("accepted %d, rejected %d: the mutations do not reach both outcomes", accepted, rejected)
	}
	t.Logf("accepted %d, rejected %d", accepted, rejected)
}

// FuzzFastSlow is checkFastSlow on the fuzzer's inputs, each also with a
// token of spliceTokens spliced in at a position it chooses (Go's fuzzer
// has no dictionary, and a canonical envelope hit with random bytes is
// rarely JSON). Its seeds are the envelopes of TestFastSlowMutations.
func FuzzFastSlow(f *testing.F) {
	// TestFastSlowMutations checks every variant; the fuzzer starts from
	// the demo envelopes and the malformed cases (the first head
	// variants) and one in 32 of the generated ones: with all ~1,600 as
	// seeds, a 5 s run (CI's smoke) spent its time replaying them and
	// never fuzzed.
	head := 2
	for _, tc := range malformedCases() {
		if tc.f != nil {
			head++
		}
	}
	for i, v := range fastVariants(f) {
		if i >= head && (i-head)%32 != 0 {
			continue
		}
		c, err := canon.Canonicalize([]byte(v), canon.Strict)
		if err != nil {
			c = []byte(v)
		}
		f.Add(c, uint16(0), uint8(0), uint8(0))
	}
	f.Add(fastSlowBase, uint16(0), uint8(0), uint8(0))
	f.Add([]byte(`{"binding_moment":`+string(fastSlowBase)+`,"note":1.5}`), uint16(0), uint8(0), uint8(0))
	// locate's decode of a wrapped envelope (fastDecode), the same bytes
	// found twice, and envelopes around the text capacities of Parse's
	// blocks (ownClasses) and past the largest.
	for _, tc := range placements(f) {
		f.Add([]byte(tc.src), uint16(0), uint8(0), uint8(0))
	}
	base := len(bigEnvelope(f, 0))
	for _, n := range []uintptr{own1536, own2048, own8192, own8192 + 1} {
		f.Add(bigEnvelope(f, int(n)-base), uint16(0), uint8(0), uint8(0))
	}
	f.Fuzz(func(t *testing.T, src []byte, at uint16, cut, tok uint8) {
		checkFastSlow(t, src)
		checkFastSlow(t, splice(src, int(at), int(cut%4), spliceTokens[int(tok)%len(spliceTokens)]))
	})
}
