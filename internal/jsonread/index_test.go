package jsonread

import (
	"math/rand/v2"
	"testing"
)

// indexPath is one implementation of indexQuoteOrBackslash: the generic
// one (every platform without a kernel), the platform's default, or a
// kernel forced until the test ends.
type indexPath struct {
	name  string
	index func([]byte) int
	force func(*testing.T) // nil: nothing to force
}

// indexPaths are the implementations of indexQuoteOrBackslash this
// platform has.
func indexPaths() []indexPath {
	paths := []indexPath{
		{"generic", indexQuoteOrBackslashGeneric, nil},
		{"default", indexQuoteOrBackslash, nil},
	}
	for _, k := range indexKernels() {
		paths = append(paths, indexPath{k, indexQuoteOrBackslash, func(t *testing.T) { forceIndex(t, k) }})
	}
	return paths
}

// naiveIndex is indexQuoteOrBackslash one byte at a time.
func naiveIndex(b []byte) int {
	for i, c := range b {
		if c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}

// naiveSkip is SkipString as the lexical rule says it: the first quote
// after i that an even number of backslashes precedes.
func naiveSkip(b []byte, i int) int {
	if i < 0 || i >= len(b) || b[i] != '"' {
		return -1
	}
	for j := i + 1; j < len(b); j++ {
		if b[j] != '"' {
			continue
		}
		n := 0
		for m := j - 1; m > i && b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
	}
	return -1
}

// randomText returns n bytes where a quote or a backslash is rare, common
// or absent, by density (out of 256).
func randomText(r *rand.Rand, n, density int) []byte {
	b := make([]byte, n)
	for i := range b {
		switch x := r.IntN(256); {
		case x < density/2:
			b[i] = '"'
		case x < density:
			b[i] = '\\'
		default:
			b[i] = byte(r.IntN(256))
			if b[i] == '"' || b[i] == '\\' {
				b[i] = 'x'
			}
		}
	}
	return b
}

// TestIndexQuoteOrBackslash holds every path to a byte-at-a-time search,
// on every length to 200 and every start within a 32-byte step (so that
// each length ends at every position of the kernels' last, overlapping
// loads), and with the match at each position of short inputs.
func TestIndexQuoteOrBackslash(t *testing.T) {
	for _, p := range indexPaths() {
		t.Run(p.name, func(t *testing.T) {
			if p.force != nil {
				p.force(t)
			}
			r := rand.New(rand.NewPCG(1, 2))
			for n := 0; n <= 200; n++ {
				for _, density := range []int{0, 1, 8, 64} {
					buf := randomText(r, n+32, density)
					for off := range 32 {
						b := buf[off : off+n]
						if got, want := p.index(b), naiveIndex(b); got != want {
							t.Fatalf("n=%d density=%d off=%d: got %d, want %d in %q", n, density, off, got, want, b)
						}
					}
				}
			}
			for n := 1; n <= 80; n++ {
				for at := range n {
					for _, c := range []byte{'"', '\\'} {
						b := make([]byte, n)
						for i := range b {
							b[i] = 'a'
						}
						b[at] = c
						if got := p.index(b); got != at {
							t.Fatalf("n=%d, %q at %d: got %d", n, c, at, got)
						}
						// A match just past the slice is not seen.
						if got := p.index(b[:at]); got != -1 {
							t.Fatalf("n=%d, %q at %d, cut before it: got %d", n, c, at, got)
						}
					}
				}
			}
		})
	}
}

// TestSkipStringVsNaive holds SkipString and StringEnd, with every kernel
// of indexQuoteOrBackslash (the generic path under purego and off amd64),
// to the lexical rule, on random strings thick with quotes and
// backslashes (runs of backslashes of every parity before a quote).
func TestSkipStringVsNaive(t *testing.T) {
	for _, p := range indexPaths()[1:] {
		t.Run(p.name, func(t *testing.T) {
			if p.force != nil {
				p.force(t)
			}
			r := rand.New(rand.NewPCG(3, 4))
			for range 20000 {
				n := r.IntN(120)
				b := append([]byte{'"'}, randomText(r, n, []int{2, 16, 96}[r.IntN(3)])...)
				want := naiveSkip(b, 0)
				if got := SkipString(b, 0); got != want {
					t.Fatalf("SkipString(%q) = %d, want %d", b, got, want)
				}
				end, plain := StringEnd(b, 0)
				if end != want {
					t.Fatalf("StringEnd(%q) = %d, want %d", b, end, want)
				}
				wantPlain := want >= 0 && naiveIndex(b[1:want-1]) < 0
				if plain != wantPlain {
					t.Fatalf("StringEnd(%q): plain %v, want %v", b, plain, wantPlain)
				}
			}
		})
	}
}
