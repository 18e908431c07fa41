package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/internal/diag"
)

// archiveCall runs bbdigest in process with args and stdin, the size
// bound of every input lowered to maxSize when it is positive, and
// returns stdout, stderr and the exit code.
func archiveCall(t *testing.T, maxSize int, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	c := &cli{stdin: stdin, stdout: &stdout, stderr: &stderr, maxSize: maxSize}
	code := c.main(args)
	return stdout.String(), stderr.String(), code
}

// shaHex returns "sha256:" and the hex SHA-256 of s, by crypto/sha256.
func shaHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// badArchive holds a line of each kind, with the answer rehash must give
// (the class alone for a rejection; the digest of the canonical form,
// written out here, for an acceptance).
var badArchive = []struct {
	line  string
	class string // "" accepted
	canon string // the canonical form, when accepted
}{
	{line: `{"b": 1, "a": "\u00e9"}`, canon: `{"a":"é","b":1}`},
	{line: ``, class: "syntax"},
	{line: `   `, class: "syntax"},
	{line: "{\"a\": [1, 2]}\r", canon: `{"a":[1,2]}`},
	{line: "\r", class: "syntax"},
	{line: `{"a":1,"a":2}`, class: "duplicate-name"},
	{line: `{"a":1,"\u0061":2}`, class: "duplicate-name"},
	{line: `[1.5]`, class: "non-integer"},
	{line: `9007199254740993`, class: "unsafe-integer"},
	{line: `9007199254740991`, canon: `9007199254740991`},
	{line: `"\ud800"`, class: "unpaired-surrogate"},
	{line: "\"\xff\"", class: "invalid-utf8"},
	{line: strings.Repeat("[", 65) + strings.Repeat("]", 65), class: "depth"},
	{line: "[" + strings.Repeat(" ", 200) + "]", class: "too-large"}, // with the bound at 150
	{line: `{} {}`, class: "syntax"},
	{line: `[1,`, class: "syntax"},
}

// badArchiveInput returns the lines of badArchive as one input, the last
// without its "\n".
func badArchiveInput() string {
	var b strings.Builder
	for i, l := range badArchive {
		b.WriteString(l.line)
		if i < len(badArchive)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// resultLine is a result line of rehash or verify, decoded.
type resultLine struct {
	File    *string `json:"file"`
	Line    int64   `json:"line"`
	OK      *bool   `json:"ok"`
	Digest  string  `json:"digest"`
	Claimed string  `json:"claimed"`
	Error   *struct {
		Class   string  `json:"class"`
		Offset  int64   `json:"offset"`
		Pointer *string `json:"pointer"`
		Message string  `json:"message"`
	} `json:"error"`
}

// errorMembers matches a result line with an error object whose members
// are class, offset, pointer and message, in that order.
var errorMembers = regexp.MustCompile(`,"error":\{"class":"[a-z0-9-]+","offset":[0-9]+,"pointer":"([^"\\]|\\.)*","message":"([^"\\]|\\.)*"\}\}$`)

// decodeResults decodes the result lines of out, checking that each is
// valid JSON with nothing a terminal interprets, and that an error object
// has every member, in the order class, offset, pointer, message.
func decodeResults(t *testing.T, out string) []resultLine {
	t.Helper()
	var res []resultLine
	if out == "" {
		return nil
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("output does not end with a newline: %q", out[max(0, len(out)-100):])
	}
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !utf8.ValidString(l) || diag.NeedsEscape(l, diag.ModeText) {
			t.Errorf("result line %d holds a character a terminal interprets: %q", i+1, l)
		}
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		var r resultLine
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("result line %d: %v: %q", i+1, err, l)
		}
		if r.Error != nil && (r.Error.Pointer == nil || !errorMembers.MatchString(l)) {
			t.Fatalf("result line %d: an error object without its members in order: %q", i+1, l)
		}
		res = append(res, r)
	}
	return res
}

