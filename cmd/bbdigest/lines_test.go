package main

import (
	"github.com/bbdigest/bbdigest/internal/inerttest"
	"github.com/bbdigest/bbdigest/internal/race"

	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/perline"
)

// runLines runs cmd --lines, with more flags if any, over input with the
// size bound lowered to maxSize (0: the profile's) and returns stdout and
// the exit code.
func runLines(t *testing.T, cmd string, maxSize int, input io.Reader, flags ...string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: input, stdout: &stdout, stderr: &stderr, maxSize: maxSize}
	code := c.main(append([]string{cmd, "--lines"}, flags...))
	if stderr.Len() > 0 {
		t.Errorf("stderr: %q", stderr.String())
	}
	return stdout.String(), code
}

// bigArray returns a JSON array of n elements written with extra spaces, and
// its canonical form.
func bigArray(n int) (src, canonical string) {
	var s, c strings.Builder
	s.WriteString("[ ")
	c.WriteString("[")
	for i := range n {
		if i > 0 {
			s.WriteString(" , ")
			c.WriteString(",")
		}
		fmt.Fprintf(&s, "%d", i)
		fmt.Fprintf(&c, "%d", i)
	}
	s.WriteString(" ]")
	c.WriteString("]")
	return s.String(), c.String()
}

func TestLinesLong(t *testing.T) {
	// Lines longer than a block of the pipeline, with and without a final
	// newline, between short ones.
	src, want := bigArray(100_000) // about 790 KB
	if len(src) <= 2*batch.DefaultBlockSize {
		t.Fatalf("test line of %d bytes is too short", len(src))
	}
	input := "[1]\n" + src + "\r\n" + "[2]\n" + src
	wantOut := "[1]\n" + want + "\n[2]\n" + want + "\n"
	readers := map[string]func() io.Reader{
		"plain":    func() io.Reader { return strings.NewReader(input) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(input)) },
		"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(input)) },
	}
	for name, r := range readers {
		out, code := runLines(t, "canon", 0, r())
		if code != exitOK || out != wantOut {
			t.Errorf("%s: exit code %d, output of %d bytes; want 0 and %d bytes", name, code, len(out), len(wantOut))
		}
	}
	out, code := runLines(t, "digest", 0, strings.NewReader(input))
	if wantOut := "sha256:" + "[1]"; code != exitOK || out != sha("[1]")+"\n"+sha(want)+"\n"+sha("[2]")+"\n"+sha(want)+"\n" {
		t.Errorf("digest: exit code %d, output %q (%s...)", code, out, wantOut)
	}
}

func TestLinesTooLarge(t *testing.T) {
	const bound = 100
	tooLarge := fmt.Sprintf("error too-large %d line longer than the %d-byte bound within \"\"\n", bound, bound)
	fits := "[" + strings.Repeat(" ", bound-2) + "]"                  // exactly the bound
	over := "[" + strings.Repeat(" ", bound-1) + "]"                  // one byte over
	huge := "[" + strings.Repeat(" ", 3*batch.DefaultBlockSize) + "]" // over, and longer than a block
	for _, tt := range []struct {
		name, input, want string
		code              int
	}{
		{"fits", fits + "\n", "[]\n", exitOK},
		{"fits with CR", fits + "\r\n", tooLarge, exitRejected}, // the "\r" is part of the line
		{"over", over + "\n[1]\n", tooLarge + "[1]\n", exitRejected},
		{"over at end", "[1]\n" + over, "[1]\n" + tooLarge, exitRejected},
		{"huge", huge + "\n[1]\n" + huge + "\n", tooLarge + "[1]\n" + tooLarge, exitRejected},
		{"huge at end", "[1]\n" + huge, "[1]\n" + tooLarge, exitRejected},
	} {
		for _, r := range []io.Reader{strings.NewReader(tt.input), iotest.HalfReader(strings.NewReader(tt.input))} {
			out, code := runLines(t, "canon", bound, r)
			if code != tt.code || out != tt.want {
				t.Errorf("%s: exit code %d, output %q; want %d, %q", tt.name, code, out, tt.code, tt.want)
			}
		}
	}
}

