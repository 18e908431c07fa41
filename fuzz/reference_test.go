package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/impl"
	"github.com/bbdigest/bbdigest/internal/impl/impltest"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gowebpki/jcs"
)

// peer is another RFC 8785 implementation.
type peer struct {
	name string
	// canonicalize returns the peer's canonical form of src. A panic in the
	// peer is returned as an error, so that it shows up as a disagreement
	// rather than as a bbdigest crash.
	canonicalize func(src []byte) ([]byte, error)
}

const (
	peerJSONText = "jsontext"
	peerGoWebPKI = "gowebpki"
	peerNode     = "node-canonicalize"
)

var peers = []peer{
	{peerJSONText, func(src []byte) ([]byte, error) {
		v := jsontext.Value(bytes.Clone(src)) // Canonicalize works in place
		err := v.Canonicalize()
		return v, err
	}},
	{peerGoWebPKI, jcs.Transform},
}

func (p peer) run(src []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return p.canonicalize(src)
}

// FuzzCanonicalizeVsReference compares canon (rfc8785 profile) with
// gowebpki/jcs and jsontext on arbitrary bytes. bbdigest must never panic,
// must satisfy its own invariants (see checkInvariants), and wherever it
// and a peer both accept an input their outputs must be byte-identical.
// Any other disagreement must be one of the classes in divergence_test.go.
func FuzzCanonicalizeVsReference(f *testing.F) {
	for _, s := range conformanceInputs(f) {
		f.Add(s)
	}
	for _, tc := range trickyCases {
		if len(tc.in) <= 4<<10 { // deep10001: minimizing its mutants takes long and finds nothing new
			f.Add([]byte(tc.in))
		}
	}
	g := newDocGen(1)
	for range 64 {
		f.Add(g.doc())
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := checkInvariants(t, src)
		for _, p := range peers {
			pout, perr := p.run(src)
			compareWithPeer(t, p.name, src, out, err, pout, perr)
		}
	})
}

// checkInvariants canonicalizes src under the rfc8785 profile and checks
// what must hold whatever the peers say:
//   - a rejection is a *canon.Error of a known class, wrapping its sentinel,
//     at an offset within the input;
//   - Canonicalize, Canonicalizer.Append (onto a non-empty prefix), View,
//     Encode and Transcode, Validate and IsCanonical agree;
//   - the canonical form is a fixed point, and View returns it unchanged;
//   - the strict profile accepts only what rfc8785 accepts, with the same
//     output.
func checkInvariants(t *testing.T, src []byte) ([]byte, error) {
	t.Helper()
	out, err := canon.Canonicalize(src, canon.RFC8785)
	if err != nil {
		checkError(t, src, err)
	}

	c := canon.New(canon.RFC8785)
	const prefix = "prefix:"
	app, aerr := c.Append([]byte(prefix), src)
	if !sameResult(out, err, app[len(prefix):], aerr) || !bytes.HasPrefix(app, []byte(prefix)) {
		t.Fatalf("Append onto a prefix disagrees with Canonicalize on %s:\nAppend: %s, %v\nCanonicalize: %s, %v", q(src), q(app), qerr(aerr), q(out), qerr(err))
	}
	view, verr := c.View(src)
	if !sameResult(out, err, view, verr) {
		t.Fatalf("View disagrees with Canonicalize on %s:\nView: %s, %v\nCanonicalize: %s, %v", q(src), q(view), qerr(verr), q(out), qerr(err))
	}
	if vErr := canon.Validate(src, canon.RFC8785); !sameClass(err, vErr) {
		t.Fatalf("Validate(%s) = %v, but Canonicalize returns %v", q(src), qerr(vErr), qerr(err))
	}

	sout, serr := canon.Canonicalize(src, canon.Strict)
	if serr != nil {
		checkError(t, src, serr)
		if err == nil {
			checkStrictRejection(t, src, serr)
		}
	} else if err != nil || !bytes.Equal(sout, out) {
		t.Fatalf("strict accepts %s as %s, but rfc8785 gives %s, %v", q(src), q(sout), q(out), qerr(err))
	}

	var w bytes.Buffer
	if eerr := c.Encode(&w, src); !sameResult(out, err, w.Bytes(), eerr) {
		t.Fatalf("Encode disagrees with Canonicalize on %s: %s, %v", q(src), q(w.Bytes()), qerr(eerr))
	}
	w.Reset()
	if terr := c.Transcode(&w, bytes.NewReader(src)); !sameResult(out, err, w.Bytes(), terr) {
		t.Fatalf("Transcode disagrees with Canonicalize on %s: %s, %v", q(src), q(w.Bytes()), qerr(terr))
	}
	if got, want := canon.IsCanonical(src, canon.RFC8785), err == nil && bytes.Equal(out, src); got != want {
		t.Fatalf("IsCanonical(%s) = %v, want %v", q(src), got, want)
	}

	if err != nil {
		return nil, err
	}
	again, err2 := canon.Canonicalize(out, canon.RFC8785)
	if err2 != nil || !bytes.Equal(again, out) {
		t.Fatalf("canonical form of %s is not a fixed point: %s gives %s, %v", q(src), q(out), q(again), qerr(err2))
	}
	v, err2 := c.View(out)
	if err2 != nil || len(v) != len(out) || (len(out) > 0 && &v[0] != &out[0]) {
		t.Fatalf("View of the canonical form %s did not return it unchanged (error %v)", q(out), qerr(err2))
	}
	if !canon.IsCanonical(out, canon.RFC8785) {
		t.Fatalf("IsCanonical(%s) = false for a canonical form", q(out))
	}
	return out, nil
}