// TestArchiveRehashLines answers a line of every kind (blank, CRLF,
// invalid UTF-8, duplicate names, big numbers, too deep, too large, a
// truncated last line without "\n") and checks one result per input line,
// in order and numbered, with the class or the digest, computed here with
// crypto/sha256 over the canonical form written out in the test; and the
// summary and exit code.
func TestArchiveRehashLines(t *testing.T) {
	in := badArchiveInput()
	for _, workers := range []string{"1", "2", "8"} {
		stdout, stderr, code := archiveCall(t, 150, strings.NewReader(in), "archive", "rehash", "--workers", workers)
		if code != exitRejected {
			t.Errorf("workers=%s: exit code %d, want 1", workers, code)
		}
		res := decodeResults(t, stdout)
		if len(res) != len(badArchive) {
			t.Fatalf("workers=%s: %d result lines for %d input lines", workers, len(res), len(badArchive))
		}
		classes := map[string]int{}
		for i, r := range res {
			want := badArchive[i]
			if r.Line != int64(i+1) || r.OK != nil || r.File != nil || r.Claimed != "" {
				t.Errorf("workers=%s: result %d: %+v", workers, i+1, r)
			}
			switch {
			case want.class == "" && (r.Error != nil || r.Digest != shaHex(want.canon)):
				t.Errorf("workers=%s: line %d %q: %+v, want the digest %s", workers, i+1, want.line, r, shaHex(want.canon))
			case want.class != "" && (r.Error == nil || r.Error.Class != want.class || r.Digest != ""):
				t.Errorf("workers=%s: line %d %q: %+v, want class %s", workers, i+1, want.line, r, want.class)
			}
			if want.class != "" {
				classes[want.class]++
			}
		}
		wantSum := fmt.Sprintf("bbdigest: summary: %d records, 3 accepted, %d rejected (depth 1, duplicate-name 2, invalid-utf8 1, non-integer 1, syntax 5, too-large 1, unpaired-surrogate 1, unsafe-integer 1)\n",
			len(badArchive), len(badArchive)-3)
		if stderr != wantSum {
			t.Errorf("workers=%s: stderr %q, want %q", workers, stderr, wantSum)
		}
	}
}

// TestArchiveRehashSameAsLines checks that rehash gives, line for line,
// the digests and error classes, offsets and pointers of digest --lines,
// on a generated archive with bad lines among the records.
func TestArchiveRehashSameAsLines(t *testing.T) {
	in := badArchiveInput() + "\n" + strings.Repeat(`{"z":[1,2,{"y":"\u00e9"}],"a":"x"}`+"\n", 50)
	lines, _, _ := archiveCall(t, 150, strings.NewReader(in), "digest", "--lines")
	stdout, _, _ := archiveCall(t, 150, strings.NewReader(in), "archive", "rehash")
	want := strings.Split(strings.TrimSuffix(lines, "\n"), "\n")
	res := decodeResults(t, stdout)
	if len(res) != len(want) {
		t.Fatalf("%d results, --lines gave %d", len(res), len(want))
	}
	for i, r := range res {
		got := r.Digest
		if r.Error != nil {
			got = fmt.Sprintf("error %s %d ", r.Error.Class, r.Error.Offset)
			if within := " within " + quote(*r.Error.Pointer); !strings.HasSuffix(want[i], within) {
				t.Errorf("line %d: pointer %q, --lines: %q", i+1, *r.Error.Pointer, want[i])
			}
		}
		if !strings.HasPrefix(want[i], got) {
			t.Errorf("line %d: %q, --lines: %q", i+1, got, want[i])
		}
	}
}

// TestArchiveFiles checks several inputs: a "file" member first in every
// line, line numbers from 1 in each, names escaped as JSON with nothing a
// terminal interprets (a name with a newline, an escape, a bidi override
// and a byte that is not UTF-8), and the summary listing each input.
func TestArchiveFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	names := []string{"a.jsonl", "b\n\x1b[31m\u202e\xff.jsonl"}
	contents := []string{"[1]\n[2]\n", "[3]\n[\n[4]"}
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(contents[i]), 0o666); err != nil {
			t.Skip(err) // a file system that refuses the name
		}
	}
	stdout, stderr, code := archiveCall(t, 0, nil, "archive", "rehash", "--json", names[0], names[1])
	if code != exitRejected {
		t.Errorf("exit code %d, want 1", code)
	}
	escaped := `"b\n\u001b[31m\u202e` + "\ufffd" + `.jsonl"`
	want := `{"file":"a.jsonl","line":1,"digest":"` + shaHex("[1]") + `"}` + "\n" +
		`{"file":"a.jsonl","line":2,"digest":"` + shaHex("[2]") + `"}` + "\n" +
		`{"file":` + escaped + `,"line":1,"digest":"` + shaHex("[3]") + `"}` + "\n" +
		`{"file":` + escaped + `,"line":2,"error":{"class":"syntax","offset":1,"pointer":"/0","message":"unexpected end of input, want a value"}}` + "\n" +
		`{"file":` + escaped + `,"line":3,"digest":"` + shaHex("[4]") + `"}` + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	decodeResults(t, stdout)
	empty := shaHex("")
	wantSum := `{"command":"rehash","profile":"strict","max_record":268435456,"inputs":[` +
		`{"name":"a.jsonl","compression":"none","size":8,"range":{"start":0,"end":8,"start_sha256":"` + empty + `","end_sha256":"` + shaHex(contents[0]) + `"},"first_line":1,"lines":2},` +
		`{"name":` + escaped + `,"compression":"none","size":9,"range":{"start":0,"end":9,"start_sha256":"` + empty + `","end_sha256":"` + shaHex(contents[1]) + `"},"first_line":1,"lines":3}],` +
		`"records":5,"accepted":4,"rejected":1,"classes":{"syntax":1},` +
		`"output":{"bytes":` + fmt.Sprint(len(want)) + `,"sha256":"` + shaHex(want) + `"},"complete":true}` + "\n"
	if stderr != wantSum {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantSum)
	}
	if !json.Valid([]byte(stderr)) || diag.NeedsEscape(stderr[:len(stderr)-1], diag.ModeText) {
		t.Errorf("summary is not valid JSON, or holds a character a terminal interprets: %q", stderr)
	}
}

