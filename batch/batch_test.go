package batch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// answer formats a result as the --lines mode of the bbdigest command
// prints it (without its escaping of messages and pointers, which the
// inputs here do not need): the digest, the canonical form, or both, or
// the error line; prefixed by the line number.
func answer(r Result, mode Mode) string {
	prefix := strconv.FormatInt(r.Line, 10) + ": "
	if r.Err != nil {
		e, ok := errors.AsType[*canon.Error](r.Err)
		if !ok {
			return prefix + "not a *canon.Error: " + r.Err.Error()
		}
		return prefix + errorLine(e)
	}
	switch mode {
	case ModeDigest:
		return prefix + r.Digest.String()
	case ModeCanonical:
		return prefix + string(r.Canonical)
	}
	return prefix + r.Digest.String() + " " + string(r.Canonical)
}

func errorLine(e *canon.Error) string {
	return fmt.Sprintf("error %s %d %s within %q", e.Class, e.Offset, e.Msg, e.Pointer)
}

// reference answers every line of input one at a time, with canon's
// one-shot Canonicalize and crypto/sha256: the obviously correct pipeline
// that the batch one must match. It also returns the summary.
func reference(input []byte, profile canon.Profile, maxRecord int, mode Mode) ([]string, Summary) {
	if maxRecord == 0 {
		maxRecord = profile.MaxSize()
	}
	p, err := profile.WithMaxSize(maxRecord)
	if err != nil {
		panic(err)
	}
	var out []string
	var sum Summary
	lines := bytes.Split(input, []byte("\n"))
	if len(input) == 0 || input[len(input)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		r := Result{Line: int64(i + 1)}
		size := len(line) + 1
		if i == len(lines)-1 && !bytes.HasSuffix(input, []byte("\n")) {
			size--
		}
		if len(line) > maxRecord {
			r.Err = &canon.Error{Class: canon.ClassTooLarge, Offset: int64(maxRecord), Msg: fmt.Sprintf("line longer than the %d-byte bound", maxRecord)}
		} else if c, err := canon.Canonicalize(line, p); err != nil {
			r.Err = err
		} else {
			r.Digest = sha256.Sum256(c)
			r.Canonical = c
		}
		out = append(out, answer(r, mode))
		sum.add(&record{size: size, err: r.Err})
	}
	return out, sum
}

// collectStream runs Stream and returns the answers and the summary.
func collectStream(t *testing.T, r io.Reader, opts Options) ([]string, Summary, error) {
	t.Helper()
	var got []string
	sum, err := Stream(context.Background(), r, opts, func(res Result) error {
		if opts.Mode == ModeCanonical && res.Digest != (hashing.Digest{}) {
			t.Errorf("line %d: a digest in ModeCanonical", res.Line)
		}
		if opts.Mode == ModeDigest && res.Canonical != nil {
			t.Errorf("line %d: canonical bytes in ModeDigest", res.Line)
		}
		got = append(got, answer(res, opts.Mode))
		return nil
	})
	return got, sum, err
}

// compare reports the first difference between two lists of answers.
func compare(t *testing.T, name string, got, want []string) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: answer %d of %d:\n got %.200q\nwant %.200q", name, i+1, len(want), got[i], want[i])
			return
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d answers, want %d", name, len(got), len(want))
	}
}

func checkSummary(t *testing.T, name string, got, want Summary) {
	t.Helper()
	if got.Records != got.Accepted+got.Rejected {
		t.Errorf("%s: %d records, %d accepted + %d rejected", name, got.Records, got.Accepted, got.Rejected)
	}
	var n int64
	for _, c := range got.ByClass {
		n += c
	}
	if n != got.Rejected {
		t.Errorf("%s: ByClass adds up to %d, want %d rejected", name, n, got.Rejected)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: summary %+v, want %+v", name, got, want)
	}
}

