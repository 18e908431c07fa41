package archive

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLinesReader checks the reader --resume gives batch for the lines
// it checks: exactly the next k lines (the "\n" of the k-th included, a
// last line without one when the input ends there), fewer when the
// input or the shard's range (hi) ends first, read whole or a byte at a
// time; and that the reader of the rest then starts right after them.
func TestLinesReader(t *testing.T) {
	const input = "[1]\n\n{\"a\":[2,3]}\n[4]\n  [5] \n[6]"
	starts := []int{0, 4, 5, 17, 21, 28} // the start of each line
	for _, hi := range []int64{-1, 0, 3, 5, 18, int64(len(input)), 100} {
		for k := int64(-1); k <= int64(len(starts))+1; k++ {
			for _, oneByte := range []bool{false, true} {
				// The lines that start before hi, then at most k of them.
				end := len(input)
				if hi >= 0 {
					for _, s := range starts {
						if int64(s) >= hi {
							end = s
							break
						}
					}
				}
				if k >= 0 && k < int64(len(starts)) && starts[k] < end {
					end = starts[k]
				}
				s := newLineStream(strings.NewReader(input), true)
				var r io.Reader = s.linesReader(k, hi)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				got, err := io.ReadAll(r)
				if err != nil || string(got) != input[:end] || s.pos != int64(end) {
					t.Fatalf("k %d, hi %d, one byte %v: read %q (%v), at %d; want %q", k, hi, oneByte, got, err, s.pos, input[:end])
				}
				rest, err := io.ReadAll(s.reader(-1))
				if err != nil || !bytes.Equal(append(got, rest...), []byte(input)) {
					t.Fatalf("k %d, hi %d: the rest is %q (%v)", k, hi, rest, err)
				}
				s.release()
			}
		}
	}
}