// checkStrictRejection checks, independently of canon, why the strict
// profile rejects src, which the rfc8785 profile accepts: a number that is
// not an integer or not within ±(2^53-1), judged by its exact decimal value
// (math/big), or nesting deeper than 64.
func checkStrictRejection(t *testing.T, src []byte, serr error) {
	t.Helper()
	e, _ := errors.AsType[*canon.Error](serr)
	switch e.Class {
	case canon.ClassDepth:
		if d := nestingDepth(src); d <= canon.StrictMaxDepth {
			t.Fatalf("strict reports depth for %s, nested %d deep", q(src), d)
		}
	case canon.ClassNonInteger, canon.ClassUnsafeInteger:
		lit := numberAt(src, int(e.Offset))
		if _, exp, _ := strings.Cut(strings.ToLower(string(lit)), "e"); len(exp) > 5 {
			return // too large an exponent for math/big; canon decides these by digit counting
		}
		v, ok := new(big.Rat).SetString(string(lit))
		if !ok {
			t.Fatalf("strict reports %s for %q in %s, not a number", e.Class, lit, q(src))
		}
		want := canon.ClassNonInteger
		if v.IsInt() {
			want = canon.ClassUnsafeInteger
			if v.Num().CmpAbs(big.NewInt(1<<53-1)) <= 0 {
				t.Fatalf("strict rejects the safe integer %q in %s: %v", lit, q(src), qerr(serr))
			}
		}
		if e.Class != want {
			t.Fatalf("strict rejects %q in %s as %s, want %s", lit, q(src), e.Class, want)
		}
	default:
		t.Fatalf("strict rejects %s (%v), which rfc8785 accepts", q(src), qerr(serr))
	}
}

// checkError checks that err is a well-formed rejection of src.
func checkError(t *testing.T, src []byte, err error) {
	t.Helper()
	e, ok := errors.AsType[*canon.Error](err)
	if !ok {
		t.Fatalf("error for %s is %T, not a *canon.Error: %v", q(src), err, qerr(err))
	}
	name := e.Class.String()
	if c, ok := canon.ParseClass(name); !ok || c != e.Class || !errors.Is(err, e.Class.Sentinel()) {
		t.Fatalf("error for %s has class %d (%q) that does not round-trip or wrap its sentinel: %v", q(src), e.Class, name, qerr(err))
	}
	if e.Offset < 0 || e.Offset > int64(len(src)) {
		t.Fatalf("error for %s has offset %d outside the %d-byte input: %v", q(src), e.Offset, len(src), qerr(err))
	}
}

func sameClass(a, b error) bool {
	ea, oka := errors.AsType[*canon.Error](a)
	eb, okb := errors.AsType[*canon.Error](b)
	return a == nil && b == nil || oka && okb && ea.Class == eb.Class
}

func sameResult(out []byte, err error, out2 []byte, err2 error) bool {
	if err != nil || err2 != nil {
		return sameClass(err, err2)
	}
	return bytes.Equal(out, out2)
}

