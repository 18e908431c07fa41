package fuzz

// NOTE: how disagreements are judged.
//
// Each peer was probed on every class of input where JCS implementations
// are known to differ (duplicates, invalid UTF-8, lone surrogates, number
// range, nesting depth, syntax corners); the results are pinned in
// peerBehaviour below and written up in DIVERGENCES.md. Only the
// disagreements actually observed are classified here. Each class verifies
// its own premise independently of bbdigest's error (for example, that the
// literal really overflows a double), so a bbdigest bug cannot hide behind a
// class. Anything else fails the fuzz target.

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// divergence is a classified, legitimate disagreement with a peer.
type divergence struct {
	class string
	// check verifies the class's premise on src, independently of
	// bbdigest's classification of its own error.
	check func(t *testing.T, src []byte)
}

// peerMaxDepth is the nesting bound of jsontext and gowebpki/jcs (both
// 10000; jsontext's maxNestingDepth, jcs's maxNestingDepth).
const peerMaxDepth = 10000

// deepRFC8785 is the rfc8785 profile with the peers' nesting bound.
var deepRFC8785, _ = canon.RFC8785.WithMaxDepth(peerMaxDepth)

// classifyBBDigestRejects classifies an input that bbdigest rejects with err
// and the peer accepts, producing pout. It returns nil for an unclassified
// disagreement.
func classifyBBDigestRejects(peerName string, src []byte, err error, pout []byte) *divergence {
	e, _ := errors.AsType[*canon.Error](err)
	switch {
	// Class "overflow-clamped": jsontext parses a number literal beyond the
	// largest double (1e400, 1.7976931348623159e308) as ±MaxFloat64 and
	// writes 1.7976931348623157e+308, where bbdigest rejects it with class
	// number-range. RFC 8785 works on the IEEE-754 value of each number, and
	// the value of 1e400 is +Infinity, which RFC 8785 §3.2.2.3 says must not
	// be serialized; I-JSON (RFC 7493 §2.2) excludes such numbers. Clamping
	// maps distinct inputs (1e400, 1e999) to one canonical form, the kind
	// of collision a digest must not have. bbdigest (and gowebpki, and
	// JSON.parse + canonicalize, which see Infinity) are right.
	case peerName == peerJSONText && e.Class == canon.ClassNumberRange:
		return &divergence{"overflow-clamped", func(t *testing.T, src []byte) {
			t.Helper()
			lit := numberAt(src, int(e.Offset))
			f, perr := strconv.ParseFloat(string(lit), 64)
			if !math.IsInf(f, 0) || !errors.Is(perr, strconv.ErrRange) {
				t.Fatalf("bbdigest reports number-range for %q in %s, which is a finite double", lit, q(src))
			}
			if !bytes.Contains(pout, []byte("1.7976931348623157e+308")) {
				t.Fatalf("%s accepts %s without clamping to MaxFloat64: %s", peerName, q(src), q(pout))
			}
		}}

	// Class "depth-bound": the input nests deeper than bbdigest's default
	// rfc8785 bound (canon.DefaultRFC8785MaxDepth, 1000) but within the
	// peer's: 10000 for jsontext and gowebpki, the JavaScript call stack for
	// Node's canonicalize (a few thousand levels). RFC 8259 §9 lets every
	// implementation set its own limit, so both are right; bbdigest's bound
	// is configurable with Profile.WithMaxDepth. The check raises bbdigest's
	// bound to the input's depth and then requires full agreement.
	case e.Class == canon.ClassDepth:
		return &divergence{"depth-bound", func(t *testing.T, src []byte) {
			t.Helper()
			d := nestingDepth(src)
			if d <= canon.DefaultRFC8785MaxDepth || (peerName != peerNode && d > peerMaxDepth) {
				t.Fatalf("bbdigest reports depth for %s, nested %d deep, which %s accepts", q(src), d, peerName)
			}
			deep, _ := canon.RFC8785.WithMaxDepth(d)
			out, err := canon.Canonicalize(src, deep)
			compareWithPeer(t, peerName, src, out, err, pout, nil)
		}}

	// Class "node-keeps-last-duplicate": JSON.parse keeps the last of
	// members with equal names and canonicalize serializes the object it
	// gets, so Node accepts {"a":1,"a":2} as {"a":2}. I-JSON (RFC 7493
	// §2.3) forbids duplicate names and RFC 8785 requires I-JSON input;
	// silently dropping a member is the misbinding hazard of the envelope
	// draft §6.3. bbdigest (duplicate-name) is right.
	case peerName == peerNode && e.Class == canon.ClassDuplicateName:
		// Node's output is checked against the last-wins form of each
		// generated duplicate in TestCanonicalizeVsNodeCanonicalize, which
		// knows that form; here only that it is canonical (compareWithPeer).
		return &divergence{"node-keeps-last-duplicate", func(t *testing.T, src []byte) {}}
	}
	return nil
}