// TestArchiveMessageEscaped checks that a message and a pointer quoting
// the input (a duplicate name holding an escape and a bidi override)
// stay inert in the result line, which stays valid JSON: the pointer is
// the name itself, as JSON holds it.
func TestArchiveMessageEscaped(t *testing.T) {
	stdout, _, _ := archiveCall(t, 0, strings.NewReader(`{"\u001b\u202e":1,"\u001b\u202e":2}`), "archive", "rehash")
	res := decodeResults(t, stdout)
	if len(res) != 1 || res[0].Error == nil || res[0].Error.Class != "duplicate-name" || res[0].Error.Message != `duplicate object member name "\x1b\u202e"` ||
		*res[0].Error.Pointer != "/\x1b\u202e" {
		t.Errorf("%q: %+v", stdout, res)
	}
}

// verifyCases are records of verify with their answers: ok, the class of
// a record that does not verify (mismatch, wrapper, or canon's), and for
// a wrapper or doc error its offset and pointer in the line: "/doc" and
// the pointer in doc for a doc error, "" (the record) for a wrapper.
var verifyDoc = `{"b": [1, "\u00e9"], "a": {"y": null, "x": true}}`
var verifyCanon = `{"a":{"x":true,"y":null},"b":[1,"é"]}`
var verifyCases = []struct {
	line    string
	class   string // "" verified
	offset  int
	at      string // when set, the offset is where at starts in line; "$": the line's end
	pointer string
}{
	{line: `{"digest":"` + shaHex(verifyCanon) + `","doc":` + verifyDoc + `}`},
	{line: ` { "doc" : ` + verifyDoc + ` ,` + "\t" + `"digest" : "` + shaHex(verifyCanon) + `" } ` + "\r"},
	{line: `{"digest":"` + shaHex(verifyCanon) + `","doc":{"b":[1,"é"],"a":{"y":null,"x":false}}}`, class: "mismatch"},
	{line: `{"digest":"` + shaHex("1") + `","doc":1}`},
	{line: `{"doc":"a\"}b","digest":"` + shaHex(`"a\"}b"`) + `"}`},
	{line: `{"digest":"` + shaHex("[]") + `","doc":[[],{"a":"]"}]}`, class: "mismatch"},
	{line: ``, class: "wrapper", offset: 0},
	{line: `[]`, class: "wrapper", offset: 0},
	{line: `{}`, class: "wrapper", offset: 1},
	{line: `{"doc":1}`, class: "wrapper", offset: 9},
	{line: `{"digest":"` + shaHex("1") + `"}`, class: "wrapper", at: "$"},
	{line: `{"doc":1,"doc":1}`, class: "wrapper", offset: 9},
	{line: `{"doc":1,"digest":"` + shaHex("1") + `","x":2}`, class: "wrapper", at: `"x"`},
	{line: `{"d\u006fc":1}`, class: "wrapper", offset: 1},
	{line: `{"doc":1,"digest":"` + strings.ToUpper(shaHex("1")) + `"}`, class: "wrapper", offset: 18},
	{line: `{"doc":1,"digest":"sha512:00"}`, class: "wrapper", offset: 18},
	{line: `{"doc":1,"digest":1}`, class: "wrapper", offset: 18},
	{line: `{"doc":1,"digest":"` + shaHex("1") + `"} x`, class: "wrapper", at: "x"},
	{line: `{"doc":{"a":[1,2]`, class: "wrapper", at: "$"},
	{line: `{"doc":{"a":"]}`, class: "wrapper", at: "$"},
	{line: `{"doc":`, class: "wrapper", offset: 7},
	{line: `{"doc":[1.5],"digest":"` + shaHex("1") + `"}`, class: "non-integer", offset: 8, pointer: "/doc/0"},
	{line: `{"doc":{"a":1,"a":2},"digest":"` + shaHex("1") + `"}`, class: "duplicate-name", offset: 14, pointer: "/doc/a"},
	{line: `{"doc":[1,],"digest":"` + shaHex("1") + `"}`, class: "syntax", offset: 10, pointer: "/doc/1"},
	{line: "{\"doc\":\"\xff\",\"digest\":\"" + shaHex("1") + `"}`, class: "invalid-utf8", offset: 8, pointer: "/doc"},
	{line: `{"doc":` + strings.Repeat("[", 65) + strings.Repeat("]", 65) + `,"digest":"` + shaHex("1") + `"}`, class: "depth", offset: 71, pointer: "/doc" + strings.Repeat("/0", 64)},
	{line: `{"doc":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `,"digest":"` + shaHex(strings.Repeat("[", 64)+strings.Repeat("]", 64)) + `"}`},
}

// TestArchiveVerify checks each verify case: one result per line, ok or
// not, the computed digest beside the claimed one for a mismatch, the
// class, and the offset and pointer in the line, of a record that cannot
// be checked.
func TestArchiveVerify(t *testing.T) {
	var in strings.Builder
	for _, vc := range verifyCases {
		in.WriteString(vc.line + "\n")
	}
	for _, workers := range []string{"1", "2"} {
		stdout, stderr, code := archiveCall(t, 0, strings.NewReader(in.String()), "archive", "verify", "--workers", workers)
		if code != exitRejected {
			t.Errorf("exit code %d, want 1", code)
		}
		res := decodeResults(t, stdout)
		if len(res) != len(verifyCases) {
			t.Fatalf("%d results for %d lines", len(res), len(verifyCases))
		}
		counts := map[string]int{}
		for i, r := range res {
			vc := verifyCases[i]
			if r.Line != int64(i+1) || r.OK == nil {
				t.Errorf("line %d: %+v", i+1, r)
				continue
			}
			switch vc.class {
			case "":
				if !*r.OK || r.Error != nil || r.Claimed != "" || !strings.HasPrefix(vc.line, `{"digest":"`+r.Digest) && !strings.Contains(vc.line, `"digest" : "`+r.Digest) && !strings.Contains(vc.line, `"digest":"`+r.Digest) {
					t.Errorf("line %d %q: %+v, want ok", i+1, vc.line, r)
				}
				counts["ok"]++
			case "mismatch":
				if *r.OK || r.Error != nil || r.Digest == "" || r.Claimed == "" || r.Digest == r.Claimed || !strings.Contains(vc.line, r.Claimed) {
					t.Errorf("line %d %q: %+v, want a mismatch", i+1, vc.line, r)
				}
				counts[vc.class]++
			default:
				off := vc.offset
				switch {
				case vc.at == "$":
					off = len(vc.line)
				case vc.at != "":
					off = strings.Index(vc.line, vc.at)
				}
				if *r.OK || r.Error == nil || r.Error.Class != vc.class || r.Error.Offset != int64(off) || *r.Error.Pointer != vc.pointer || r.Digest != "" {
					t.Errorf("line %d %q: %+v, want class %s at offset %d, pointer %q", i+1, vc.line, r, vc.class, off, vc.pointer)
				}
				counts[vc.class]++
			}
		}
		if res[2].Digest != shaHex(`{"a":{"x":false,"y":null},"b":[1,"é"]}`) {
			t.Errorf("mismatch: computed digest %s", res[2].Digest)
		}
		wantSum := fmt.Sprintf("bbdigest: summary: %d records, %d ok, %d failed (depth 1, duplicate-name 1, invalid-utf8 1, mismatch 2, non-integer 1, syntax 1, wrapper %d)\n",
			len(verifyCases), counts["ok"], len(verifyCases)-counts["ok"], counts["wrapper"])
		if stderr != wantSum {
			t.Errorf("stderr %q, want %q", stderr, wantSum)
		}
	}
}