// pad returns a JSON array of n bytes: "[", spaces, "]".
func pad(n int) string { return "[" + strings.Repeat(" ", n-2) + "]" }

// The bounds of the tests: maxRecord between the small block sizes, so
// that lines longer than a block are gathered and accepted, gathered and
// found too large, or (blocks larger than the bound) skipped at once.
const testMaxRecord = 3000

var testBlockSizes = []int{100, 1000, 4096, 0}

// badLines are lines of every kind the pipeline must answer: each is one
// line (no "\n").
var badLines = []string{
	"",                     // empty
	"   ",                  // whitespace only
	"\r",                   // a CRLF blank line
	"{\"b\":2, \"a\":1}\r", // CRLF
	"\t[1 ,\t2]\r",         //
	`[1e2, "\u0041"]`,      //
	`{"a":1,"a":2}`,        // duplicate-name
	`{"a":1,"\u0061":2}`,   //
	`{"a\nb":1,"a\nb":2}`,  //
	`[1,`,                  // syntax: truncated
	`{} {}`,                // trailing data
	`1.5`,                  // non-integer (strict), fine in rfc8785
	`[0.1, 1e-7]`,          //
	`9007199254740993`,     // unsafe-integer (strict)
	`1e400`,                // number-range (rfc8785)
	`"\ud800"`,             // unpaired-surrogate
	"\xff\xfe",             // invalid-utf8
	"\"a\xc3\"",            //
	"[\"\xed\xa0\x80\"]",   // an encoded surrogate
	"\xef\xbb\xbf{}",       // byte-order mark
	strings.Repeat("[", 65) + strings.Repeat("]", 65), // depth (strict)
	strings.Repeat("[", 64) + strings.Repeat("]", 64), //
	`{"deep":[[[[]]]]}`, //
	"null", "true", `"last"`, `"\u00e9\/"`, "-0", "1E2",
	pad(99), pad(100), pad(101), pad(999), pad(1000), pad(1001),
	pad(testMaxRecord - 1), pad(testMaxRecord), pad(testMaxRecord + 1),
	pad(testMaxRecord) + "\r", // the "\r" is part of the line: too-large
	pad(4095), pad(4096), pad(4097), pad(5000),
	pad(300_000), // past the bound and longer than a default block
}

// badInputs returns inputs made of the bad lines, in random order among
// generated records, ending in each way a stream can end.
func badInputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(7, 7))
	var body []byte
	lines := slices.Clone(badLines)
	for range 3 {
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		for _, l := range lines {
			body = append(body, l...)
			body = append(body, '\n')
			for range rng.IntN(3) {
				body = append(body, genRecord(rng, false)...)
				body = append(body, '\n')
			}
		}
	}
	return map[string][]byte{
		"final newline":     body,
		"no final newline":  append(slices.Clone(body), `{"a": [1, 2]}`...),
		"truncated last":    append(slices.Clone(body), `{"a": [1,`...),
		"too-large last":    append(slices.Clone(body), pad(10_000)...),
		"long last":         append(slices.Clone(body), pad(testMaxRecord)...),
		"cr last":           append(slices.Clone(body), '\r'),
		"blank lines":       []byte("\n\n\n"),
		"one newline":       []byte("\n"),
		"empty":             nil,
		"one line no final": []byte("[1]"),
	}
}

// readers are the ways the tests deliver an input.
var readers = map[string]func(in []byte, rng *rand.Rand) io.Reader{
	"whole":   func(in []byte, _ *rand.Rand) io.Reader { return bytes.NewReader(in) },
	"1-7":     func(in []byte, rng *rand.Rand) io.Reader { return &shortReader{bytes.NewReader(in), rng} },
	"half":    func(in []byte, _ *rand.Rand) io.Reader { return iotest.HalfReader(bytes.NewReader(in)) },
	"dataeof": func(in []byte, _ *rand.Rand) io.Reader { return iotest.DataErrReader(bytes.NewReader(in)) },
}

