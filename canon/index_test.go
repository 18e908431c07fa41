package canon

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// TestIndexBlocks compares every available implementation of the indexed
// fast path's block kernel with its model, indexBlocksGeneric, on random
// blocks of the bytes that matter to it (quotes, backslashes, the short
// escapes' letters, structural characters, controls, high bytes), chunk
// after chunk so that the carried state (inside a string, an escape over
// the block boundary, the offset) is compared too.
func TestIndexBlocks(t *testing.T) {
	alphabet := []byte("\"\\\\\\bfnrtu{}[]:,aA0 \x00\x1f\x7f\x80\xff")
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	impltest.ForEach(t, quickKernel, func(t *testing.T) {
		name := quickKernel.Active()
		if name == "walk" {
			t.Skip("the walk has no block kernel")
		}
		for trial := range 2000 {
			blocks := 1 + r.IntN(6)
			b := make([]byte, 64*blocks)
			dense := r.IntN(4) // 0: the alphabet only; more: mostly letters
			for i := range b {
				if dense == 0 || r.IntN(dense+1) == 0 {
					b[i] = alphabet[r.IntN(len(alphabet))]
				} else {
					b[i] = byte('a' + r.IntN(26))
				}
			}
			st0 := indexState{inStr: -uint64(r.IntN(2)), escNext: uint64(r.IntN(2)), base: uint64(64 * r.IntN(1000))}
			st0.escStr = st0.inStr & -uint64(r.IntN(2)) // only inside a string
			var want, got struct {
				st   indexState
				idx  []uint32
				high []uint64
			}
			for _, out := range []*struct {
				st   indexState
				idx  []uint32
				high []uint64
			}{&want, &got} {
				out.st = st0
				idx := make([]uint32, 64*blocks+64)
				out.high = make([]uint64, blocks)
				var n int
				for k := 0; k < blocks; { // in chunks of 1 to 3 blocks
					m := min(blocks-k, 1+r.IntN(3))
					if out == &want {
						n += indexBlocksGeneric(b[64*k:64*(k+m)], &out.st, idx[n:], out.high[k:])
					} else {
						n += indexBlocks(b[64*k:64*(k+m)], &out.st, idx[n:], out.high[k:])
					}
					k += m
				}
				out.idx = idx[:n]
			}
			if got.st != want.st || !slices.Equal(got.idx, want.idx) || !slices.Equal(got.high, want.high) {
				t.Fatalf("trial %d: %s on %q from %+v:\n got %+v\nwant %+v", trial, name, b, st0, got, want)
			}
		}
	})
}

