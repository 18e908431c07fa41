package envelope

import (
	"encoding/json"
	"github.com/bbdigest/bbdigest/internal/jsonread"
	"reflect"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// checkFastAgrees holds decodeFast to decode on src: when src is
// canonical under the strict profile as an object, decodeFast accepts it
// exactly when decode finds no problem, and then fills the Envelope as
// decode does.
func checkFastAgrees(t *testing.T, src []byte) (fastOK bool) {
	t.Helper()
	b, err := canon.Canonicalize(src, canon.Strict)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return false
	}
	s := string(b)
	var p, q Parser
	var fast, slow Envelope
	ok := p.decodeFast(&fast, b, s)
	q.decode(&slow, b, s)
	if ok != (len(q.problems) == 0) {
		t.Fatalf("decodeFast(%s) = %v; decode problems %v", b, ok, q.problems)
	}
	if ok && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decodeFast(%s):\n%+v\ndecode:\n%+v", b, fast, slow)
	}
	return ok
}

// TestDecodeFastAgrees: decodeFast and decode agree on the demo
// envelopes, on every malformed case of TestMalformed, and on envelopes
// that vary what the layout allows: meta with either member, both or
// none, or absent; two to four options, and five; empty lists; escapes in
// strings, short and long; recommended_idx at each option and past them,
// up to 2^53-1 and past 2^32 (which the fast path once summed into an int
// that wrapped where int has 32 bits: 2^53-1 was read as -1).
func TestDecodeFastAgrees(t *testing.T) {
	srcs := fastVariants(t)
	accepted := 0
	for _, src := range srcs {
		if checkFastAgrees(t, []byte(src)) {
			accepted++
		}
	}
	// Both ways are taken: the demo envelopes and the valid variants (5
	// metas; with 2, 3 and 4 options the indexes 0 and 1, and 3 with 4: 7;
	// 4 lists), and the rest.
	if want := 2 + 5*7*4; accepted != want || len(srcs)-accepted < 100 {
		t.Errorf("decodeFast accepted %d of %d envelopes, want %d", accepted, len(srcs), want)
	}
}

// fastVariants returns the envelopes TestDecodeFastAgrees reads: the demo
// envelopes, every malformed case of TestMalformed, and envelopes that
// vary what the layout allows.
func fastVariants(t testing.TB) []string {
	draft, meta := string(demo.DraftEnvelope()), string(demo.MetaEnvelope())
	srcs := []string{draft, meta}
	for _, tc := range malformedCases() {
		if tc.f == nil {
			continue
		}
		base := demo.DraftEnvelope()
		if tc.meta {
			base = demo.MetaEnvelope()
		}
		srcs = append(srcs, string(mutate(t, base, tc.f)))
	}
	option := `{"label":"L \"q\" \\ é","reasoning":"R","action_digest":"` + demo.DraftAction1Digest + `"}`
	for _, m := range []string{``, `"meta":{},`, `"meta":{"decision_class":"d"},`, `"meta":{"calibration_note":"c"},`,
		`"meta":{"calibration_note":"c\n\u0001","decision_class":"d"}, `, `"meta":{"other":1},`, `"meta":[],`} {
		for n := 1; n <= 5; n++ {
			opts := strings.TrimSuffix(strings.Repeat(option+",", n), ",")
			for _, idx := range []string{"0", "1", "3", "4", "-1", "01", "10", "4294967296", "4294967297", "9007199254740993", "9007199254740991"} {
				for _, lists := range []string{`[]`, `["a"]`, `["a string longer than sixteen bytes, with an escape \" late"]`, `["a","\u00e9",""]`} {
					srcs = append(srcs, `{`+m+`"synopsis":"s","findings":`+lists+`,"recommendations":`+lists+
						`,"offer":"o","question":{"stem":"st","options":[`+opts+`],"recommended_idx":`+idx+
						`,"hatches":{"free_text":true,"dialogue":false}}}`)
				}
			}
		}
	}
	return srcs
}

// In a wrapper, locate reads the binding_moment value with decodeFast as
// it meets it (fastDecode), and that decode is the Envelope: each
// placement of TestPlacements takes this path, with the Envelope of the
// bare envelope, for ParseInto and for Parse.
func TestLocateDecodesOnce(t *testing.T) {
	bare, err := Parse(demo.DraftEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range placements(t) {
		if tc.want == PlacementBare {
			continue
		}
		var p Parser
		var e Envelope
		if err := p.ParseInto(&e, []byte(tc.src)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !p.fast.ok || p.fast.start != p.loc.start && tc.name != "jsonrpc-both-equal" {
			t.Errorf("%s: ParseInto did not use locate's decode", tc.name)
		}
		pe, err := p.Parse([]byte(tc.src))
		if err != nil || !p.fast.ok {
			t.Fatalf("%s: Parse %v, locate's decode %v", tc.name, err, p.fast.ok)
		}
		if !reflect.DeepEqual(e, *bare) || !reflect.DeepEqual(*pe, *bare) || p.Placement() != tc.want {
			t.Errorf("%s: %v\n%+v\n%+v\nwant\n%+v", tc.name, p.Placement(), e, *pe, *bare)
		}
		if p.fast.e != nil {
			t.Errorf("%s: the Parser keeps the Envelope locate decoded into", tc.name)
		}
	}
}

// TestEnvelopeFirst compares envelopeFirst with the reading of the first
// member's name by jsonread, on canonical objects whose first name is an
// envelope's, shares a prefix with one, or is a wrapper's.
func TestEnvelopeFirst(t *testing.T) {
	names := []string{"findings", "meta", "offer", "question", "recommendations", "synopsis",
		"finding", "findingsX", "f", "m", "metaa", "me", "offers", "q", "questions", "r",
		"recommendation", "synopsis2", "s", "binding_moment", "content", "id", "jsonrpc",
		"result", "x", "", "\u00e9", "a\"b", "meta\n"}
	ref := func(doc []byte) bool {
		it := jsonread.Object(doc, 0)
		if !it.Next() {
			return true
		}
		switch string(it.Name()) {
		case "findings", "meta", "offer", "question", "recommendations", "synopsis":
			return true
		}
		return false
	}
	docs := [][]byte{[]byte(`{}`)}
	for _, n := range names {
		for _, v := range []string{`1`, `"x"`, `{}`, `[1,2]`} {
			src, err := json.Marshal(n)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := canon.Canonicalize([]byte(`{`+string(src)+`:`+v+`,"zzz":0}`), canon.Strict)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, doc)
		}
	}
	for _, doc := range docs {
		if got, want := envelopeFirst(doc), ref(doc); got != want {
			t.Errorf("envelopeFirst(%s) = %v, want %v", doc, got, want)
		}
	}
}
