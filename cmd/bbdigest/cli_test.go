package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bbdigest/bbdigest/internal/demo"
)

// sha is the expected digest of hand-written canonical bytes, computed here
// independently of appendDigest.
func sha(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// testFiles are written to a temporary working directory for each case.
var testFiles = map[string]string{
	"a.json":    `{ "b": [true, null], "a": 1.0 }`,
	"b.json":    "[ 1e1, \"\\u0009\" ]\n",
	"dup.json":  `{"a": 1, "a": 1}`,
	"frac.json": `[5E-1]`,
	"env.json":  string(demo.DraftEnvelope()),
	"act1.json": string(demo.DraftAction1()),
	"act2.json": string(demo.DraftAction2()),
	"lines.jsonl": "{\"b\":2, \"a\":1}\n" + // accepted
		"\n" + // empty
		"{\"a\":1,\"a\":2}\r\n" + // rejected, CRLF
		"[1 ,\t2]\r\n" + // accepted, CRLF
		"1.5\n" + // rejected under strict
		"\"x\"", // no final newline
	// A check list of a.json and b.json, in bbdigest's form and in
	// sha256sum's.
	"sums.txt": sha(aCanon) + "  a.json\n" + strings.TrimPrefix(sha(bCanon), "sha256:") + "  b.json\n",
}

const (
	aCanon = `{"a":1,"b":[true,null]}`
	bCanon = `[10,"\t"]`
)

// runCase is one invocation of the command and what it must give.
type runCase struct {
	name   string
	args   []string
	stdin  string
	code   int
	stdout string // exact, unless outRE is set
	outRE  string
	errRE  string // stderr must match; "" means stderr must be empty
}

// runCases runs each case with run in a temporary working directory that
// holds testFiles, and checks its exit code, stdout and stderr, and that
// every diagnostic line has the bbdigest prefix and no final period.
func runCases(t *testing.T, tests []runCase) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range testFiles {
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
				if !strings.HasPrefix(line, "bbdigest: error: ") && !strings.HasPrefix(line, "bbdigest: hint: ") && !strings.HasPrefix(line, "bbdigest: warning: ") {
					continue // the usage text
				}
				if strings.HasSuffix(line, ".") {
					t.Errorf("diagnostic ends with a period: %q", line)
				}
			}
		})
	}
}

// TestDispatch checks what is not a command: unknown commands and flags
// before the command.
func TestDispatch(t *testing.T) {
	runCases(t, []runCase{
		{name: "unknown command", args: []string{"hash"}, code: 2,
			errRE: `^bbdigest: error: unknown command "hash"\nbbdigest: hint: run 'bbdigest help' for usage\n$`},
		{name: "flag before command", args: []string{"--lines", "canon"}, code: 2,
			errRE: `^bbdigest: error: unknown flag --lines before the command\n`},
	})
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

// TestParse checks the flag syntax every command shares: GNU's
// permutation (flags before, between and after operands), "--", a lone
// "-", grouped one-letter switches, and the errors.
func TestParse(t *testing.T) {
	type result struct {
		Operands    []string
		Names, C, W bool
		Profile     string
	}
	for _, tt := range []struct {
		args  []string
		want  result
		code  int
		errRE string
	}{
		{args: nil, want: result{Profile: "strict"}},
		{args: []string{"a", "--names", "b"}, want: result{Operands: []string{"a", "b"}, Names: true, Profile: "strict"}},
		{args: []string{"a", "b", "-names"}, want: result{Operands: []string{"a", "b"}, Names: true, Profile: "strict"}},
		{args: []string{"a", "--profile", "rfc8785", "-"}, want: result{Operands: []string{"a", "-"}, Profile: "rfc8785"}},
		{args: []string{"a", "--profile", "--names"}, want: result{Operands: []string{"a"}, Profile: "--names"}},
		{args: []string{"a", "--profile=x", "b", "--profile", "y"}, want: result{Operands: []string{"a", "b"}, Profile: "y"}},
		{args: []string{"--", "--names", "-", "-c"}, want: result{Operands: []string{"--names", "-", "-c"}, Profile: "strict"}},
		{args: []string{"a", "-c", "--", "--names"}, want: result{Operands: []string{"a", "--names"}, C: true, Profile: "strict"}},
		{args: []string{"-"}, want: result{Operands: []string{"-"}, Profile: "strict"}},
		{args: []string{"-c", "x", "-w"}, want: result{Operands: []string{"x"}, C: true, W: true, Profile: "strict"}},
		{args: []string{"x", "-cw"}, want: result{Operands: []string{"x"}, C: true, W: true, Profile: "strict"}},
		{args: []string{"-wc"}, want: result{C: true, W: true, Profile: "strict"}},
		{args: []string{"-cc"}, want: result{C: true, Profile: "strict"}},
		{args: []string{"--c", "--w=true", "-c=false"}, want: result{W: true, Profile: "strict"}},
		{args: []string{"a", "-cx"}, code: exitUsage, errRE: `^bbdigest: error: digest: unknown flag --cx\nbbdigest: hint: run 'bbdigest help digest' for usage\n$`},
		{args: []string{"--cw"}, code: exitUsage, errRE: `^bbdigest: error: digest: unknown flag --cw\n`},
		{args: []string{"-cw=true"}, code: exitUsage, errRE: `^bbdigest: error: digest: unknown flag --cw\n`},
		{args: []string{"a", "--profile"}, code: exitUsage, errRE: `^bbdigest: error: digest: flag --profile needs an argument\n`},
		{args: []string{"a", "--names=maybe"}, code: exitUsage, errRE: `^bbdigest: error: digest: invalid value "maybe" for --names: `},
		{args: []string{"a", "---names"}, code: exitUsage, errRE: `^bbdigest: error: digest: bad flag syntax: "---names"\n`},
		{args: []string{"a", "b", "-h"}, code: exitOK},
	} {
		var stdout, stderr bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
		fs := c.flagSet("digest")
		var got result
		fs.BoolVar(&got.Names, "names", false, "")
		fs.StringVar(&got.Profile, "profile", "strict", "")
		fs.BoolVar(&got.C, "c", false, "")
		fs.BoolVar(&got.W, "w", false, "")
		operands, code := c.parse(fs, tt.args, -1)
		got.Operands = operands
		switch {
		case tt.code == 0 && tt.errRE == "" && len(tt.args) > 0 && tt.args[len(tt.args)-1] == "-h":
			if code != exitOK || stdout.String() != helpText("digest") {
				t.Errorf("%q: code %d, stdout %q; want the help", tt.args, code, stdout.String())
			}
			continue
		case tt.errRE != "":
			if code != tt.code || !regexp.MustCompile(tt.errRE).MatchString(stderr.String()) {
				t.Errorf("%q: code %d, stderr %q; want %d and %q", tt.args, code, stderr.String(), tt.code, tt.errRE)
			}
			continue
		}
		if code != -1 || stderr.Len() > 0 || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: code %d, %+v, stderr %q; want -1, %+v", tt.args, code, got, stderr.String(), tt.want)
		}
	}
}