// TestStreamMatchesReference runs every bad-line input through Stream
// with 1, 2 and 8 workers, every block size, and whole, short (1 to 7
// bytes), half and data-with-EOF reads, in every mode, and checks the
// answers, line by line, and the summary against the one-at-a-time
// reference.
func TestStreamMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, in := range badInputs() {
		for _, profile := range []canon.Profile{canon.Strict, canon.RFC8785} {
			for _, mode := range []Mode{ModeDigest, ModeCanonical, ModeBoth} {
				want, wantSum := reference(in, profile, testMaxRecord, mode)
				for _, workers := range []int{1, 2, 8} {
					for _, bs := range testBlockSizes {
						for rname, mk := range readers {
							if mode != ModeBoth && rname != "whole" || testing.Short() && (workers == 2 || rname == "dataeof") {
								continue // ModeBoth answers with both parts
							}
							opts := Options{Profile: profile, Mode: mode, Workers: workers, MaxRecord: testMaxRecord, BlockSize: bs}
							label := fmt.Sprintf("%s/%s/%s/workers=%d/block=%d/%s", name, profile, mode, workers, bs, rname)
							got, sum, err := collectStream(t, mk(in, rng), opts)
							if err != nil {
								t.Errorf("%s: %v", label, err)
							}
							compare(t, label, got, want)
							checkSummary(t, label, sum, wantSum)
							if sum.Bytes != int64(len(in)) {
								t.Errorf("%s: %d bytes, want %d", label, sum.Bytes, len(in))
							}
						}
					}
				}
			}
		}
	}
}

// TestStreamArchive checks a generated archive of envelopes, with the
// default bound and block size, for 1, 2 and 8 workers.
func TestStreamArchive(t *testing.T) {
	in, _ := archive(3, 2000)
	want, wantSum := reference(in, canon.Strict, 0, ModeBoth)
	var first []string
	for _, workers := range []int{1, 2, 8} {
		got, sum, err := collectStream(t, bytes.NewReader(in), Options{Workers: workers, Mode: ModeBoth})
		if err != nil {
			t.Fatal(err)
		}
		compare(t, fmt.Sprintf("workers=%d", workers), got, want)
		checkSummary(t, fmt.Sprintf("workers=%d", workers), sum, wantSum)
		if first == nil {
			first = got
		} else if !slices.Equal(got, first) {
			t.Errorf("workers=%d: output differs from workers=1", workers)
		}
	}
	if wantSum.Accepted != 2000 {
		t.Errorf("%d of 2000 generated records accepted", wantSum.Accepted)
	}
}

