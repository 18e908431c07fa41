package envelope

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// ownClasses are the size classes of the ownBlocks, each with the text
// capacity newOwned gives it and the size of its block.
var ownClasses = []struct {
	class, text, size uintptr
}{
	{896, own896, unsafe.Sizeof(ownBlock[[own896]byte]{})},
	{1024, own1024, unsafe.Sizeof(ownBlock[[own1024]byte]{})},
	{1152, own1152, unsafe.Sizeof(ownBlock[[own1152]byte]{})},
	{1280, own1280, unsafe.Sizeof(ownBlock[[own1280]byte]{})},
	{1408, own1408, unsafe.Sizeof(ownBlock[[own1408]byte]{})},
	{1536, own1536, unsafe.Sizeof(ownBlock[[own1536]byte]{})},
	{1792, own1792, unsafe.Sizeof(ownBlock[[own1792]byte]{})},
	{2048, own2048, unsafe.Sizeof(ownBlock[[own2048]byte]{})},
	{2304, own2304, unsafe.Sizeof(ownBlock[[own2304]byte]{})},
	{2688, own2688, unsafe.Sizeof(ownBlock[[own2688]byte]{})},
	{3072, own3072, unsafe.Sizeof(ownBlock[[own3072]byte]{})},
	{3456, own3456, unsafe.Sizeof(ownBlock[[own3456]byte]{})},
	{4096, own4096, unsafe.Sizeof(ownBlock[[own4096]byte]{})},
	{4864, own4864, unsafe.Sizeof(ownBlock[[own4864]byte]{})},
	{5376, own5376, unsafe.Sizeof(ownBlock[[own5376]byte]{})},
	{6144, own6144, unsafe.Sizeof(ownBlock[[own6144]byte]{})},
	{6912, own6912, unsafe.Sizeof(ownBlock[[own6912]byte]{})},
	{8192, own8192, unsafe.Sizeof(ownBlock[[own8192]byte]{})},
}

// Each ownBlock, with the allocator's header, fills its size class
// exactly, and the classes grow.
func TestOwnBlockSizes(t *testing.T) {
	for i, c := range ownClasses {
		if c.size+mallocHeader != c.class {
			t.Errorf("block for text %d: %d bytes + header %d, want size class %d", c.text, c.size, mallocHeader, c.class)
		}
		if i > 0 && c.text <= ownClasses[i-1].text {
			t.Errorf("text capacity %d after %d", c.text, ownClasses[i-1].text)
		}
	}
}

// newOwned gives, for every length around each capacity, an Envelope
// whose slices are empty with room for stringsInline findings and
// recommendations and maxOptions options in its own block, and a text
// equal to b, in the same block up to the largest capacity and in its own
// memory past it; never a view of b.
func TestNewOwned(t *testing.T) {
	var lens []int
	for _, c := range ownClasses {
		lens = append(lens, int(c.text)-1, int(c.text), int(c.text)+1)
	}
	lens = append(lens, 0, 1, 100, 3*int(own8192))
	for _, n := range lens {
		b := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		e, s := newOwned(b)
		if s != string(b) {
			t.Fatalf("len %d: text differs from b", n)
		}
		if len(e.findings) != 0 || cap(e.findings) != stringsInline || len(e.recommendations) != 0 ||
			cap(e.recommendations) != stringsInline || len(e.options) != 0 || cap(e.options) != maxOptions {
			t.Fatalf("len %d: slices %d/%d %d/%d %d/%d", n, len(e.findings), cap(e.findings),
				len(e.recommendations), cap(e.recommendations), len(e.options), cap(e.options))
		}
		if n == 0 {
			continue
		}
		if sameText(b, s) {
			t.Fatalf("len %d: the text is a view of b", n)
		}
		// The text is in the block (after the Envelope) exactly when it fits.
		base := uintptr(unsafe.Pointer(e))
		at := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		if in := at == base+ownHead; in != (uintptr(n) <= own8192) {
			t.Errorf("len %d: text at Envelope+%d, want in the block: %v", n, at-base, uintptr(n) <= own8192)
		}
		// Writing the slices' backing leaves the text alone.
		e.findings = append(e.findings, "x", "x", "x", "x")
		e.recommendations = append(e.recommendations, "y", "y", "y", "y")
		e.options = append(e.options, Option{Label: "z"}, Option{}, Option{}, Option{})
		if s != string(b) {
			t.Fatalf("len %d: the text changed with the slices", n)
		}
	}
}

