package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bbdigest/bbdigest/envelope"
)

// sha is the expected digest of hand-written canonical bytes, computed here
// independently of appendDigest.
func sha(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Digests the envelope draft publishes in §6.4.
const (
	draftEnvelopeDigest = "sha256:0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1"
	draftAction1Digest  = "sha256:ff91e3166e64b892004d4b43b05ad6ed7ff0819463da80c72f27f47039c033fa"
	draftAction2Digest  = "sha256:49be14ae6e74b950c0c7b790fa22538d45fb4853bb0f3b242b28204bee232945"
)

// testFiles are written to a temporary working directory for each case.
var testFiles = map[string]string{
	"a.json":    `{ "b": [true, null], "a": 1.0 }`,
	"b.json":    "[ 1e1, \"\\u0009\" ]\n",
	"dup.json":  `{"a": 1, "a": 1}`,
	"frac.json": `[5E-1]`,
	"env.json":  "testdata/demo/envelope-draft-6.4.json",      // copied
	"act1.json": "testdata/demo/action-1-dates.json",          // copied
	"act2.json": "testdata/demo/action-2-dates-passport.json", // copied
	"lines.jsonl": "{\"b\":2, \"a\":1}\n" + // accepted
		"\n" + // empty
		"{\"a\":1,\"a\":2}\r\n" + // rejected, CRLF
		"[1 ,\t2]\r\n" + // accepted, CRLF
		"1.5\n" + // rejected under strict
		"\"x\"", // no final newline
}

const (
	aCanon = `{"a":1,"b":[true,null]}`
	bCanon = `[10,"\t"]`
)

func TestRun(t *testing.T) {
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

	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // exact, unless stdoutRE is set
		outRE  string
		errRE  string // stderr must match; "" means stderr must be empty
	}{
		// canon
		{name: "canon file", args: []string{"canon", "a.json"}, stdout: aCanon},
		{name: "canon stdin", args: []string{"canon"}, stdin: testFiles["b.json"], stdout: bCanon},
		{name: "canon dash", args: []string{"canon", "-"}, stdin: testFiles["b.json"], stdout: bCanon},
		{name: "canon rfc8785", args: []string{"canon", "--profile", "rfc8785", "frac.json"}, stdout: "[0.5]"},
		{name: "canon rfc8785 =", args: []string{"canon", "-profile=rfc8785", "-"}, stdin: "1E400", code: 1,
			errRE: `^bbdigest: error: -: "": number-range: number "1E400" overflows an IEEE-754 double at offset 0\n$`},
		{name: "canon strict rejects", args: []string{"canon", "frac.json"}, code: 1,
			errRE: `^bbdigest: error: frac.json: "/0": non-integer: number "5E-1" is not an integer at offset 1\n$`},
		{name: "canon dup", args: []string{"canon", "dup.json"}, code: 1,
			errRE: `^bbdigest: error: dup.json: "/a": duplicate-name: duplicate object member name "a" at offset 9\n$`},
		{name: "canon depth", args: []string{"canon"}, stdin: strings.Repeat("[", 65) + strings.Repeat("]", 65), code: 1,
			errRE: `^bbdigest: error: -: "(/0){64}": depth: array opens nesting level 65, deeper than 64 at offset 64\n$`},
		{name: "canon depth 64", args: []string{"canon"}, stdin: strings.Repeat("[ ", 64) + strings.Repeat("]", 64),
			stdout: strings.Repeat("[", 64) + strings.Repeat("]", 64)},
		{name: "canon invalid utf8", args: []string{"canon"}, stdin: "\"\xff\"", code: 1,
			errRE: `^bbdigest: error: -: "": invalid-utf8: invalid UTF-8 byte 0xff in a string at offset 1\n$`},
		{name: "canon envelope", args: []string{"canon", "env.json"}, outRE: `\A\{"findings":\[.{882}\z`},
		{name: "canon missing", args: []string{"canon", "nope.json"}, code: 2,
			errRE: `^bbdigest: error: nope.json: open: no such file or directory\n$`},
		{name: "canon two inputs", args: []string{"canon", "a.json", "b.json"}, code: 2,
			errRE: `^bbdigest: error: canon: too many inputs \(2\)\n`},
		{name: "canon unknown profile", args: []string{"canon", "--profile", "i-json", "a.json"}, code: 2,
			errRE: `^bbdigest: error: unknown profile "i-json"\nbbdigest: hint: `},
		{name: "canon flag after operand", args: []string{"canon", "a.json", "--lines"}, code: 2,
			errRE: `^bbdigest: error: canon: flag --lines after a file name\nbbdigest: hint: `},
		{name: "canon bad flag", args: []string{"canon", "-x"}, code: 2,
			errRE: `^bbdigest: error: canon: unknown flag --x\nbbdigest: hint: run 'bbdigest help canon' for usage\n$`},
		{name: "canon -h", args: []string{"canon", "-h"}, stdout: helpText("canon")},
		{name: "canon --help", args: []string{"canon", "--help"}, stdout: helpText("canon")},

		// digest
		{name: "digest one", args: []string{"digest", "a.json"}, stdout: sha(aCanon) + "\n"},
		{name: "digest stdin", args: []string{"digest"}, stdin: testFiles["a.json"], stdout: sha(aCanon) + "\n"},
		{name: "digest envelope", args: []string{"digest", "env.json"}, stdout: draftEnvelopeDigest + "\n"},
		{name: "digest actions", args: []string{"digest", "act1.json", "act2.json"},
			stdout: draftAction1Digest + "  act1.json\n" + draftAction2Digest + "  act2.json\n"},
		{name: "digest several", args: []string{"digest", "a.json", "-", "b.json"}, stdin: "[]",
			stdout: sha(aCanon) + "  a.json\n" + sha("[]") + "  -\n" + sha(bCanon) + "  b.json\n"},
		{name: "digest rejected continues", args: []string{"digest", "dup.json", "a.json", "frac.json", "b.json"}, code: 1,
			stdout: sha(aCanon) + "  a.json\n" + sha(bCanon) + "  b.json\n",
			errRE:  `^bbdigest: error: dup.json: "/a": duplicate-name: .*\nbbdigest: error: frac.json: "/0": non-integer: .*\n$`},
		{name: "digest missing continues", args: []string{"digest", "nope.json", "a.json", "dup.json"}, code: 2,
			stdout: sha(aCanon) + "  a.json\n",
			errRE:  `^bbdigest: error: nope.json: open: no such file or directory\nbbdigest: error: dup.json: "/a": duplicate-name: .*\n$`},
		{name: "digest rfc8785", args: []string{"digest", "--profile", "rfc8785", "frac.json"}, stdout: sha("[0.5]") + "\n"},
		{name: "digest lines multiple", args: []string{"digest", "--lines", "a.json", "b.json"}, code: 2,
			errRE: `^bbdigest: error: digest: --lines reads one input, not 2\n`},
		{name: "digest after dashdash", args: []string{"digest", "--", "-nope"}, code: 2,
			errRE: `^bbdigest: error: -nope: open: no such file or directory\n$`},

		// --lines
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

		// demo
		{name: "demo", args: []string{"demo", "--duration=0"},
			outRE: `(?m)^envelope-draft-6.4 +895  ` + draftEnvelopeDigest + `  matches draft 6.4$`},
		{name: "demo arg", args: []string{"demo", "x"}, code: 2, errRE: `^bbdigest: error: demo: unexpected argument "x"\n`},
		{name: "demo negative", args: []string{"demo", "--duration", "-1ms"}, code: 2, errRE: `^bbdigest: error: demo: negative --duration -1ms\n`},

		// help, version, commands
		{name: "help", args: []string{"help"}, stdout: usage},
		{name: "-h", args: []string{"-h"}, stdout: usage},
		{name: "--help", args: []string{"--help"}, stdout: usage},
		{name: "help canon", args: []string{"help", "canon"}, stdout: helpText("canon")},
		{name: "help unknown", args: []string{"help", "x"}, code: 2, errRE: `^bbdigest: error: help: unknown command "x"\n`},
		{name: "no args", args: nil, code: 2, errRE: `^` + regexp.QuoteMeta(usage) + `$`},
		{name: "unknown command", args: []string{"hash"}, code: 2,
			errRE: `^bbdigest: error: unknown command "hash"\nbbdigest: hint: run 'bbdigest help' for usage\n$`},
		{name: "flag before command", args: []string{"--lines", "canon"}, code: 2,
			errRE: `^bbdigest: error: unknown flag --lines before the command\n`},
		{name: "version", args: []string{"version"}, outRE: `\Abbdigest \S.*\n\z`},
		{name: "version arg", args: []string{"version", "x"}, code: 2, errRE: `^bbdigest: error: version: unexpected argument "x"\n`},
	}

	dir := t.TempDir()
	for name, content := range testFiles {
		if strings.HasPrefix(content, "testdata/") {
			b, err := os.ReadFile(content)
			if err != nil {
				t.Fatal(err)
			}
			content = string(b)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			if tt.outRE != "" {
				if !regexp.MustCompile(tt.outRE).Match(stdout.Bytes()) {
					t.Errorf("stdout %q does not match %q", stdout.String(), tt.outRE)
				}
			} else if got := stdout.String(); got != tt.stdout {
				t.Errorf("stdout:\n%q\nwant:\n%q", got, tt.stdout)
			}
			if tt.errRE == "" {
				if stderr.Len() > 0 {
					t.Errorf("unexpected stderr: %q", stderr.String())
				}
			} else if !regexp.MustCompile(tt.errRE).Match(stderr.Bytes()) {
				t.Errorf("stderr %q does not match %q", stderr.String(), tt.errRE)
			}
			// Diagnostics: one prefix per line, lowercase, no final period.
			for _, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
				if !strings.HasPrefix(line, "bbdigest: error: ") && !strings.HasPrefix(line, "bbdigest: hint: ") {
					continue // the usage text
				}
				if strings.HasSuffix(line, ".") {
					t.Errorf("diagnostic ends with a period: %q", line)
				}
			}
		})
	}
}

