// Command linefilter is the baseline of the whole-process benchmark of
// "bbdigest digest --lines" (BenchmarkLinesProcess in package bench): the
// simplest line filter a Go programmer would write with the peers, on one
// goroutine. It reads JSON Lines from stdin, canonicalizes each line with
// github.com/go-json-experiment/json/jsontext (Value.Canonicalize, RFC
// 8785), hashes the result with crypto/sha256 and prints "sha256:<hex>"
// per line, as bbdigest digest --lines does for accepted lines. A line
// jsontext rejects is answered "error <message>" and makes the exit code 1.
//
//	go -C bench run ./linefilter < archive.jsonl > digests.txt
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/go-json-experiment/json/jsontext"
)

func main() {
	code, err := filter(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "linefilter:", err)
		code = 2
	}
	os.Exit(code)
}

// filter answers every line of r on w and returns the exit code: 0 when
// every line was canonicalized, 1 when some was rejected.
func filter(r io.Reader, w io.Writer) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	code := 0
	var buf, out []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // a line longer than the buffer
			buf = append(buf[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if err != nil && err != io.EOF {
			return 2, err
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		// Canonicalize works in place: on a copy, not in the read buffer.
		v := jsontext.Value(append(buf[:0], line...))
		if cerr := v.Canonicalize(); cerr != nil {
			code = 1
			out = append(append(out[:0], "error "...), cerr.Error()...)
		} else {
			sum := sha256.Sum256(v)
			out = hex.AppendEncode(append(out[:0], "sha256:"...), sum[:])
		}
		buf = v
		if _, werr := bw.Write(append(out, '\n')); werr != nil {
			return 2, werr
		}
		if err == io.EOF {
			break
		}
	}
	return code, bw.Flush()
}
