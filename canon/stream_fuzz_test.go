package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bbdigest/bbdigest/internal/shortread"
)

// conformanceSeeds adds the inputs of the shared conformance vectors (the
// RFC 8785 reference inputs and the EP canonicalization suite) to a fuzz
// target's corpus, when ../shared is there (TestRFC8785Vectors and
// TestEPCanonicalizationVectors require it on CI).
func conformanceSeeds(f *testing.F, add func(in []byte)) {
	dir := filepath.Join("..", "..", "shared", "conformance")
	inputs, _ := filepath.Glob(filepath.Join(dir, "rfc8785", "input", "*.json"))
	for _, name := range inputs {
		if b, err := os.ReadFile(name); err == nil {
			add(b)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "ep", "ep-canonicalization.v1.json"))
	if err != nil {
		return
	}
	var suite struct {
		Vectors []epVector `json:"vectors"`
	}
	if err := json.Unmarshal(b, &suite); err != nil {
		f.Fatalf("ep-canonicalization.v1.json: %v", err)
	}
	for _, v := range suite.Vectors {
		add([]byte(v.Canonicalization.InputJSON))
	}
}

// tableSeeds adds the inputs of the unit tables, as seedCorpus does for
// targets of one argument.
func tableSeeds(add func(in []byte)) {
	for _, tc := range acceptCases {
		add([]byte(tc.in))
	}
	for _, tc := range rejectCases {
		add([]byte(tc.prefix + tc.rest))
	}
	add([]byte(example64Envelope))
}

// FuzzTranscode holds the streaming entry point to the whole-buffer one:
// Transcode over a reader that returns arbitrary short reads (boundaries
// inside multi-byte characters, escapes and numbers) writes exactly the
// bytes Canonicalize gives for the whole input, or fails with the same
// error (sameError: class, offset, pointer and message); under both profiles, and under a size bound
// from the input (so that too-large is reached on both paths). One
// Canonicalizer serves every call, as its buffers are reused.
func FuzzTranscode(f *testing.F) {
	add := func(in []byte) { f.Add(in, []byte{0, 3, 0x81, 7}, byte(0), false) }
	tableSeeds(add)
	conformanceSeeds(f, add)
	add([]byte(`{"é":"\u00e9😀","a":[1e21,-0.0,"\ud83d\ude00"]}`))
	f.Add([]byte(`{"b":"東京","a":"\u20ac"}`), []byte{1, 2}, byte(9), true)
	f.Add([]byte(`[1,2,3,4,5,6,7,8,9]`), []byte{0x8f}, byte(12), false)
	var c Canonicalizer
	f.Fuzz(func(t *testing.T, in, sizes []byte, limit byte, rfc bool) {
		p := Strict
		if rfc {
			p = RFC8785
		}
		if limit != 0 {
			var err error
			if p, err = p.WithMaxSize(int(limit)); err != nil {
				t.Fatal(err)
			}
		}
		want, wantErr := Canonicalize(in, p)
		c.Reset(p)
		var out bytes.Buffer
		err := c.Transcode(&out, shortread.New(in, sizes))
		if !sameError(err, wantErr) {
			t.Fatalf("%q (%v) in reads of %v: Transcode: %v; Canonicalize: %v", in, p, sizes, err, wantErr)
		}
		if err == nil && !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%q (%v) in reads of %v: Transcode writes %q; Canonicalize gives %q", in, p, sizes, out.Bytes(), want)
		}
	})
}

// spaced returns in with whitespace inserted at token boundaries outside
// strings: at the start and the end, and beside every structural
// character ({ } [ ] : ,), string quote and whitespace byte. Each boundary
// takes the next byte of ws in turn: 0 mod 5 inserts nothing, and the
// others one to three of space, tab, "\n" or "\r". Whitespace there is
// insignificant (RFC 8259, section 2), so no answer may change but for
// offsets. Nothing is inserted within a token (a number, a literal, a
// string), nor after an input's last, unterminated, string begins.
func spaced(in, ws []byte) []byte {
	if len(ws) == 0 {
		ws = []byte{1}
	}
	k := 0
	out := make([]byte, 0, 2*len(in)+4)
	insert := func() {
		b := ws[k%len(ws)]
		k++
		if b%5 == 0 {
			return
		}
		for range int(b>>4)%3 + 1 {
			out = append(out, " \t\n\r"[b%4])
		}
	}
	boundary := func(b byte) bool {
		switch b {
		case '{', '}', '[', ']', ':', ',', '"', ' ', '\t', '\n', '\r':
			return true
		}
		return false
	}
	inString := false
	for i := 0; i <= len(in); i++ {
		if !inString && (i == 0 || i == len(in) || boundary(in[i-1]) || boundary(in[i])) {
			insert()
		}
		if i == len(in) {
			break
		}
		b := in[i]
		out = append(out, b)
		switch {
		case inString && b == '\\' && i+1 < len(in):
			i++
			out = append(out, in[i])
		case b == '"':
			inString = !inString
		}
	}
	return out
}

// FuzzWhitespace checks that whitespace between tokens changes nothing
// but offsets: under both profiles, the input with whitespace inserted at
// token boundaries (spaced) is accepted with the same canonical form, or
// rejected with the same class and pointer. This holds the compaction
// pass (minify.go), which maps its errors back to the input, and the
// canonical fast path, which gives up on whitespace, to the engine.
func FuzzWhitespace(f *testing.F) {
	add := func(in []byte) { f.Add(in, []byte{1, 0, 0x12, 3, 0x24, 4}) }
	tableSeeds(add)
	conformanceSeeds(f, add)
	add([]byte(`{"a":[1,{"b":"x"}],"a":2}`))
	add([]byte(`[1,2,`))
	add([]byte("[\"\\ud800\", 1.5]"))
	var strict, rfc Canonicalizer
	rfc.Reset(RFC8785)
	f.Fuzz(func(t *testing.T, in, ws []byte) {
		sp := spaced(in, ws)
		for _, c := range []*Canonicalizer{&strict, &rfc} {
			want, wantErr := c.Append(nil, in)
			got, err := c.Append(nil, sp)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("%v: %q gives %v; with whitespace, %q gives %v", c.Profile(), in, wantErr, sp, err)
			}
			if err == nil {
				if !bytes.Equal(got, want) {
					t.Fatalf("%v: %q gives %q; with whitespace, %q gives %q", c.Profile(), in, want, sp, got)
				}
				continue
			}
			e, ok1 := errors.AsType[*Error](err)
			w, ok2 := errors.AsType[*Error](wantErr)
			if !ok1 || !ok2 || e.Class != w.Class || e.Pointer != w.Pointer {
				t.Fatalf("%v: %q gives %v; with whitespace, %q gives %v", c.Profile(), in, wantErr, sp, err)
			}
		}
	})
}