// TestArchiveExit checks the exit codes and diagnostics of the usage and
// I/O errors, and exit 0 when every line is accepted or verified.
func TestArchiveExit(t *testing.T) {
	hint := `bbdigest: hint: run 'bbdigest help archive' for usage\n`
	for _, tt := range []struct {
		args  []string
		stdin string
		code  int
		out   string
		errRE string
	}{
		{args: []string{"archive", "rehash"}, stdin: "[1]\n{}", code: exitOK,
			out:   `{"line":1,"digest":"` + shaHex("[1]") + `"}` + "\n" + `{"line":2,"digest":"` + shaHex("{}") + `"}` + "\n",
			errRE: `^bbdigest: summary: 2 records, 2 accepted, 0 rejected\n$`},
		{args: []string{"archive", "rehash", "-"}, stdin: "", code: exitOK,
			errRE: `^bbdigest: summary: 0 records, 0 accepted, 0 rejected\n$`},
		{args: []string{"archive", "verify"}, stdin: `{"digest":"` + shaHex("{}") + `","doc":{ }}`, code: exitOK,
			out:   `{"line":1,"ok":true,"digest":"` + shaHex("{}") + `"}` + "\n",
			errRE: `^bbdigest: summary: 1 record, 1 ok, 0 failed\n$`},
		{args: []string{"archive"}, code: exitUsage, errRE: `^bbdigest: error: archive: missing subcommand \(rehash, verify, gen or join\)\n` + hint + `$`},
		{args: []string{"archive", "x"}, code: exitUsage, errRE: `^bbdigest: error: archive: unknown subcommand "x"\n` + hint + `$`},
		{args: []string{"archive", "rehash", "--x"}, code: exitUsage, errRE: `^bbdigest: error: archive rehash: unknown flag --x\n` + hint + `$`},
		{args: []string{"archive", "rehash", "--workers", "-1"}, code: exitUsage, errRE: `^bbdigest: error: archive rehash: invalid value "-1" for --workers: want a whole number of workers from 1 to 1024\n` + hint + `$`},
		{args: []string{"archive", "rehash", "--workers", "0"}, code: exitUsage, errRE: `^bbdigest: error: archive rehash: invalid value "0" for --workers: want a whole number of workers from 1 to 1024\n` + hint + `$`},
		{args: []string{"archive", "rehash", "--max-record", "0"}, code: exitUsage, errRE: `^bbdigest: error: archive rehash: --max-record must be within 1\.\.805306368\n` + hint + `$`},
		{args: []string{"archive", "rehash", "--max-record", "-5"}, code: exitUsage, errRE: `^bbdigest: error: archive rehash: --max-record must be within 1\.\.805306368\n` + hint + `$`},
		{args: []string{"archive", "verify", "--profile", "x"}, code: exitUsage, errRE: `^bbdigest: error: unknown profile "x"\n`},
		{args: []string{"archive", "rehash", "no-such-file"}, code: exitUsage,
			errRE: `^bbdigest: error: no-such-file: open: no such file or directory\nbbdigest: summary: 0 records, 0 accepted, 0 rejected; incomplete\n$`},
	} {
		stdout, stderr, code := archiveCall(t, 0, strings.NewReader(tt.stdin), tt.args...)
		if code != tt.code || stdout != tt.out || !regexp.MustCompile(tt.errRE).MatchString(stderr) {
			t.Errorf("%q: exit code %d, stdout %q, stderr %q; want %d, %q, stderr matching %q", tt.args, code, stdout, stderr, tt.code, tt.out, tt.errRE)
		}
	}
}