// spaces is an endless reader of spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestLinesDefaultBound(t *testing.T) {
	// The bound of a line is the profile's (TestLinesTooLarge lowers it
	// through the profile); this checks the default one.
	if os.Getenv("BBDIGEST_BIG_TESTS") == "" || testing.Short() {
		t.Skip("reads a 256 MiB line, holding it up to the bound (about 270 MB of memory); set BBDIGEST_BIG_TESTS=1 to run")
	}
	// A line one byte over the 256 MiB bound, then a short one.
	n := canon.DefaultMaxSize + 1
	input := io.MultiReader(strings.NewReader("1"), io.LimitReader(spaces{}, int64(n-1)), strings.NewReader("\n[2]\n"))
	out, code := runLines(t, "digest", 0, input)
	want := fmt.Sprintf("error too-large %d line longer than the %d-byte bound within \"\"\n", n-1, n-1) + sha("[2]") + "\n"
	if code != exitRejected || out != want {
		t.Errorf("exit code %d, output %q; want %d, %q", code, out, exitRejected, want)
	}
}

// TestLinesAllocs checks that --lines makes no allocation per accepted
// line once warm, with one worker and with two: a run of 5x the lines
// allocates no more than a run of x lines (20 blocks more), but for a few
// allocations of the blocks and workers a run starts afresh when the
// garbage collector has emptied batch's pools.
func TestLinesAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("under the race detector sync.Pool drops what is put into it at random")
	}
	docs := []string{
		`{"b":[1,2,{"y":null,"x":"\u00e9"}],"a":true}`,
		testFiles["lines.jsonl"][:14],
		"[1 ,\t2]\r",
		`{"a":"already canonical"}`,
	}
	input := func(n int) []byte {
		var b []byte
		for i := range n {
			b = append(append(b, docs[i%len(docs)]...), '\n')
		}
		return b
	}
	const n = 20_000 // lines, some 5 blocks of the pipeline
	small, large := input(n), input(5*n)
	for _, cmd := range []string{"canon", "digest"} {
		for _, workers := range []string{"1", "2"} {
			allocs := func(in []byte) float64 {
				return testing.AllocsPerRun(5, func() {
					if code := run([]string{cmd, "--lines", "--workers", workers}, bytes.NewReader(in), io.Discard, io.Discard); code != exitOK {
						t.Fatalf("exit code %d", code)
					}
				})
			}
			a, b := allocs(small), allocs(large)
			t.Logf("%s --workers %s: %v allocations for %d lines, %v for %d", cmd, workers, a, n, b, 5*n)
			if b-a > 12 { // one allocation per block would make 20 more
				t.Errorf("%s --workers %s: %v allocations for %d lines, %v for %d: %.4f per line, want none",
					cmd, workers, a, n, b, 5*n, (b-a)/(4*n))
			}
		}
	}
}

// TestLinesInteractive checks that each answer is written before bbdigest
// waits for the next line, so that a program can write a line and read its
// answer through pipes, with one worker and with several.
func TestLinesInteractive(t *testing.T) {
	for _, workers := range []string{"1", "2", "8"} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan int, 1)
		go func() {
			done <- run([]string{"digest", "--lines", "--workers", workers}, inR, outW, io.Discard)
			outW.Close()
		}()
		answers := bufio.NewReader(outR)
		// Without the answer, bbdigest and this test would wait for each
		// other for ever: give up after a minute.
		stuck := time.AfterFunc(time.Minute, func() {
			outW.CloseWithError(errors.New("no answer after a minute"))
		})
		for i := range 3 {
			doc := fmt.Sprintf("[%d]", i)
			if _, err := io.WriteString(inW, doc+"\n"); err != nil {
				t.Fatal(err)
			}
			got, err := answers.ReadString('\n')
			if err != nil {
				t.Fatalf("workers %s: line %d: %v", workers, i, err)
			}
			if want := sha(doc) + "\n"; got != want {
				t.Errorf("workers %s: answer %d: %q, want %q", workers, i, got, want)
			}
		}
		stuck.Stop()
		inW.Close()
		if rest, _ := io.ReadAll(answers); len(rest) > 0 {
			t.Errorf("workers %s: unexpected output %q", workers, rest)
		}
		if code := <-done; code != exitOK {
			t.Errorf("workers %s: exit code %d", workers, code)
		}
	}
}