// compareWithPeer fails t unless bbdigest's result (out, err) and a peer's
// (pout, perr) agree, or disagree in a way classified in divergence_test.go.
func compareWithPeer(t *testing.T, name string, src, out []byte, err error, pout []byte, perr error) {
	t.Helper()
	switch {
	case err != nil && perr != nil:
		return
	case err == nil && perr == nil:
		if !bytes.Equal(out, pout) {
			t.Fatalf("%s disagrees on %s: %s", name, q(src), firstDifference(out, pout))
		}
		return
	case err == nil:
		if d := classifyPeerRejects(name, src, out, perr); d != nil {
			d.check(t, src)
			return
		}
		t.Fatalf("unclassified divergence on %s: bbdigest accepts as %s, %s rejects: %v", q(src), q(out), name, qerr(perr))
	default:
		// The peer's output must itself be canonical to bbdigest (with the
		// peers' nesting bound), whatever the reason for the disagreement.
		if again, err2 := canon.Canonicalize(pout, deepRFC8785); err2 != nil || !bytes.Equal(again, pout) {
			t.Errorf("%s output %s for %s is not a canonical form to bbdigest: %s, %v", name, q(pout), q(src), q(again), err2)
		}
		if d := classifyBBDigestRejects(name, src, err, pout); d != nil {
			d.check(t, src)
			return
		}
		t.Fatalf("unclassified divergence on %s: bbdigest rejects (%v), %s accepts as %s", q(src), qerr(err), name, q(pout))
	}
}

// firstDifference describes where bbdigest's output and a peer's first
// differ.
func firstDifference(bb, peer []byte) string {
	i := 0
	for i < len(bb) && i < len(peer) && bb[i] == peer[i] {
		i++
	}
	ctx := func(b []byte) string {
		lo, hi := max(i-16, 0), min(i+16, len(b))
		return fmt.Sprintf("%q", b[lo:hi])
	}
	return fmt.Sprintf("outputs of %d and %d bytes first differ at byte %d: bbdigest …%s…, peer …%s…\nbbdigest: %s\npeer:     %s",
		len(bb), len(peer), i, ctx(bb), ctx(peer), q(bb), q(peer))
}

