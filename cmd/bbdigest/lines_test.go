package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bbdigest/bbdigest/canon"
)

// runLines runs --lines over input with the size bound lowered to maxSize
// (0: the profile's) and returns stdout and the exit code.
func runLines(t *testing.T, cmd string, maxSize int, input io.Reader) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: input, stdout: &stdout, stderr: &stderr, maxSize: maxSize}
	code := c.main([]string{cmd, "--lines"})
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
	// Lines longer than the read buffer, with and without a final newline,
	// between short ones.
	src, want := bigArray(100_000) // about 790 KB
	if len(src) <= 4*lineBufSize {
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
	fits := "[" + strings.Repeat(" ", bound-2) + "]"       // exactly the bound
	over := "[" + strings.Repeat(" ", bound-1) + "]"       // one byte over
	huge := "[" + strings.Repeat(" ", 3*lineBufSize) + "]" // over, and longer than the read buffer
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
	// The line processor takes its bound from the profile.
	for _, p := range []canon.Profile{canon.Strict, canon.RFC8785} {
		if lp := newLineProc(canon.New(p), false, nil); lp.limit != canon.DefaultMaxSize {
			t.Errorf("%s: line bound %d, want %d", p.Name(), lp.limit, canon.DefaultMaxSize)
		}
	}
	if os.Getenv("BBDIGEST_BIG_TESTS") == "" || testing.Short() {
		t.Skip("buffers a 256 MiB line (about 900 MB of memory); set BBDIGEST_BIG_TESTS=1 to run")
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

func TestLinesAllocs(t *testing.T) {
	docs := [][]byte{
		[]byte(`{"b":[1,2,{"y":null,"x":"\u00e9"}],"a":true}`),
		[]byte(testFiles["lines.jsonl"][:14]),
		[]byte("[1 ,\t2]\r"),
	}
	for _, digest := range []bool{false, true} {
		lp := &lineProc{cz: canon.New(canon.Strict), digest: digest, limit: canon.DefaultMaxSize, w: bufio.NewWriter(io.Discard)}
		allocs := testing.AllocsPerRun(100, func() {
			for _, d := range docs {
				if err := lp.answer(d); err != nil {
					t.Fatal(err)
				}
			}
		})
		if lp.rejected {
			t.Fatal("a line was rejected")
		}
		if allocs != 0 {
			t.Errorf("digest=%v: %v allocations per run, want 0", digest, allocs)
		}
	}
}

// TestLinesInteractive checks that each answer is written before bbdigest
// waits for the next line, so that a program can write a line and read its
// answer through pipes.
func TestLinesInteractive(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"digest", "--lines"}, inR, outW, io.Discard)
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for i := range 3 {
		doc := fmt.Sprintf("[%d]", i)
		if _, err := io.WriteString(inW, doc+"\n"); err != nil {
			t.Fatal(err)
		}
		got, err := answers.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if want := sha(doc) + "\n"; got != want {
			t.Errorf("answer %d: %q, want %q", i, got, want)
		}
	}
	inW.Close()
	if rest, _ := io.ReadAll(answers); len(rest) > 0 {
		t.Errorf("unexpected output %q", rest)
	}
	if code := <-done; code != exitOK {
		t.Errorf("exit code %d", code)
	}
}

func BenchmarkLinesDigest(b *testing.B) {
	line := []byte(`{"synopsis":"Share the travel dates.","findings":["a","b"],"question":{"recommended_idx":0,"hatches":{"free_text":true,"dialogue":true}}}` + "\n")
	input := bytes.Repeat(line, 1000)
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		if code := run([]string{"digest", "--lines"}, bytes.NewReader(input), io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}

// TestLinesGatherBound checks the bound on lines longer than the read
// buffer, which gather reads in chunks: a line of exactly the bound is
// answered, one byte more is too-large, and the line after either is read
// from where it starts.
func TestLinesGatherBound(t *testing.T) {
	const bound = 3*lineBufSize + 17
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
	assertInert(t, "stdout", []byte(out))
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
	})
}