// TestArchiveHelp checks that every form of asking for archive's help
// prints it on stdout.
func TestArchiveHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "archive"}, {"archive", "--help"}, {"archive", "-h"}, {"archive", "rehash", "--help"}, {"archive", "verify", "-h"}} {
		stdout, stderr, code := archiveCall(t, 0, nil, args...)
		if code != exitOK || stdout != archiveHelp || stderr != "" {
			t.Errorf("%q: exit code %d, stdout %.60q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestArchiveMaxRecord checks --max-record at its edge: a line of N bytes
// ("\r" included) is answered, one of N+1 is too-large at offset N; and
// that it cannot raise the profile's bound.
func TestArchiveMaxRecord(t *testing.T) {
	in := "[" + strings.Repeat(" ", 8) + "]\n" + "[" + strings.Repeat(" ", 9) + "]\n" + "[" + strings.Repeat(" ", 8) + "]\r\n"
	out, _, _ := archiveCall(t, 0, strings.NewReader(in), "archive", "rehash", "--max-record", "10")
	want := `{"line":1,"digest":"` + shaHex("[]") + `"}` + "\n" +
		`{"line":2,"error":{"class":"too-large","offset":10,"pointer":"","message":"line longer than the 10-byte bound"}}` + "\n" +
		`{"line":3,"error":{"class":"too-large","offset":10,"pointer":"","message":"line longer than the 10-byte bound"}}` + "\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	out, _, _ = archiveCall(t, 5, strings.NewReader(in), "archive", "rehash", "--max-record", "100")
	if !strings.HasPrefix(out, `{"line":1,"error":{"class":"too-large","offset":5,`) {
		t.Errorf("--max-record 100 under a bound of 5: %s", out)
	}
}
