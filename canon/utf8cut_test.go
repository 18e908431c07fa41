package canon

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl"
	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// TestUTF8CutEverywhere puts a UTF-8 sequence, whole or cut short, at
// every offset of the first blocks and around the block boundaries where
// canon's passes carry state from one piece of input to the next (the
// classification window, winWords blocks; the indexed pass's first chunk
// and the chunks after it), in a string value and in a name, followed by
// a long ASCII string (so that the next piece has no high byte of its
// own). A whole sequence must be accepted, the input being canonical; a
// cut one refused with invalid-utf8 at its first byte, by the quick path
// (canonical input) and by the engine (the same input after a space),
// under every implementation of every kernel. CI's fuzzing found the
// indexed pass accepting a sequence cut short at the end of its first
// chunk when the next chunk was all ASCII.
func TestUTF8CutEverywhere(t *testing.T) {
	var offsets []int
	for p := 2; p < 300; p++ {
		offsets = append(offsets, p)
	}
	const window = 4096 // a classWindow's span on amd64 (64*winWords)
	for _, b := range []int{window, 64 * (indexFirst + indexChunk), 2 * window, 64 * (indexFirst + 2*indexChunk)} {
		for p := b - 6; p <= b+6; p++ {
			offsets = append(offsets, p)
		}
	}
	tail := strings.Repeat("b", 300)
	type doc struct {
		in     []byte
		leader int // offset of the cut sequence's first byte; -1 if whole
	}
	var docs []doc
	for _, s := range []string{"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xf4\x8f\xbf\xbf"} {
		for cut := 1; cut <= len(s); cut++ {
			for _, end := range offsets { // the sequence's last byte at end-1
				for _, name := range []bool{false, true} {
					open, pad := `["`, end-cut-2
					if name {
						open = `{"`
					}
					if pad < 0 {
						continue
					}
					body := strings.Repeat("a", pad) + s[:cut]
					var in string
					if name {
						in = open + body + `":"` + tail + `"}`
					} else {
						in = open + body + `","` + tail + `"]`
					}
					leader := -1
					if cut < len(s) {
						leader = len(open) + pad
					}
					docs = append(docs, doc{[]byte(in), leader})
				}
			}
		}
	}
	for _, k := range []*impl.Kernel{utf8Kernel, quickKernel, classifyKernel, minifyKernel} {
		t.Run(k.Name, func(t *testing.T) {
			impltest.ForEach(t, k, func(t *testing.T) {
				var c Canonicalizer
				c.Reset(RFC8785)
				for _, d := range docs {
					for shift, in := range [][]byte{d.in, append([]byte(" "), d.in...)} {
						if c.ix != nil { // the adaptive kernel tries the index first
							c.ix.preferWalk, c.ix.slowRun = false, 0
						}
						out, err := c.View(in)
						if d.leader < 0 {
							if err != nil || string(out) != string(d.in) {
								t.Fatalf("View(%s) = %d bytes, %v; want the input back", short(in), len(out), err)
							}
							continue
						}
						var ce *Error
						if !errors.As(err, &ce) || ce.Class != ClassInvalidUTF8 || ce.Offset != int64(d.leader+shift) {
							t.Fatalf("View(%s) = %d bytes, %v; want invalid-utf8 at offset %d", short(in), len(out), err, d.leader+shift)
						}
					}
				}
			})
		})
	}
}

// short describes a long input by its length and the bytes around its
// first byte above 0x7F.
func short(in []byte) string {
	i := strings.IndexFunc(string(in), func(r rune) bool { return r > 0x7f })
	if i < 0 {
		return fmt.Sprintf("%d bytes", len(in))
	}
	return fmt.Sprintf("%d bytes, %q at %d", len(in), in[max(i-4, 0):min(i+8, len(in))], max(i-4, 0))
}