func TestVersionLdflags(t *testing.T) {
	defer func(v string) { Version = v }(Version)
	Version = "v1.2.3"
	var stdout bytes.Buffer
	if code := run([]string{"version"}, nil, &stdout, io.Discard); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if got, want := stdout.String(), "bbdigest v1.2.3\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAppendName(t *testing.T) {
	for name, want := range map[string]string{
		"a.json":      "D  a.json",
		`a\b`:         `\D  a\\b`,
		"new\nline\r": `\D  new\nline\r`,
	} {
		if got := string(appendName([]byte("D  "), name)); got != want {
			t.Errorf("appendName(%q) = %q, want %q", name, got, want)
		}
	}
}

// helpText returns the help of the command cmd.
func helpText(cmd string) string {
	text, ok := commandHelp(cmd)
	if !ok {
		panic("no help for " + cmd)
	}
	return text
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestIOErrors(t *testing.T) {
	readErr := iotest.ErrReader(errors.New("stdin broke"))
	for _, tt := range []struct {
		args   []string
		stdin  io.Reader
		stdout io.Writer
		errRE  string
	}{
		{[]string{"canon"}, strings.NewReader("[]"), errWriter{}, "^bbdigest: error: disk full\n$"},
		{[]string{"digest"}, strings.NewReader("[]"), errWriter{}, "^bbdigest: error: disk full\n$"},
		{[]string{"canon", "--lines"}, strings.NewReader("[]\n"), errWriter{}, "^bbdigest: error: disk full\n$"},
		{[]string{"digest", "--lines"}, strings.NewReader("[]\n"), errWriter{}, "^bbdigest: error: disk full\n$"},
		{[]string{"canon"}, readErr, io.Discard, "^bbdigest: error: -: stdin broke\n$"},
		{[]string{"digest"}, readErr, io.Discard, "^bbdigest: error: -: stdin broke\n$"},
		{[]string{"digest", "--lines"}, readErr, io.Discard, "^bbdigest: error: -: stdin broke\n$"},
		{[]string{"canon", "--lines"}, io.MultiReader(strings.NewReader("[1]\n[2"), readErr), io.Discard, "^bbdigest: error: -: stdin broke\n$"},
	} {
		var stderr bytes.Buffer
		if code := run(tt.args, tt.stdin, tt.stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit code %d, want %d", tt.args, code, exitUsage)
		}
		if !regexp.MustCompile(tt.errRE).Match(stderr.Bytes()) {
			t.Errorf("%v: stderr %q does not match %q", tt.args, stderr.String(), tt.errRE)
		}
	}
}

// TestSizeBound lowers the size bound to check too-large handling.
func TestSizeBound(t *testing.T) {
	c := &cli{stdin: strings.NewReader(`[1, 2]`), stdout: io.Discard, maxSize: 5}
	var stderr bytes.Buffer
	c.stderr = &stderr
	if code := c.main([]string{"digest"}); code != exitRejected {
		t.Errorf("exit code %d, want %d", code, exitRejected)
	}
	if want := `^bbdigest: error: -: "": too-large: input longer than the 5-byte bound at offset 5\n$`; !regexp.MustCompile(want).Match(stderr.Bytes()) {
		t.Errorf("stderr %q does not match %q", stderr.String(), want)
	}
}

func TestWriteErrorStops(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"digest", "-", "-", "-"}, strings.NewReader("[]"), errWriter{}, &stderr)
	if code != exitUsage || stderr.String() != "bbdigest: error: disk full\n" {
		t.Errorf("exit code %d, stderr %q; want %d and one error", code, stderr.String(), exitUsage)
	}
}

