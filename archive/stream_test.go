package archive

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bbdigest/bbdigest/hashing"
)

// rangeEnd returns where the bytes a linesReader(k, hi) gives end, in an
// input of n bytes whose lines start at starts: after the lines that
// start before hi (hi < 0: all of them), then at most k of them (k < 0:
// no limit).
func rangeEnd(starts []int, n int, hi, k int64) int {
	end := n
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
	return end
}

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
				end := rangeEnd(starts, len(input), hi, k)
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

// TestRangeReaderDirect checks the reads that go straight into the
// caller's buffer (at least directRead bytes, with the stream's buffer
// empty) against the range they must give: the lines that start before
// hi, at most k of them, each read of a stream with a mark ending at a
// line boundary when it holds one; whatever the input's reads return,
// the stream's position, line count and hash then agree with the bytes
// given, and the rest of the input follows them.
func TestRangeReaderDirect(t *testing.T) {
	var in bytes.Buffer
	var starts []int
	for i := 0; in.Len() < 3*lineStreamBuf; i++ {
		starts = append(starts, in.Len())
		in.WriteString(`{"n":`)
		in.WriteString(strings.Repeat("7", 1+i*7919%9000))
		in.WriteString("}\n")
	}
	input := in.Bytes()
	wrap := map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r },
		"half":  iotest.HalfReader,
		"err":   iotest.DataErrReader,
	}
	for _, hi := range []int64{-1, 0, 1, 5000, lineStreamBuf - 3, lineStreamBuf + 17, int64(len(input)) - 1} {
		for _, k := range []int64{-1, 1, 40, 1 << 20} {
			for name, w := range wrap {
				for _, marked := range []bool{false, true} {
					for _, size := range []int{directRead, 64 << 10, lineStreamBuf, 2 * lineStreamBuf} {
						end := rangeEnd(starts, len(input), hi, k)
						s := newLineStream(w(bytes.NewReader(input)), true)
						marks := 0
						if marked {
							s.mark = func() { marks++ }
						}
						r := s.linesReader(k, hi)
						var got []byte
						buf := make([]byte, size)
						for {
							n, err := r.Read(buf)
							chunk := buf[:n]
							if marked && n > 0 && chunk[n-1] != '\n' && bytes.IndexByte(chunk, '\n') >= 0 {
								t.Fatalf("hi %d k %d %s size %d: a marked read ends inside a line after a boundary: %q", hi, k, name, size, chunk[max(0, n-20):])
							}
							got = append(got, chunk...)
							if err == io.EOF {
								break
							}
							if err != nil {
								t.Fatal(err)
							}
						}
						what := fmt.Sprintf("hi %d k %d %s marked %v size %d", hi, k, name, marked, size)
						if !bytes.Equal(got, input[:end]) {
							t.Fatalf("%s: read %d bytes, want the first %d", what, len(got), end)
						}
						if s.pos != int64(end) || s.newlines != int64(bytes.Count(input[:end], []byte{'\n'})) {
							t.Fatalf("%s: at %d after %d newlines, want %d", what, s.pos, s.newlines, end)
						}
						if want := sha256.Sum256(input[:end]); s.sum() != hashing.Digest(want) {
							t.Fatalf("%s: the stream's hash is not that of the bytes given", what)
						}
						rest, err := io.ReadAll(s.reader(-1))
						if err != nil || !bytes.Equal(rest, input[end:]) {
							t.Fatalf("%s: the rest is %d bytes (%v), want %d", what, len(rest), err, len(input)-end)
						}
						s.release()
					}
				}
			}
		}
	}
}