// classifyPeerRejects classifies an input that bbdigest accepts (as out) and
// the peer rejects with perr. No such class has been observed: every input
// bbdigest accepts is accepted by jsontext, gowebpki and Node (see
// peerBehaviour and DIVERGENCES.md), so any such disagreement fails.
func classifyPeerRejects(peerName string, src, out []byte, perr error) *divergence {
	return nil
}

// numberAt returns the number literal starting at src[i].
func numberAt(src []byte, i int) []byte {
	j := i
	for j < len(src) && strings.IndexByte("+-0123456789.eE", src[j]) >= 0 {
		j++
	}
	return src[i:j]
}

// nestingDepth returns the deepest container nesting of a JSON text (0 for
// a scalar). It is a plain bracket count outside strings, for text a peer
// has accepted.
func nestingDepth(src []byte) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// Expected results in peerBehaviour: a canonical form, or "!" followed by
// the rejection (bbdigest: the class name; peers: any error).
const (
	same   = ""  // the peer agrees with bbdigest
	reject = "!" // the peer rejects
)

// tricky is one probe: an input, bbdigest's expected result, and each
// peer's where it differs.
type tricky struct {
	name     string
	in       string
	bb       string // canonical output, or "!class"
	jsontext string // same, reject, or the peer's output
	gowebpki string
}

var (
	deep1000  = strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	deep1001  = strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	deep10001 = strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	deepObj   = strings.Repeat(`{"a":`, 1001) + "0" + strings.Repeat("}", 1001)
	// An object with more members than the linear duplicate search covers,
	// out of order, with a duplicate at the end: the hashed path.
	bigDup = func() string {
		var b strings.Builder
		b.WriteString("{")
		for i := 40; i > 0; i-- {
			b.WriteString(`"k` + strconv.Itoa(i) + `":0,`)
		}
		b.WriteString(`"k\u0031\u0037":1}`)
		return b.String()
	}()
	bigSorted = strings.Replace(bigDup, `,"k\u0031\u0037":1}`, "}", 1)
)