// BenchmarkLinesDigest runs digest --lines, the whole command, over 4 MB
// of short lines (1000 distinct ones, repeated), with one worker and two.
func BenchmarkLinesDigest(b *testing.B) {
	var input []byte
	for i := range 30_000 {
		input = fmt.Appendf(input, `{"synopsis":"Share the travel dates.","findings":["a","b",%d],"question":{"recommended_idx":0,"hatches":{"free_text":true,"dialogue":true}}}`+"\n", i%1000)
	}
	for _, workers := range []string{"1", "2"} {
		b.Run("workers="+workers, func(b *testing.B) {
			b.SetBytes(int64(len(input)))
			b.ReportAllocs()
			for b.Loop() {
				if code := run([]string{"digest", "--lines", "--workers", workers}, bytes.NewReader(input), io.Discard, io.Discard); code != 0 {
					b.Fatal(code)
				}
			}
		})
	}
}

// TestLinesGatherBound checks the bound on lines longer than a block of
// the pipeline, which batch reads in chunks: a line of exactly the bound is
// answered, one byte more is too-large, and the line after either is read
// from where it starts.
func TestLinesGatherBound(t *testing.T) {
	const bound = 3*batch.DefaultBlockSize + 17
	tooLarge := fmt.Sprintf("error too-large %d line longer than the %d-byte bound within \"\"\n", bound, bound)
	fits := "[" + strings.Repeat(" ", bound-2) + "]"
	over := "[" + strings.Repeat(" ", bound-1) + "]"
	for _, tt := range []struct {
		name, input, want string
	}{
		{"fits", fits + "\n[1]\n", "[]\n[1]\n"},
		{"fits at end", "[1]\n" + fits, "[1]\n[]\n"},
		{"over", over + "\n[1]\n", tooLarge + "[1]\n"},
		{"over at end", "[1]\n" + over, "[1]\n" + tooLarge},
		{"fits after over", over + "\n" + fits + "\n" + over + over + "\n[2]", tooLarge + "[]\n" + tooLarge + "[2]\n"},
	} {
		for rname, r := range map[string]io.Reader{
			"plain":   strings.NewReader(tt.input),
			"half":    iotest.HalfReader(strings.NewReader(tt.input)),
			"onebyte": iotest.OneByteReader(strings.NewReader(tt.input)),
		} {
			out, code := runLines(t, "canon", bound, r)
			wantCode := exitOK
			if strings.Contains(tt.want, "error") {
				wantCode = exitRejected
			}
			if code != wantCode || out != tt.want {
				t.Errorf("%s/%s: exit code %d, output %q; want %d, %q", tt.name, rname, code, out, wantCode, tt.want)
			}
		}
	}
}