// An envelope with thousands of unknown members is reported with the first
// envelope.MaxProblems problems and a count of the rest, in every form.
func TestValidateProblemsCapped(t *testing.T) {
	env, err := os.ReadFile("testdata/demo/envelope-draft-6.4.json")
	if err != nil {
		t.Fatal(err)
	}
	var extra strings.Builder
	const n = 2500
	for i := range n {
		extra.WriteString(`"x` + strconv.Itoa(i) + `":0,`)
	}
	src := strings.Replace(string(env), `"offer":`, extra.String()+`"offer":`, 1)
	run := func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		c := &cli{stdin: strings.NewReader(src), stdout: &stdout, stderr: &stderr}
		code := c.main(args)
		return stdout.String(), stderr.String(), code
	}
	out, _, code := run("envelope", "validate", "--json")
	var v struct {
		Valid    bool
		Problems []json.RawMessage
		Omitted  int
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitRejected {
		t.Fatalf("validate --json: %v, exit %d: %s", err, code, out)
	}
	if v.Valid || len(v.Problems) != envelope.MaxProblems || v.Omitted != n-envelope.MaxProblems {
		t.Errorf("validate --json: %d problems, %d omitted", len(v.Problems), v.Omitted)
	}
	_, errOut, code := run("envelope", "validate")
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != exitRejected || len(lines) != envelope.MaxProblems+1 ||
		lines[len(lines)-1] != `bbdigest: error: -: "": and `+strconv.Itoa(n-envelope.MaxProblems)+` more problems, not listed` {
		t.Errorf("validate: exit %d, %d lines, last %q", code, len(lines), lines[len(lines)-1])
	}
}