// trickyCases are the probes, pinned: TestPeerBehaviour checks every row
// against all three implementations, and the fuzz target is seeded with
// them.
var trickyCases = []tricky{
	// Duplicate names, compared after escape decoding: all reject.
	{"dup", `{"a":1,"a":2}`, "!duplicate-name", same, same},
	{"dup-escaped", `{"a":1,"\u0061":2}`, "!duplicate-name", same, same},
	{"dup-unsorted", `{"b":1,"a":2,"b":3}`, "!duplicate-name", same, same},
	{"dup-surrogate-escape", `{"😀":1,"\ud83d\ude00":2}`, "!duplicate-name", same, same},
	{"dup-hashed", bigDup, "!duplicate-name", same, same},
	{"dup-not-normalized", `{"é":1,"e\u0301":2}`, "{\"e\u0301\":2,\"é\":1}", same, same},
	{"dup-in-sibling-ok", `[{"a":1},{"a":2}]`, `[{"a":1},{"a":2}]`, same, same},

	// Ill-formed UTF-8: all reject; outside strings it is a syntax error.
	{"utf8-ff", "\"\xff\"", "!invalid-utf8", same, same},
	{"utf8-overlong", "\"\xc0\x80\"", "!invalid-utf8", same, same},
	{"utf8-surrogate", "\"\xed\xa0\x80\"", "!invalid-utf8", same, same},
	{"utf8-truncated", "\"\xe2\x82\"", "!invalid-utf8", same, same},
	{"utf8-beyond-10ffff", "\"\xf4\x90\x80\x80\"", "!invalid-utf8", same, same},
	{"utf8-in-name", "{\"\xff\":1}", "!invalid-utf8", same, same},
	{"utf8-after-value", "[1]\xff", "!syntax", same, same},

	// Surrogate escapes: pairs join, lone ones are rejected by all.
	{"pair", `"\ud83d\ude00"`, `"😀"`, same, same},
	{"pair-upper", `"\uD83D\uDE00"`, `"😀"`, same, same},
	{"pair-max", `"\udbff\udfff"`, "\"\U0010ffff\"", same, same},
	{"lone-high", `"\ud800"`, "!unpaired-surrogate", same, same},
	{"lone-low", `"\udc00"`, "!unpaired-surrogate", same, same},
	{"high-then-bmp", `"\ud800\u0041"`, "!unpaired-surrogate", same, same},
	{"high-then-char", `"\ud800x"`, "!unpaired-surrogate", same, same},
	{"high-high", `"\ud800\ud800"`, "!unpaired-surrogate", same, same},
	{"lone-in-name", `{"\ud800":1}`, "!unpaired-surrogate", same, same},

	// String escapes are rewritten to the one canonical spelling.
	{"esc-solidus", `"\/"`, `"/"`, same, same},
	{"esc-latin", `"\u00e9"`, `"é"`, same, same},
	{"esc-control-upper", `"\u001F"`, `"\u001f"`, same, same},
	{"esc-short-forms", `"\u0008\u000C\u000a\u000D\u0009"`, `"\b\f\n\r\t"`, same, same},
	{"esc-quote-backslash", `"\u0022\u005C"`, `"\"\\"`, same, same},
	{"esc-del", `"\u007f"`, "\"\x7f\"", same, same},
	{"raw-del", "\"\x7f\"", "\"\x7f\"", same, same},
	{"esc-bom", `"\uFEFF"`, "\"\ufeff\"", same, same},
	{"esc-line-separator", `"\u2028"`, "\"\u2028\"", same, same},
	{"noncharacter", `"\uffff"`, "\"\uffff\"", same, same},
	{"esc-nul-name", `{"\u0000":1}`, `{"\u0000":1}`, same, same},
	{"raw-control", "\"\t\"", "!syntax", same, same},
	{"raw-nul", "\"\x00\"", "!syntax", same, same},
	{"esc-invalid", `"\a"`, "!syntax", same, same},
	{"esc-short-hex", `"\u12"`, "!syntax", same, same},
	{"esc-bad-hex", `"\u12G4"`, "!syntax", same, same},

	// Member order is by UTF-16 code unit (RFC 8785 §3.2.3's example).
	{"sort-rfc8785", `{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`,
		"{\"\\r\":2,\"1\":4,\"\u0080\":6,\"ö\":7,\"€\":1,\"😀\":5,\"\ufb33\":3}", same, same},
	{"sort-hashed", bigSorted, sortedBig(), same, same},

	// Numbers: ECMAScript formatting of the correctly rounded double.
	{"num-overflow", `1e400`, "!number-range", "1.7976931348623157e+308", same},
	{"num-overflow-neg", `-1e400`, "!number-range", "-1.7976931348623157e+308", same},
	{"num-overflow-nested", `[1E400]`, "!number-range", "[1.7976931348623157e+308]", same},
	{"num-overflow-rounding", `1.7976931348623159e308`, "!number-range", "1.7976931348623157e+308", same},
	{"num-overflow-huge-exp", `1e99999999999999999999`, "!number-range", "1.7976931348623157e+308", same},
	{"num-max", `1.7976931348623158e308`, "1.7976931348623157e+308", same, same},
	{"num-underflow", `1e-400`, "0", same, same},
	{"num-underflow-huge-exp", `1e-99999999999999999999`, "0", same, same},
	{"num-zero-huge-exp", `0e99999999999`, "0", same, same},
	{"num-neg-zero", `-0`, "0", same, same},
	{"num-neg-zero-frac", `-0.0`, "0", same, same},
	{"num-1e21", `1e21`, "1e+21", same, same},
	{"num-1e20", `1e20`, "100000000000000000000", same, same},
	{"num-1e-6", `1e-6`, "0.000001", same, same},
	{"num-1e-7", `1e-7`, "1e-7", same, same},
	{"num-min-subnormal", `5e-324`, "5e-324", same, same},
	{"num-half-min-up", `2.4703282292062328e-324`, "5e-324", same, same},
	{"num-half-min-down", `2.4703282292062327e-324`, "0", same, same},
	{"num-2^53+1", `9007199254740993`, "9007199254740992", same, same},
	{"num-long-int", `123456789012345678901234567890`, "1.2345678901234568e+29", same, same},
	{"num-rfc8785-1", `333333333.33333329`, "333333333.3333333", same, same},
	{"num-rfc8785-2", `1E30`, "1e+30", same, same},
	{"num-rfc8785-3", `4.50`, "4.5", same, same},
	{"num-rfc8785-4", `2e-3`, "0.002", same, same},
	{"num-rfc8785-5", `0.000000000000000000000000001`, "1e-27", same, same},
	// Integer-valued spellings (the strict profile judges these by value;
	// the fuzz target checks its verdicts with math/big).
	{"int-frac-zero", `1.0`, "1", same, same},
	{"int-exp-zero", `1e0`, "1", same, same},
	{"int-frac-exp", `0.5e1`, "5", same, same},
	{"int-neg-exp", `100e-2`, "1", same, same},
	{"int-max-safe-frac", `9007199254740991.0`, "9007199254740991", same, same},
	{"int-max-safe-exp", `90071992547409910e-1`, "9007199254740991", same, same},
	{"int-unsafe", `9007199254740992`, "9007199254740992", same, same},
	{"int-1e16", `1e16`, "10000000000000000", same, same},
	{"frac-half", `5e-1`, "0.5", same, same},
	{"frac-long-int-part", `12345678901234567.5`, "12345678901234568", same, same},
	{"num-leading-zero", `01`, "!syntax", same, same},
	{"num-neg-leading-zero", `-01`, "!syntax", same, same},
	{"num-minus", `-`, "!syntax", same, same},
	{"num-plus", `+1`, "!syntax", same, same},
	{"num-bare-frac", `.5`, "!syntax", same, same},
	{"num-bare-point", `1.`, "!syntax", same, same},
	{"num-bare-exp", `1e`, "!syntax", same, same},
	{"num-exp-sign-only", `1.0e+`, "!syntax", same, same},
	{"num-infinity", `Infinity`, "!syntax", same, same},
	{"num-nan", `NaN`, "!syntax", same, same},

	// Nesting: bbdigest's rfc8785 bound is 1000, the peers' 10000.
	{"depth-1000", deep1000, deep1000, same, same},
	{"depth-1001", deep1001, "!depth", deep1001, deep1001},
	{"depth-1001-objects", deepObj, "!depth", deepObj, deepObj},
	{"depth-10001", deep10001, "!depth", same, same},

	// Syntax and whitespace.
	{"ws", " \t\n\r[ 1 ,\t2 ]\r\n", "[1,2]", same, same},
	{"top-string", `"x"`, `"x"`, same, same},
	{"top-literal", ` true `, "true", same, same},
	{"empty", "", "!syntax", same, same},
	{"only-ws", " ", "!syntax", same, same},
	{"bom", "\xef\xbb\xbf{}", "!syntax", same, same},
	{"form-feed-ws", "\x0c{}", "!syntax", same, same},
	{"nbsp-ws", "\xc2\xa0{}", "!syntax", same, same},
	{"trailing-nul", "{}\x00", "!syntax", same, same},
	{"two-values", "{} {}", "!syntax", same, same},
	{"trailing-comma-array", `[1,]`, "!syntax", same, same},
	{"trailing-comma-object", `{"a":1,}`, "!syntax", same, same},
	{"missing-colon", `{"a" 1}`, "!syntax", same, same},
	{"missing-value", `{"a":}`, "!syntax", same, same},
	{"number-name", `{1:2}`, "!syntax", same, same},
	{"colon-in-array", `[1:2]`, "!syntax", same, same},
	{"literal-prefix", `tru`, "!syntax", same, same},
	{"literal-suffix", `[truex]`, "!syntax", same, same},
}

