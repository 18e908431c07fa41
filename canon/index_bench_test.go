package canon

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// indexBenchDoc returns a canonical document of at least n bytes shaped
// like an archive of envelopes: an array of objects of 4-12 members whose
// values are mostly strings of 8-100 characters, some with an escape or
// non-ASCII text, and small integers.
func indexBenchDoc(b *testing.B, n int) []byte {
	r := rand.New(rand.NewPCG(7, 7))
	words := []string{"rooms", "available", "book", "the", "hotel", "in", "Zürich", "für", "zwei", "Nächte", "東京", "予約", "price", `\"quoted\"`, `line\nbreak`, "€", "ok"}
	var e Canonicalizer
	e.Reset(RFC8785)
	doc := []byte("[")
	for {
		if len(doc) > 1 {
			doc = append(doc, ',')
		}
		doc = append(doc, '{')
		for m := range 4 + r.IntN(9) {
			if m > 0 {
				doc = append(doc, ',')
			}
			doc = append(doc, `"member_`...)
			doc = strconv.AppendInt(doc, int64(m), 10)
			doc = append(doc, `":`...)
			if r.IntN(4) == 0 {
				doc = strconv.AppendInt(doc, r.Int64N(100000), 10)
				continue
			}
			doc = append(doc, '"')
			for k := 8 + r.IntN(92); k > 0; k -= 6 {
				doc = append(append(doc, words[r.IntN(len(words))]...), ' ')
			}
			doc = append(doc, '"')
		}
		doc = append(doc, '}')
		out, err := e.Append(nil, append(doc, ']'))
		if err != nil {
			b.Fatal(err)
		}
		if len(out) >= n {
			return out
		}
	}
}

// BenchmarkIndexBlocks measures stage 1 of the indexed pass alone
// (indexBlocks over a chunk of indexChunk blocks of canonical text), under
// each implementation: ns per 64-byte block is ns/op ÷ indexChunk.
func BenchmarkIndexBlocks(b *testing.B) {
	doc := indexBenchDoc(b, 64*indexChunk)[:64*indexChunk]
	var ix indexer
	impltest.ForEachB(b, quickKernel, func(b *testing.B) {
		if !useQuickIndex {
			b.Skip("no stage 1")
		}
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			ix.st = indexState{}
			indexBlocks(doc, &ix.st, ix.idx[:], ix.high[:])
		}
	})
}

// BenchmarkQuickCanonical measures the canonical check of a canonical
// document of each size (quickCanonical: the walk, or the indexed pass
// with its UTF-8 check), under each implementation of the quick kernel.
func BenchmarkQuickCanonical(b *testing.B) {
	for _, size := range []int{1500, 16000} {
		doc := indexBenchDoc(b, size)
		b.Run("size="+strconv.Itoa(size), func(b *testing.B) {
			impltest.ForEachB(b, quickKernel, func(b *testing.B) {
				var c Canonicalizer
				c.Reset(RFC8785)
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					if !c.quickCanonical(doc) {
						b.Fatal("not canonical")
					}
					c.end()
				}
			})
		})
	}
}