// TestLinesErrorEscaped checks that a rejected line's answer stays one line
// with nothing a terminal interprets, whatever the names in its pointer.
func TestLinesErrorEscaped(t *testing.T) {
	line1 := `{"\u001b]0;x\u0007\u202e":{"a\nb":1,"a\nb":2}}`
	line2 := `{"\u0085":[1,"\u2028",1.5]}`
	out, code := runLines(t, "canon", 0, strings.NewReader(line1+"\n"+line2+"\n"))
	want := fmt.Sprintf("error duplicate-name %d duplicate object member name \"a\\nb\" within \"/\\u001b]0;x\\u0007\\u202e/a\\nb\"\n", strings.LastIndex(line1, `"a\nb"`)) +
		fmt.Sprintf("error non-integer %d number \"1.5\" is not an integer within \"/\\u0085/2\"\n", strings.Index(line2, "1.5"))
	if code != exitRejected || out != want {
		t.Errorf("exit code %d, output\n%q\nwant\n%q", code, out, want)
	}
	inerttest.AssertInert(t, "stdout", []byte(out))
}

// TestLines runs canon --lines and digest --lines: line N of the output
// answers line N of the input, rejected lines included.
func TestLines(t *testing.T) {
	linesCanonWant := `{"a":1,"b":2}` + "\n" +
		"error syntax 0 unexpected end of input, want a value within \"\"\n" +
		"error duplicate-name 7 duplicate object member name \"a\" within \"/a\"\n" +
		"[1,2]\n" +
		"error non-integer 0 number \"1.5\" is not an integer within \"\"\n" +
		"\"x\"\n"
	linesDigestWant := sha(`{"a":1,"b":2}`) + "\n" +
		"error syntax 0 unexpected end of input, want a value within \"\"\n" +
		"error duplicate-name 7 duplicate object member name \"a\" within \"/a\"\n" +
		sha("[1,2]") + "\n" +
		"error non-integer 0 number \"1.5\" is not an integer within \"\"\n" +
		sha(`"x"`) + "\n"

	runCases(t, []runCase{
		{name: "canon lines", args: []string{"canon", "--lines", "lines.jsonl"}, code: 1, stdout: linesCanonWant},
		{name: "digest lines", args: []string{"digest", "--lines", "lines.jsonl"}, code: 1, stdout: linesDigestWant},
		{name: "digest lines stdin", args: []string{"digest", "--lines"}, stdin: testFiles["lines.jsonl"], code: 1, stdout: linesDigestWant},
		{name: "digest lines dash", args: []string{"digest", "--lines", "-"}, stdin: testFiles["lines.jsonl"], code: 1, stdout: linesDigestWant},
		{name: "lines all good", args: []string{"canon", "--lines"}, stdin: "{\"b\":0,\"a\":0}\r\n[]\n", stdout: "{\"a\":0,\"b\":0}\n[]\n"},
		{name: "lines empty input", args: []string{"digest", "--lines"}, stdin: ""},
		{name: "lines one empty line", args: []string{"canon", "--lines"}, stdin: "\n", code: 1,
			stdout: "error syntax 0 unexpected end of input, want a value within \"\"\n"},
		{name: "lines only CR", args: []string{"canon", "--lines"}, stdin: "\r\n\r", code: 1,
			stdout: "error syntax 1 unexpected end of input, want a value within \"\"\n" +
				"error syntax 1 unexpected end of input, want a value within \"\"\n"},
		{name: "lines pointer newline", args: []string{"canon", "--lines"}, stdin: `{"a\nb":{"c":[1,{"d":1,"d":2}]}}`, code: 1,
			stdout: "error duplicate-name 23 duplicate object member name \"d\" within \"/a\\nb/c/1/d\"\n"},
		{name: "lines missing", args: []string{"canon", "--lines", "nope.jsonl"}, code: 2,
			errRE: `^bbdigest: error: nope.jsonl: open: no such file or directory\n$`},
		{name: "lines workers", args: []string{"digest", "--lines", "--workers", "3", "lines.jsonl"}, code: 1, stdout: linesDigestWant},
		{name: "lines workers 1024", args: []string{"canon", "--lines", "--workers=1024", "lines.jsonl"}, code: 1, stdout: linesCanonWant},
		{name: "lines workers 0", args: []string{"canon", "--lines", "--workers", "0"}, code: 2,
			errRE: `^bbdigest: error: canon: invalid value "0" for --workers: want a whole number of workers from 1 to 1024\nbbdigest: hint: `},
		{name: "lines workers 1025", args: []string{"digest", "--lines", "--workers", "1025"}, code: 2,
			errRE: `^bbdigest: error: digest: invalid value "1025" for --workers: `},
		{name: "lines workers -1", args: []string{"digest", "--lines", "--workers=-1"}, code: 2,
			errRE: `^bbdigest: error: digest: invalid value "-1" for --workers: `},
		{name: "workers without lines", args: []string{"digest", "--workers", "2", "a.json"}, code: 2,
			errRE: `^bbdigest: error: digest: --workers goes with --lines\nbbdigest: hint: run 'bbdigest help digest' for usage\n$`},
		{name: "workers with check", args: []string{"digest", "--workers", "2", "--check", "a.json"}, code: 2,
			errRE: `^bbdigest: error: digest: --workers goes with --lines\n`},
		{name: "canon workers without lines", args: []string{"canon", "--workers", "2", "a.json"}, code: 2,
			errRE: `^bbdigest: error: canon: --workers goes with --lines\n`},
	})
}