// sortedBig is the canonical form of bigSorted: members k1..k40 in UTF-16
// order.
func sortedBig() string {
	names := make([]string, 40)
	for i := range names {
		names[i] = "k" + strconv.Itoa(i+1)
	}
	// "k1" < "k10" < ... < "k19" < "k2" < "k20" ...: byte order of ASCII.
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("{")
	for i, n := range names {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + n + `":0`)
	}
	b.WriteString("}")
	return b.String()
}

// TestPeerBehaviour pins what bbdigest and each peer do on every probe, so
// that DIVERGENCES.md stays true: a peer upgrade that changes behaviour
// fails here rather than silently changing what the fuzz target tolerates.
func TestPeerBehaviour(t *testing.T) {
	for _, tc := range trickyCases {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.in)
			out, err := canon.Canonicalize(src, canon.RFC8785)
			if got := describe(out, err); got != tc.bb {
				t.Errorf("bbdigest: got %s, want %s", abbrev(got), abbrev(tc.bb))
			}
			for _, p := range peers {
				want := map[string]string{peerJSONText: tc.jsontext, peerGoWebPKI: tc.gowebpki}[p.name]
				if want == same {
					want = tc.bb
				}
				pout, perr := p.run(src)
				got := describe(pout, perr)
				if strings.HasPrefix(want, reject) && perr != nil {
					continue
				}
				if got != want {
					t.Errorf("%s: got %s, want %s", p.name, abbrev(got), abbrev(want))
				}
			}
		})
	}
}

// describe renders a result as in trickyCases.
func describe(out []byte, err error) string {
	if err != nil {
		if e, ok := errors.AsType[*canon.Error](err); ok {
			return reject + e.Class.String()
		}
		return reject + err.Error()
	}
	return string(out)
}

func abbrev(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:40]) + "…" + strconv.Quote(s[len(s)-20:])
	}
	return strconv.Quote(s)
}