// lines runs Stream and returns what the --lines mode of the bbdigest
// command prints for it: one line per answer, the digest or the canonical
// form or the error line.
func lines(t *testing.T, input string, opts Options) string {
	t.Helper()
	var b strings.Builder
	_, err := Stream(context.Background(), strings.NewReader(input), opts, func(r Result) error {
		switch e, _ := errors.AsType[*canon.Error](r.Err); {
		case e != nil:
			b.WriteString(errorLine(e))
		case opts.Mode == ModeCanonical:
			b.Write(r.Canonical)
		default:
			b.WriteString(r.Digest.String())
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestLinesContract checks the answers that cmd/bbdigest's --lines tests
// and script (lines_test.go, testdata/script/lines.txtar) hold the command
// to, which the pipeline must give unchanged.
func TestLinesContract(t *testing.T) {
	canonical := Options{Mode: ModeCanonical}
	sha := func(s string) string { return hashing.Sum([]byte(s)).String() }
	linesJSONL := "{\"b\":2, \"a\":1}\n[1e2, \"\\u0041\"]\n\n   \n{\"a\":1,\"a\":2}\n[1,\n1.5\n\"\\ud800\"\n{\"a\\nb\":1,\"a\\nb\":2}\n{\"deep\":[[[[]]]]}\n\"last\"\n"
	for _, tt := range []struct {
		name, input string
		opts        Options
		want        string
	}{
		{"lines.jsonl", linesJSONL, canonical, `{"a":1,"b":2}` + "\n" + `[100,"A"]` + "\n" +
			"error syntax 0 unexpected end of input, want a value within \"\"\n" +
			"error syntax 3 unexpected end of input, want a value within \"\"\n" +
			"error duplicate-name 7 duplicate object member name \"a\" within \"/a\"\n" +
			"error syntax 3 unexpected end of input, want a value within \"/1\"\n" +
			"error non-integer 0 number \"1.5\" is not an integer within \"\"\n" +
			"error unpaired-surrogate 1 high surrogate escape \\ud800 not followed by a low surrogate escape within \"\"\n" +
			"error duplicate-name 10 duplicate object member name \"a\\nb\" within \"/a\\nb\"\n" +
			`{"deep":[[[[]]]]}` + "\n" + `"last"` + "\n"},
		{"digests", "{\"b\":2, \"a\":1}\n[1.5]\n[1]\n", Options{},
			sha(`{"a":1,"b":2}`) + "\nerror non-integer 1 number \"1.5\" is not an integer within \"/0\"\n" + sha("[1]") + "\n"},
		{"good", "{ \"z\": null, \"y\": [ ] }\n\"\\u00e9\\/\"\n", canonical, "{\"y\":[],\"z\":null}\n\"é/\"\n"},
		{"crlf", "{\"b\":2,\"a\":1}\r\n\r\n  [1 , 2]\r\n{\"a\":\r1}\r", canonical,
			"{\"a\":1,\"b\":2}\nerror syntax 1 unexpected end of input, want a value within \"\"\n[1,2]\n{\"a\":1}\n"},
		{"no final newline", "[1]\n[2]", canonical, "[1]\n[2]\n"},
		{"empty", "", canonical, ""},
		{"one newline", "\n", Options{}, "error syntax 0 unexpected end of input, want a value within \"\"\n"},
		{"long line", "{\"a\":" + strings.Repeat(" ", 200_000) + "1}\n[2]\n", canonical, "{\"a\":1}\n[2]\n"},
		{"rfc8785", "15e-1\n[0.1, 0.0000001]\n", Options{Mode: ModeCanonical, Profile: canon.RFC8785}, "1.5\n[0.1,1e-7]\n"},
		{"strict floats", "15e-1\n[0.1, 0.0000001]\n", canonical,
			"error non-integer 0 number \"15e-1\" is not an integer within \"\"\nerror non-integer 1 number \"0.1\" is not an integer within \"/0\"\n"},
	} {
		for _, bs := range testBlockSizes {
			opts := tt.opts
			opts.BlockSize = bs
			if got := lines(t, tt.input, opts); got != tt.want {
				t.Errorf("%s/block=%d:\n got %q\nwant %q", tt.name, bs, got, tt.want)
			}
		}
	}
}

// TestLinesTooLargeContract ports cmd/bbdigest's TestLinesTooLarge and
// TestLinesGatherBound: the bound is on the line without its "\n", a "\r"
// counts, and the line after a rejected one is read from where it starts,
// with the CLI's read buffer (64 KiB) as the block size and others.
func TestLinesTooLargeContract(t *testing.T) {
	for _, bound := range []int{100, 3*(64<<10) + 17} {
		tooLarge := fmt.Sprintf("error too-large %d line longer than the %d-byte bound within \"\"\n", bound, bound)
		fits, over := pad(bound), pad(bound+1)
		huge := pad(3 * (64 << 10))
		for _, tt := range []struct{ name, input, want string }{
			{"fits", fits + "\n[1]\n", "[]\n[1]\n"},
			{"fits at end", "[1]\n" + fits, "[1]\n[]\n"},
			{"fits with CR", fits + "\r\n", tooLarge},
			{"over", over + "\n[1]\n", tooLarge + "[1]\n"},
			{"over at end", "[1]\n" + over, "[1]\n" + tooLarge},
			{"huge", huge + "\n[1]\n" + huge + "\n", tooLarge + "[1]\n" + tooLarge},
			{"huge at end", "[1]\n" + huge, "[1]\n" + tooLarge},
			{"fits after over", over + "\n" + fits + "\n" + over + over + "\n[2]", tooLarge + "[]\n" + tooLarge + "[2]\n"},
		} {
			if bound > 100 && strings.HasPrefix(tt.name, "huge") {
				continue // huge is within this bound
			}
			for _, bs := range []int{64 << 10, 100, 4096, 0} {
				for rname, mk := range readers {
					rng := rand.New(rand.NewPCG(uint64(bound), uint64(bs)))
					var b strings.Builder
					_, err := Stream(context.Background(), mk([]byte(tt.input), rng), Options{Mode: ModeCanonical, MaxRecord: bound, BlockSize: bs}, func(r Result) error {
						if e, _ := errors.AsType[*canon.Error](r.Err); e != nil {
							b.WriteString(errorLine(e))
						} else {
							b.Write(r.Canonical)
						}
						b.WriteByte('\n')
						return nil
					})
					if err != nil || b.String() != tt.want {
						t.Errorf("bound=%d/%s/block=%d/%s: %q, %v; want %q", bound, tt.name, bs, rname, b.String(), err, tt.want)
					}
				}
			}
		}
	}
}

// errAfter returns the first n bytes of r and then err, with the last
// bytes (as a bufio reader may get them).
type errAfter struct {
	r   io.Reader
	n   int
	err error
}

func (e *errAfter) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, e.err
	}
	k, err := e.r.Read(p[:min(len(p), e.n)])
	e.n -= k
	if e.n == 0 {
		return k, e.err
	}
	return k, err
}

// TestStreamReadError cuts an input with a read error at many places:
// every line that ended before the error is answered, in order, and
// nothing else; the error is returned as it is.
func TestStreamReadError(t *testing.T) {
	in := badInputs()["final newline"]
	want, _ := reference(in, canon.Strict, testMaxRecord, ModeDigest)
	ends := []int{} // ends[i]: offset just past line i's "\n"
	for i, c := range in {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	boom := errors.New("boom")
	rng := rand.New(rand.NewPCG(3, 4))
	cuts := []int{0, 1, ends[0], ends[0] + 1, len(in) - 1}
	for range 40 {
		cuts = append(cuts, rng.IntN(len(in)))
	}
	for _, e := range ends {
		if e > 100_000 {
			cuts = append(cuts, e-1, e) // around the end of the 300 KB line
			break
		}
	}
	for _, cut := range cuts {
		whole := 0 // lines that ended before the error
		for whole < len(ends) && ends[whole] <= cut {
			whole++
		}
		for _, bs := range testBlockSizes {
			for _, short := range []bool{false, true} {
				var r io.Reader = bytes.NewReader(in)
				if short {
					r = &shortReader{r, rng}
				}
				label := fmt.Sprintf("cut=%d/block=%d/short=%v", cut, bs, short)
				got, sum, err := collectStream(t, &errAfter{r: r, n: cut, err: boom}, Options{Workers: 2, MaxRecord: testMaxRecord, BlockSize: bs})
				if err != boom {
					t.Errorf("%s: error %v, want boom", label, err)
				}
				compare(t, label, got, want[:whole])
				if wantBytes := 0; whole > 0 && sum.Bytes != int64(ends[whole-1]) || whole == 0 && sum.Bytes != int64(wantBytes) {
					t.Errorf("%s: %d bytes, want those of %d lines", label, sum.Bytes, whole)
				}
			}
		}
	}
}

// TestStreamBadReaders checks readers that break the io.Reader contract
// or make no progress: the run fails, it does not hang or panic.
func TestStreamBadReaders(t *testing.T) {
	for name, tt := range map[string]struct {
		r    io.Reader
		want error
	}{
		"no progress": {readFunc(func(p []byte) (int, error) { return 0, nil }), io.ErrNoProgress},
		"negative":    {readFunc(func(p []byte) (int, error) { return -1, nil }), errBadCount},
		"too many":    {readFunc(func(p []byte) (int, error) { return len(p) + 1, nil }), errBadCount},
	} {
		for _, prefix := range []string{"", "[1]\n", pad(5000)} {
			r := io.MultiReader(strings.NewReader(prefix), tt.r)
			got, _, err := collectStream(t, r, Options{BlockSize: 1000})
			if err != tt.want {
				t.Errorf("%s/%d: error %v, want %v", name, len(prefix), err, tt.want)
			}
			if wantN := strings.Count(prefix, "\n"); len(got) != wantN {
				t.Errorf("%s/%d: %d answers, want %d", name, len(prefix), len(got), wantN)
			}
		}
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// TestRecordsMatchesReference checks Records and Digests against canon
// and crypto/sha256 one document at a time, on pretty-printed (multi-line)
// records, bad ones, records longer than a block (gathered under the
// long-record token) and records past the bound.
func TestRecordsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var docs [][]byte
	for i := range 600 {
		docs = append(docs, genRecord(rng, true))
		if i%7 == 0 {
			docs = append(docs, []byte(badLines[rng.IntN(len(badLines))]))
		}
	}
	docs = append(docs, []byte(pad(testMaxRecord)), []byte(pad(testMaxRecord+1)), nil, []byte{}, []byte(pad(2000)), []byte(pad(2001)))
	p, _ := canon.Strict.WithMaxSize(testMaxRecord)
	for _, mode := range []Mode{ModeDigest, ModeCanonical, ModeBoth} {
		var want []string
		for i, d := range docs {
			r := Result{Line: int64(i + 1)}
			if c, err := canon.Canonicalize(d, p); err != nil {
				r.Err = err
			} else {
				r.Digest, r.Canonical = sha256.Sum256(c), c
			}
			want = append(want, answer(r, mode))
		}
		for _, workers := range []int{1, 2, 8} {
			for _, bs := range testBlockSizes {
				var got []string
				sum, err := Records(context.Background(), docs, Options{Mode: mode, Workers: workers, BlockSize: bs, MaxRecord: testMaxRecord}, func(r Result) error {
					got = append(got, answer(r, mode))
					return nil
				})
				label := fmt.Sprintf("%s/workers=%d/block=%d", mode, workers, bs)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, label, got, want)
				if sum.Records != int64(len(docs)) || sum.Accepted+sum.Rejected != sum.Records {
					t.Errorf("%s: summary %+v for %d records", label, sum, len(docs))
				}
			}
		}
	}
	res, err := Digests(context.Background(), docs, canon.Strict)
	if err != nil || len(res) != len(docs) {
		t.Fatalf("Digests: %d results, %v", len(res), err)
	}
	for i, r := range res {
		c, err := canon.Canonicalize(docs[i], canon.Strict)
		if r.Line != int64(i+1) || r.Canonical != nil || (err == nil) != (r.Err == nil) || err == nil && r.Digest != sha256.Sum256(c) {
			t.Fatalf("Digests: result %d: %+v, want digest of %q (%v)", i, r, c, err)
		}
	}
	if res, err := Digests(context.Background(), nil, canon.Strict); len(res) != 0 || err != nil {
		t.Errorf("Digests(nil): %v, %v", res, err)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, o := range []Options{
		{Workers: -1},
		{BlockSize: -1},
		{Mode: ModeBoth + 1},
		{MaxRecord: -1},
		{MaxRecord: canon.MaxSizeLimit + 1},
	} {
		called := false
		_, err := Stream(context.Background(), strings.NewReader("[1]\n"), o, func(Result) error { called = true; return nil })
		if err == nil || called || !strings.HasPrefix(err.Error(), "batch: ") {
			t.Errorf("%+v: error %v, emit called %v", o, err, called)
		}
		if _, err := Records(context.Background(), [][]byte{[]byte("1")}, o, nil); err == nil {
			t.Errorf("Records %+v: no error", o)
		}
	}
	// The bound may be raised past the profile's up to canon's limit.
	if _, err := Stream(context.Background(), strings.NewReader("[1]\n"), Options{MaxRecord: canon.MaxSizeLimit}, nil); err != nil {
		t.Error(err)
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[Mode]string{ModeDigest: "digest", ModeCanonical: "canonical", ModeBoth: "both", 7: "Mode(7)"} {
		if m.String() != want {
			t.Errorf("%d: %q, want %q", m, m.String(), want)
		}
	}
}

// TestLinesIterator checks the iterator against Stream, and that it yields
// a run's error last.
func TestLinesIterator(t *testing.T) {
	in := badInputs()["no final newline"]
	want, _ := reference(in, canon.Strict, testMaxRecord, ModeDigest)
	var got []string
	for r, err := range Lines(context.Background(), bytes.NewReader(in), Options{MaxRecord: testMaxRecord}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, answer(r, ModeDigest))
	}
	compare(t, "Lines", got, want)

	boom := errors.New("boom")
	n, last := 0, error(nil)
	for _, err := range Lines(context.Background(), &errAfter{r: strings.NewReader("[1]\n[2]\n[3"), n: 10, err: boom}, Options{}) {
		n++
		last = err
	}
	if n != 3 || last != boom {
		t.Errorf("%d yields, last error %v; want 2 results and boom", n, last)
	}
}

// TestStreamInteractive writes one line at a time through a pipe and
// waits for its answer before writing the next, as a program driving the
// command through pipes does. The callback only buffers answers and Idle
// passes them on, as a command flushes its buffered output: each answer
// must come without more input (a pipeline that waited to fill a block,
// or did not call Idle before waiting, would never answer).
func TestStreamInteractive(t *testing.T) {
	for _, bs := range testBlockSizes {
		pr, pw := io.Pipe()
		answers := make(chan string, 10)
		var pending []string
		done := make(chan error, 1)
		go func() {
			opts := Options{Mode: ModeCanonical, BlockSize: bs, MaxRecord: testMaxRecord, Idle: func() error {
				if len(pending) == 0 {
					t.Error("Idle called with no result delivered since the last call")
				}
				for _, a := range pending {
					answers <- a
				}
				pending = pending[:0]
				return nil
			}}
			_, err := Stream(context.Background(), pr, opts, func(r Result) error {
				pending = append(pending, answer(r, ModeCanonical))
				return nil
			})
			done <- err
		}()
		for i, line := range []string{"[1, 2]", `{"b":1, "a":2}`, "", pad(2000), pad(testMaxRecord + 1), "[3]"} {
			if _, err := io.WriteString(pw, line+"\n"); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-answers:
				if !strings.HasPrefix(got, strconv.Itoa(i+1)+": ") {
					t.Errorf("block=%d: answer %q to line %d", bs, got, i+1)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("block=%d: no answer to line %d %.20q while the writer waits", bs, i+1, line)
			}
		}
		pw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestIdleError stops a run by an error from Idle.
func TestIdleError(t *testing.T) {
	pool, _ := cyclePool(t)
	stop := errors.New("stop")
	calls := 0
	n := 0
	_, err := Stream(context.Background(), newGenReader(pool, -1), Options{BlockSize: 1000, Idle: func() error {
		if calls++; calls == 3 {
			return stop
		}
		return nil
	}}, func(Result) error { n++; return nil })
	if err != stop || n == 0 {
		t.Errorf("%d results, error %v; want some and stop", n, err)
	}
}