// bigEnvelope returns the canonical §6.4 envelope made n bytes longer by
// a prefix of its synopsis: "a"s, after an escaped quote when n >= 2.
func bigEnvelope(t testing.TB, n int) []byte {
	t.Helper()
	pad := strings.Repeat("a", n)
	if n >= 2 {
		pad = `\"` + pad[2:]
	}
	src := strings.Replace(string(demo.DraftEnvelope()), `"Share the travel dates`, `"`+pad+`Share the travel dates`, 1)
	b, err := canon.Canonicalize([]byte(src), canon.Strict)
	if err != nil {
		t.Fatal(err)
	}
	if base := len(bigEnvelope0); base > 0 && len(b) != base+n {
		t.Fatalf("bigEnvelope(%d) has %d bytes, want %d", n, len(b), base+n)
	}
	return b
}

var bigEnvelope0 []byte // bigEnvelope(0), set by TestParseBlockSizes

// Parse of envelopes of every block size (a byte below, at and above each
// capacity, and past the largest): the same Envelope as ParseInto into a
// fresh one, and as decode without the fast path (checkFastSlow); every
// Envelope shows the same values after its input is overwritten and after
// every later Parse.
func TestParseBlockSizes(t *testing.T) {
	bigEnvelope0 = bigEnvelope(t, 0)
	type kept struct {
		e    *Envelope
		snap Envelope // a copy of the fields, slices shared
		syn  string
		can  []byte
	}
	var all []kept
	lens := []int{int(3 * own8192)}
	for _, c := range ownClasses {
		lens = append(lens, int(c.text)-1, int(c.text), int(c.text)+1)
	}
	for _, n := range lens {
		if n < len(bigEnvelope0) {
			continue
		}
		src := bigEnvelope(t, n-len(bigEnvelope0))
		checkFastSlow(t, src)
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("len %d: %v", len(src), err)
		}
		var into Envelope
		var p Parser
		if err := p.ParseInto(&into, src); err != nil || !reflect.DeepEqual(*e, into) {
			t.Fatalf("len %d: Parse\n%+v\nParseInto (%v)\n%+v", len(src), *e, err, into)
		}
		if n-len(bigEnvelope0) >= 2 && !strings.HasPrefix(e.Synopsis(), `"aa`) {
			t.Fatalf("len %d: synopsis %.10q", len(src), e.Synopsis())
		}
		all = append(all, kept{e, *e, e.Synopsis(), e.Canonical()})
		clear(src)
	}
	if len(all) < 2*len(ownClasses) {
		t.Fatalf("only %d sizes", len(all))
	}
	for _, k := range all {
		if !reflect.DeepEqual(*k.e, k.snap) || k.e.Synopsis() != k.syn || !bytes.Equal(k.e.Canonical(), k.can) {
			t.Errorf("an Envelope of %d bytes changed", len(k.can))
		}
	}
}

// Parse makes one allocation for an envelope without escapes, bare or
// wrapped (the Envelope, its slices and its text: newOwned), and one more
// per escaped string.
func TestParseAllocs(t *testing.T) {
	draft := demo.DraftEnvelope()
	for _, tc := range []struct {
		name string
		src  []byte
		want float64
	}{
		{"draft", draft, 1},
		{"canonical", bigEnvelope(t, 0), 1},
		{"jsonrpc", []byte(`{"jsonrpc":"2.0","id":42,"result":{"structuredContent":{"rooms":3,"binding_moment":` + string(draft) + `}}}`), 1},
		{"meta", demo.MetaEnvelope(), 2},
	} {
		if _, err := Parse(tc.src); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { Parse(tc.src) }); n != tc.want {
			t.Errorf("%s: Parse allocates %v times per run, want %v", tc.name, n, tc.want)
		}
	}
}

// A Parser goes back to the pool without the strings locate decoded into
// its scratch Envelope (views of the caller's input when canon's View
// returns it), keeping only the backing of the slices.
func TestPutParserForgetsScratch(t *testing.T) {
	src := []byte(`{"binding_moment":` + string(bigEnvelope(t, 0)) + `}`)
	p := new(Parser)
	if _, err := p.Parse(src); err != nil || !p.fast.ok {
		t.Fatalf("Parse: %v, locate's decode %v", err, p.fast.ok)
	}
	if p.scratch.synopsis == "" || len(p.scratch.findings) == 0 {
		t.Fatal("locate did not decode into the scratch Envelope")
	}
	putParser(p)
	s := &p.scratch
	if s.synopsis != "" || s.offer != "" || s.stem != "" || len(s.findings) != 0 || len(s.options) != 0 ||
		s.findings[:cap(s.findings)][0] != "" || s.options[:cap(s.options)][0].Label != "" || cap(s.findings) == 0 {
		t.Errorf("the pooled Parser keeps strings: %+v", *s)
	}
}
