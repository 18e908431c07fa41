package jsonread_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// benchDocs are the documents of the reader's users, in canonical form:
// the §6.4 envelope (envelope), the demo's MCP tool call (act), and the
// records of the claims archive that canon accepts (archive verify), as
// written.
func benchDocs(tb testing.TB) []struct {
	name string
	docs [][]byte
} {
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	canonical := func(b []byte) []byte {
		c, err := canon.Canonicalize(b, canon.RFC8785)
		if err != nil {
			tb.Fatal(err)
		}
		return c
	}
	var claims [][]byte
	for _, line := range bytes.Split(read("../../testdata/archive/claims.jsonl"), []byte("\n")) {
		if line = bytes.TrimSpace(line); canon.Validate(line, canon.RFC8785) == nil {
			claims = append(claims, line)
		}
	}
	return []struct {
		name string
		docs [][]byte
	}{
		{"envelope", [][]byte{canonical(demo.DraftEnvelope())}},
		{"act", [][]byte{canonical(demo.ToolCall())}},
		{"claims", claims},
	}
}

// BenchmarkSkipValue skips each document whole, as archive verify skips
// doc and act and envelope skip the values they do not read.
func BenchmarkSkipValue(b *testing.B) {
	for _, in := range benchDocs(b) {
		b.Run("input="+in.name, func(b *testing.B) {
			n := 0
			for _, d := range in.docs {
				n += len(d)
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range in.docs {
					if jsonread.SkipValue(d, 0) != len(d) {
						b.Fatal("SkipValue does not end at the end")
					}
				}
			}
		})
	}
}

// BenchmarkWalk walks each canonical document with Iter, every object and
// array, and decodes every string into one reused buffer: what act and
// envelope do to a document they read whole.
func BenchmarkWalk(b *testing.B) {
	for _, in := range benchDocs(b)[:2] {
		b.Run("input="+in.name, func(b *testing.B) {
			d := in.docs[0]
			var buf []byte
			b.SetBytes(int64(len(d)))
			b.ReportAllocs()
			for b.Loop() {
				if end := walkAll(d, 0, &buf); end != len(d) {
					b.Fatalf("the walk ends at %d, not %d", end, len(d))
				}
			}
		})
	}
}

// walkAll reads the canonical value at d[i] whole and returns its end.
func walkAll(d []byte, i int, buf *[]byte) int {
	switch d[i] {
	case '"':
		var end int
		*buf, end = jsonread.AppendUnquote((*buf)[:0], d, i)
		return end
	case '{', '[':
	default:
		return jsonread.SkipValue(d, i)
	}
	object := d[i] == '{'
	it := jsonread.Array(d, i)
	if object {
		it = jsonread.Object(d, i)
	}
	for object && it.Next() || !object && it.Elem() {
		it.SetValueEnd(walkAll(d, it.ValueStart(), buf))
	}
	return it.Close()
}

// TestBenchmarkWalk runs the walk of BenchmarkWalk once on each document:
// it must read each whole.
func TestBenchmarkWalk(t *testing.T) {
	for _, in := range benchDocs(t) {
		for _, d := range in.docs {
			var buf []byte
			if d[0] != '{' && d[0] != '[' {
				continue
			}
			c, err := canon.Canonicalize(d, canon.RFC8785)
			if err != nil {
				t.Fatal(err)
			}
			if end := walkAll(c, 0, &buf); end != len(c) {
				t.Errorf("%s: the walk of %.40q ends at %d, not %d", in.name, c, end, len(c))
			}
		}
	}
}