// linesArchive returns a generated stream of JSON Lines, the same for a
// seed: records of 0.1-2 KB (objects of shuffled members with accents,
// escapes, nested arrays and integers), written compact, spaced or
// canonical, some with CRLF endings, and among them every line --lines
// answers with an error: empty, only "\r", invalid UTF-8, a duplicate
// name, a fraction, an unsafe integer, an unpaired surrogate, too deep,
// trailing data, cut short; and lines around the size bound: of exactly
// the bound, one byte over, and far over (longer than several blocks). The
// last line is cut short and has no "\n" when final is false.
func linesArchive(seed uint64, records, bound int, final bool) []byte {
	rng := rand.New(rand.NewPCG(seed, 15))
	words := []string{"share", "the", "travel", "dates", "café", "Zürich", "naïve", "東京", "🙂", "tab\there", `quo"te`, "back\\slash", "ελληνικά"}
	str := func() string {
		var b []byte
		for i := range 1 + rng.IntN(12) {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, words[rng.IntN(len(words))]...)
		}
		q, _ := json.Marshal(string(b))
		if rng.IntN(4) == 0 { // spell the "é"s as escapes
			q = bytes.ReplaceAll(q, []byte("é"), []byte(`\u00e9`))
		}
		return string(q)
	}
	record := func() string {
		var members []string
		for i := range 2 + rng.IntN(10) {
			var v string
			switch rng.IntN(4) {
			case 0:
				v = strconv.Itoa(rng.IntN(2_000_000) - 1_000_000)
			case 1:
				v = "[" + str() + "," + strconv.Itoa(rng.IntN(100)) + ",[true,null]]"
			default:
				v = str()
			}
			members = append(members, fmt.Sprintf(`"m%02d_%s":%s`, i, words[rng.IntN(4)], v))
		}
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		doc := "{" + strings.Join(members, ",") + "}"
		switch rng.IntN(3) {
		case 0: // spaced
			doc = strings.NewReplacer(`,"m`, `, "m`, `":`, `" : `).Replace(doc)
		case 1: // canonical
			c, err := canon.Canonicalize([]byte(doc), canon.Strict)
			if err != nil {
				panic(err)
			}
			doc = string(c)
		}
		if rng.IntN(8) == 0 {
			doc += "\r"
		}
		return doc
	}
	bad := []string{
		"",
		"\r",
		"[\"\xff\"]",
		`{"a":1,"b":{"c":2,"c":3}}`,
		`[1, 2.5]`,
		`{"n":9007199254740992}`,
		`["\ud800"]`,
		strings.Repeat("[", 65) + strings.Repeat("]", 65),
		`{"a":1} x`,
		`{"a":[1,`,
		"[" + strings.Repeat(" ", bound-2) + "]", // exactly the bound
		"[" + strings.Repeat(" ", bound-1) + "]", // one byte over
		"[" + strings.Repeat(" ", 2*batch.DefaultBlockSize+bound) + "]", // far over
	}
	var b []byte
	for i := range records {
		if i%(records/(2*len(bad))+1) == 0 {
			b = append(b, bad[rng.IntN(len(bad))]...)
			b = append(b, '\n')
		}
		b = append(b, record()...)
		b = append(b, '\n')
	}
	for _, l := range bad {
		b = append(append(b, l...), '\n')
	}
	if !final {
		b = append(b, `{"cut":"sho`...)
	}
	return b
}