// conformanceInputs returns the RFC 8785 conformance inputs
// (cyberphone/json-canonicalization testdata/input/*.json) from the shared
// conformance material beside the repository, where canon's own
// conformance tests read them too. Without them the test fails under
// CI=true and only logs otherwise (the fuzz target still has its other
// seeds).
func conformanceInputs(tb testing.TB) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "conformance", "rfc8785", "input", "*.json"))
	if len(files) == 0 {
		const msg = "RFC 8785 conformance inputs missing: want ../shared/conformance/rfc8785/input/*.json beside the repository"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Log(msg)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestGeneratedVsReference runs the fuzz target's body on generated
// documents that are valid under rfc8785 (the seeds run as subtests of the
// fuzz target), so that a plain `go test` compares the libraries on
// well-formed input with every kind of spelling.
func TestGeneratedVsReference(t *testing.T) {
	g := newDocGen(2)
	n := 2000 * *genScale
	if testing.Short() {
		n /= 10
	}
	for range n {
		src := g.doc()
		out, err := checkInvariants(t, src)
		if err != nil {
			t.Fatalf("generated document rejected: %v\n%s", qerr(err), q(src))
		}
		for _, p := range peers {
			pout, perr := p.run(src)
			compareWithPeer(t, p.name, src, out, err, pout, perr)
		}
	}
}

// q quotes b for a failure message, eliding the middle of long inputs.
func q(b []byte) string {
	const max = 300
	if len(b) <= max {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q…(%d bytes)…%q", b[:max-60], len(b), b[len(b)-60:])
}

// qerr shortens an error message for a failure message (canon errors carry
// a JSON Pointer as long as the nesting).
func qerr(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := err.Error()
	if len(s) > 400 {
		s = s[:300] + "…" + s[len(s)-60:]
	}
	return s
}

// TestLargeObjectsVsReference compares the libraries on objects around and
// far beyond the size where bbdigest's duplicate check switches from a
// linear search to a hash table (and grows it), with names in every
// spelling, shuffled, with and without a duplicate.
func TestLargeObjectsVsReference(t *testing.T) {
	g := newDocGen(5)
	for _, n := range []int{15, 16, 17, 18, 31, 32, 33, 63, 64, 65, 200, 1000, 5000} {
		for _, dup := range []bool{false, true} {
			names := map[string]bool{}
			var members [][]byte
			for len(members) < n {
				name := g.name() + g.text(1+g.r.IntN(3))
				if names[name] {
					continue
				}
				names[name] = true
				g.b = g.b[:0]
				g.string(name)
				g.b = append(g.b, ':')
				g.value(0, 2)
				members = append(members, bytes.Clone(g.b))
			}
			if dup { // respell an existing name
				var name string
				for name = range names {
					break
				}
				g.b = g.b[:0]
				g.string(name)
				members = append(members, append(bytes.Clone(g.b), ":null"...))
			}
			g.r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
			src := append(append([]byte("{"), bytes.Join(members, []byte(","))...), '}')
			out, err := checkInvariants(t, src)
			if e, _ := errors.AsType[*canon.Error](err); dup != (err != nil) || dup && e.Class != canon.ClassDuplicateName {
				t.Fatalf("%d members, duplicate %v: got %v", n, dup, qerr(err))
			}
			for _, p := range peers {
				pout, perr := p.run(src)
				compareWithPeer(t, p.name, src, out, err, pout, perr)
			}
		}
	}
}

// TestDamagedLongVsReference compares the libraries on canonical
// documents of a few KiB damaged at random places and at every byte
// around the ends of the first chunks of canon's indexed fast path (128
// bytes, then every 4 KiB), where it carries what it knows of a string,
// an escape or a UTF-8 sequence from one chunk to the next, under each
// implementation of canon's quick kernel. The fast path only ever accepts
// input as canonical, so a fault of it is an input bbdigest accepts and a
// peer refuses, or accepts with other bytes: CI's fuzzing once found the
// indexed pass accepting a UTF-8 sequence cut short at the end of its
// first chunk. The generated documents are short; here they are joined
// into an array long enough to reach those chunk ends.
func TestDamagedLongVsReference(t *testing.T) {
	quick := impl.Lookup("canon", "quick")
	if quick == nil {
		t.Fatal("canon registers no quick kernel")
	}
	g := newDocGen(9)
	damage := []string{" ", "\\", `"`, "\x01", "\x7f", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xbf", "\xed\xa0\x80", "\xff",
		"}", "]", ",", ":", `\u0041`, `\ud800`, `\/`, `\n`, "\xc3\xa9", "1", "-0"}
	type damaged struct {
		src       []byte
		peerOut   [][]byte
		peerError []error
	}
	var cases []damaged
	bases := 2 // one ASCII only, one with any text
	if testing.Short() {
		bases = 1 // the ASCII one
	}
	for _, size := range []int{300, 5000, 9000} {
		for i := range bases {
			// Generated documents between long ASCII strings, so that
			// many chunk ends fall in a string; every other base has
			// ASCII only, so that a chunk may hold no byte above 0x7F.
			ascii := i%2 == 0
			doc := []byte{'['}
			for len(doc) < size {
				out, err := canon.Canonicalize(g.doc(), canon.RFC8785)
				if err != nil {
					t.Fatalf("generated document rejected: %v", err)
				}
				if ascii && bytes.ContainsFunc(out, func(r rune) bool { return r > 0x7f }) {
					continue
				}
				if len(doc) > 1 {
					doc = append(doc, ',')
				}
				doc = append(doc, out...)
				doc = append(append(append(doc, `,"`...), strings.Repeat("x", 50+g.r.IntN(250))...), '"')
			}
			doc = append(doc, ']')
			var at []int
			for _, end := range []int{128, 128 + 4096, 128 + 2*4096} {
				for k := end - 6; k <= end+4; k++ {
					if k > 0 && k < len(doc) {
						at = append(at, k)
					}
				}
			}
			for range 8 {
				at = append(at, 1+g.r.IntN(len(doc)-1))
			}
			for _, k := range at {
				for _, d := range damage {
					for _, replace := range []bool{false, true} {
						rest := doc[k:]
						if replace {
							rest = doc[k+1:]
						}
						src := append(append(append([]byte(nil), doc[:k]...), d...), rest...)
						c := damaged{src: src}
						for _, p := range peers {
							out, err := p.run(src)
							c.peerOut, c.peerError = append(c.peerOut, out), append(c.peerError, err)
						}
						cases = append(cases, c)
					}
				}
			}
		}
	}
	impltest.ForEach(t, quick, func(t *testing.T) {
		for _, c := range cases {
			out, err := checkInvariants(t, c.src)
			for i, p := range peers {
				compareWithPeer(t, p.name, c.src, out, err, c.peerOut[i], c.peerError[i])
			}
		}
	})
}