// TestIndexStage1 checks stage 1's verdicts on small inputs whose answer
// is known: what it refuses, what it leaves to quickRun, and the offsets
// it lists.
func TestIndexStage1(t *testing.T) {
	impltest.ForEach(t, quickKernel, func(t *testing.T) {
		name := quickKernel.Active()
		if name == "walk" {
			t.Skip("the walk has no stage 1")
		}
		for _, tc := range []struct {
			in   string
			want int
			idx  []uint32 // when indexYes
		}{
			{`[{"":false},-1]`, indexYes, []uint32{0, 1, 2, 3, 4, 10, 11, 14, 15, 15, 15}},
			{`{"a\"b":"\\"}`, indexYes, []uint32{0, 1, 6 | indexEscaped, 7, 8, 11 | indexEscaped, 12, 13, 13, 13}},
			{`["\\","a",` + "\"" + strings.Repeat("x", 60) + `\n` + strings.Repeat("y", 70) + `"]`, indexYes,
				[]uint32{0, 1, 4 | indexEscaped, 5, 6, 8, 9, 10, 143 | indexEscaped, 144, 145, 145, 145}},
			{`"\u001f"`, indexUnsure, nil},
			{`"\/"`, indexUnsure, nil},
			{`"\q"`, indexUnsure, nil},
			{"\"a\x01\"", indexNo, nil},
			{"[1,\n2]", indexNo, nil},
			{`"abc`, indexNo, nil},
			{`"abc\"`, indexNo, nil},
			{`"abc\`, indexNo, nil},
			{`[\"a"]`, indexNo, nil},
			{"[\xc3\xa9]", indexNo, nil},
			{"\"\xc3\"", indexNo, nil},
			{"\"\xed\xa0\x80\"", indexNo, nil},
			{"\"\xc3\xa9\"", indexYes, []uint32{0, 3, 4, 4, 4}},
		} {
			var c Canonicalizer
			c.ix = new(indexer)
			c.src = []byte(tc.in)
			c.indexStart()
			got := indexYes
			for got == indexYes && !c.ix.done {
				got = c.indexMore(c.src)
			}
			if got == indexYes && c.ix.st.odd != 0 {
				got = indexUnsure // what stage 2 answers when it would accept
			}
			idx := c.ix.idx[:c.ix.avail]
			if got != tc.want || got == indexYes && !slices.Equal(idx, tc.idx) {
				t.Errorf("%s: index(%q) = %d, %v; want %d, %v", name, tc.in, got, idx, tc.want, tc.idx)
			}
		}
	})
}

// TestQuickIndexedLong checks the fast path on canonical documents of
// many chunks (the indexed pass classifies 4 KiB at a time, its state
// carried across) and past indexMaxInput (where the walk takes over),
// intact and damaged at random places, under each implementation.
func TestQuickIndexedLong(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 13))
	var c, e Canonicalizer
	c.Reset(RFC8785)
	e.Reset(RFC8785)
	damage := []string{" ", "\\", `"`, "\x01", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xbf", "\xed\xa0\x80", "}", ",", `\u0041`, `\/`, `\n`, "\xc3\xa9"}
	for _, size := range []int{5000, 20000, indexMaxInput + 1000} {
		doc := []byte("[")
		for len(doc) < size {
			if len(doc) > 1 {
				doc = append(doc, ',')
			}
			doc = append(doc, randomDoc(r, 1+r.IntN(5))...)
		}
		doc = append(doc, ']')
		out, err := e.appendEngine(nil, doc)
		if err != nil {
			t.Fatalf("a random document of %d bytes: %v", len(doc), err)
		}
		underEach(t, quickKernel, func() {
			if !checkQuick(t, &c, out) {
				t.Fatalf("fast path gives up on a canonical document of %d bytes", len(out))
			}
			for range 40 {
				k := r.IntN(len(out))
				d := damage[r.IntN(len(damage))]
				b := append(append(append([]byte(nil), out[:k]...), d...), out[k:]...)
				checkQuick(t, &c, b)
			}
			// Around the ends of the first chunks, where the pass carries
			// its state (a string, an escape, a UTF-8 sequence) across:
			// every damage inserted, and every byte replaced by it.
			for _, end := range []int{64 * indexFirst, 64 * (indexFirst + indexChunk), 64 * (indexFirst + 2*indexChunk)} {
				for k := end - 5; k <= end+4 && k < len(out); k++ {
					for _, d := range damage {
						b := append(append(append([]byte(nil), out[:k]...), d...), out[k:]...)
						checkQuick(t, &c, b)
						b = append(append(append([]byte(nil), out[:k]...), d...), out[k+1:]...)
						checkQuick(t, &c, b)
					}
				}
			}
		})
	}
}

// TestQuickAdaptive checks the adaptive kernel's choice: the walk checks
// the next input after the indexed pass accepted an ASCII input without
// escapes or refused one; the indexed pass checks it after the walk
// accepted walkSlowRun inputs in a row with an escape or a byte above
// 0x7F.
func TestQuickAdaptive(t *testing.T) {
	defer impltest.Select(t, quickKernel, "adaptive")()
	var c Canonicalizer
	steps := []struct {
		in         string
		canonical  bool
		preferWalk bool // after it
	}{
		{`{"a":[1,"x"],"b":null}`, true, true},               // indexed, accepted: ASCII, no escape
		{`{"a":"café"}`, true, true},                         // the walk accepted it, meeting a high byte: 1 in a row
		{`{"a":"x"}`, true, true},                            // the walk, ASCII: the row is broken
		{`{"a":"café"}`, true, true},                         // 1
		{`{"a":"x\ny"}`, true, true},                         // 2 (an escape)
		{`{"b":1,"a":2}`, false, true},                       // the walk refused it: the row is broken
		{`{"a":"café"}`, true, true},                         // 1
		{`{"a":"q\"uote"}`, true, true},                      // 2
		{`{"a":"é"}`, true, false},                           // 3: the index next
		{`{"a":"x\ny"}`, true, false},                        // indexed: an escape
		{`{"b":1,"a":2}`, false, true},                       // indexed, refused
		{`{"a":"caf\u00e9"}`, false, true},                   // the walk refused it
		{`{"a":1}`, true, true},                              // the walk
		{`["` + strings.Repeat("z", 300) + `"]`, true, true}, // the walk
	}
	for i, s := range steps {
		if got := checkQuick(t, &c, []byte(s.in)); got != s.canonical {
			t.Fatalf("step %d: fast path on %q: %v, want %v", i, s.in, got, s.canonical)
		}
		if c.ix == nil || c.ix.preferWalk != s.preferWalk {
			t.Fatalf("step %d (%q): preferWalk %v, want %v", i, s.in, c.ix != nil && c.ix.preferWalk, s.preferWalk)
		}
	}
}

// TestQuickUTF8AtChunkEnds checks the UTF-8 check of the indexed pass
// where a chunk ends: a sequence cut short by the chunk's last byte must
// be refused even when the next chunk is all ASCII (CI's fuzzing found
// one at offset 127, the end of the first chunk, that was accepted), and
// a sequence that runs across the chunk's end must be accepted.
func TestQuickUTF8AtChunkEnds(t *testing.T) {
	var c Canonicalizer
	c.Reset(RFC8785)
	seqs := []string{"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}
	for _, end := range []int{64 * indexFirst, 64 * (indexFirst + indexChunk), 64 * (indexFirst + 2*indexChunk)} {
		for _, s := range seqs {
			for cut := 0; cut <= len(s); cut++ { // cut == len(s): intact
				for shift := 0; shift <= len(s); shift++ {
					// The string's body ends with s[:cut] at end-1-shift+cut.
					pre := end - shift - 3 // `["` and the body up to s
					if pre < 2 {
						continue
					}
					doc := []byte(`["` + strings.Repeat("a", pre-2) + s[:cut] + `"` + "," + `"` + strings.Repeat("b", 2*64*indexChunk) + `"]`)
					want := cut == 0 || cut == len(s)
					underEach(t, quickKernel, func() {
						got := c.quickCanonical(doc)
						c.end()
						if want && !got {
							t.Errorf("%s: the fast path refuses canonical input with %q ending at %d", quickKernel.Active(), s[:cut], pre+cut)
						}
						if !want && got {
							t.Errorf("%s: the fast path accepts %q cut short at %d", quickKernel.Active(), s[:cut], pre+cut)
						}
					})
				}
			}
		}
	}
}

// TestQuickEscapedNameOrder checks that a name with an escape is compared
// decoded wherever its backslash and its quotes fall among the blocks:
// {"A…":1,"\"…":2} is ordered by the raw bytes ('A' < '\\') but not by
// the decoded ones ('"' < 'A'), so it is not canonical, and the indexed
// pass must leave the name to quickRun (the flag on its closing quote,
// carried across blocks when the string is) rather than compare it raw;
// the same members the other way round are canonical.
func TestQuickEscapedNameOrder(t *testing.T) {
	var c Canonicalizer
	c.Reset(RFC8785)
	underEach(t, quickKernel, func() {
		for l1 := range 140 {
			for _, l2 := range []int{0, 60, 130} {
				a := `"A` + strings.Repeat("x", l1) + `":1`
				q := `"\"` + strings.Repeat("z", l2) + `":2`
				if c.quickCanonical([]byte("{" + a + "," + q + "}")) {
					t.Fatalf("%s: accepts {%s,%s}, whose names are out of order once decoded", quickKernel.Active(), a, q)
				}
				c.end()
				if !checkQuick(t, &c, []byte("{"+q+","+a+"}")) {
					t.Fatalf("%s: refuses the canonical {%s,%s}", quickKernel.Active(), q, a)
				}
			}
		}
	})
}