// wantLines returns the --lines output for input, computed one line at a
// time with canon.Canonicalize and crypto/sha256.
func wantLines(input []byte, p canon.Profile, digest bool) (out string, lines int) {
	var b []byte
	if len(input) > 0 && input[len(input)-1] == '\n' {
		input = input[:len(input)-1] // no line after the last "\n"
	}
	for line := range bytes.SplitSeq(input, []byte("\n")) {
		lines++
		if len(line) > p.MaxSize() {
			b = perline.AppendErrorLine(b, &canon.Error{Class: canon.ClassTooLarge, Offset: int64(p.MaxSize()),
				Msg: fmt.Sprintf("line longer than the %d-byte bound", p.MaxSize())})
			continue
		}
		c, err := canon.Canonicalize(line, p)
		switch e, _ := errors.AsType[*canon.Error](err); {
		case err != nil:
			b = perline.AppendErrorLine(b, e)
		case digest:
			b = fmt.Appendf(b, "sha256:%x\n", sha256.Sum256(c))
		default:
			b = append(append(b, c...), '\n')
		}
	}
	return string(b), lines
}

// shortReader returns 1 to 7 bytes a read, in turn.
type shortReader struct {
	r io.Reader
	n int
}

func (s *shortReader) Read(p []byte) (int, error) {
	s.n = s.n%7 + 1
	return s.r.Read(p[:min(len(p), s.n)])
}

// TestLinesWorkers checks that the output of --lines does not depend on
// --workers (1, 2 and 8) or on how the input is read, and that it answers
// every line of a generated archive with every kind of bad line as canon
// and crypto/sha256 do one line at a time, around a size bound below and
// above the pipeline's block size.
func TestLinesWorkers(t *testing.T) {
	records := 1500
	if testing.Short() {
		records = 300
	}
	for _, bound := range []int{4096, batch.DefaultBlockSize + 5000} {
		for _, final := range []bool{true, false} {
			input := linesArchive(uint64(bound), records, bound, final)
			p, err := canon.Strict.WithMaxSize(bound)
			if err != nil {
				t.Fatal(err)
			}
			for _, cmd := range []string{"canon", "digest"} {
				want, lines := wantLines(input, p, cmd == "digest")
				if n := strings.Count(want, "\n"); n != lines || !strings.Contains(want, "error too-large") {
					t.Fatalf("bad test: %d answers for %d lines", n, lines)
				}
				for _, workers := range []string{"1", "2", "8"} {
					for rname, r := range map[string]io.Reader{
						"plain": bytes.NewReader(input),
						"short": &shortReader{r: bytes.NewReader(input)},
					} {
						name := fmt.Sprintf("bound=%d/final=%v/%s/workers=%s/%s", bound, final, cmd, workers, rname)
						out, code := runLines(t, cmd, bound, r, "--workers", workers)
						if code != exitRejected || out != want {
							t.Errorf("%s: exit code %d, %d answers (%d bytes); want 1, %d answers (%d bytes)\n%s",
								name, code, strings.Count(out, "\n"), len(out), lines, len(want), firstDiff(out, want))
						}
					}
				}
			}
		}
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: %.200q, want %.200q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
