package diag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/internal/inerttest"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                              `""`,
		"/a/b":                          `"/a/b"`,
		"x\ny: fake problem\n/synopsis": `"x\ny: fake problem\n/synopsis"`,
		"\x1b[31m":                      `"\u001b[31m"`,
		"\b\f\t\r\x00\x7f":              `"\b\f\t\r\u0000\u007f"`,
		"\u0085\u202e\u2028\ufeff":      `"\u0085\u202e\u2028\ufeff"`,
		"\U000E0041":                    `"\udb40\udc41"`,
		"\xff\xc3":                      `"\xff\xc3"`,
		`a"b\c`:                         `"a\"b\\c"`,
		"é€😀 ~":                         `"é€😀 ~"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	// Quoted valid UTF-8 is a JSON string of the same value.
	for _, s := range inerttest.Hostile {
		q := Quote(s)
		inerttest.AssertInert(t, "Quote", []byte(q))
		if !utf8.ValidString(s) {
			continue
		}
		var back string
		if err := json.Unmarshal([]byte(q), &back); err != nil || back != s {
			t.Errorf("Quote(%q) = %s: JSON gives %q, %v", s, q, back, err)
		}
	}
}

func TestText(t *testing.T) {
	for _, s := range inerttest.Hostile {
		got := Text(s)
		inerttest.AssertInert(t, "Text", []byte(got))
		if strings.Contains(got, "\n") {
			t.Errorf("Text(%q) = %q holds a newline", s, got)
		}
	}
	if got, want := Text(`a "b" \n`), `a "b" \n`; got != want {
		t.Errorf("Text changed printable text: %q", got)
	}
}

func TestFileField(t *testing.T) {
	for in, want := range map[string]string{
		"a.json":       "a.json",
		"dir/a b.json": "dir/a b.json",
		`we\ird.json`:  `we\ird.json`,
		"é.json":       "é.json",
		"":             `""`,
		`"q.json`:      `"\"q.json"`,
		"a: b.json":    `"a: b.json"`,
		"bad\nname":    `"bad\nname"`,
		"esc\x1b":      `"esc\u001b"`,
		"rtl\u202e":    `"rtl\u202e"`,
		"x\xff":        `"x\xff"`,
	} {
		if got := FileField(in); got != want {
			t.Errorf("FileField(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestSafeJSON(t *testing.T) {
	type v struct {
		S []string `json:"s"`
	}
	in := v{S: append([]string{"<&>"}, inerttest.Hostile...)}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got := SafeJSON(raw)
	inerttest.AssertInert(t, "SafeJSON", got)
	var a, b v
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatalf("SafeJSON output is not JSON: %v\n%s", err, got)
	}
	if !bytes.Equal(must(json.Marshal(a)), must(json.Marshal(b))) {
		t.Errorf("SafeJSON changed the value:\n%s\n%s", raw, got)
	}
	if !bytes.Contains(got, []byte(`bidi\u202eevil\u202c`)) || !bytes.Contains(got, []byte(`c1\u0085\u009b`)) || !bytes.Contains(got, []byte(`del\u007f`)) {
		t.Errorf("SafeJSON output %s", got)
	}
	if plain := []byte(`{"a":"é"}`); &SafeJSON(plain)[0] != &plain[0] {
		t.Errorf("SafeJSON copied JSON that needs no escape")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestPlural: the count and the noun that agrees with it.
func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Plural(0, "record", "records"), "0 records"},
		{Plural(1, "record", "records"), "1 record"},
		{Plural(2, "record", "records"), "2 records"},
		{Plural(int64(-1), "line", "lines"), "-1 lines"},
		{Plural(uint64(1), "summary", "summaries"), "1 summary"},
		{Plural(uint64(12), "summary", "summaries"), "12 summaries"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestWriteMessage: a write failure that names its operation and file is
// said as it is, any other after "write: ".
func TestWriteMessage(t *testing.T) {
	pe := &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	if got, want := WriteMessage(pe), "write /dev/stdout: no space left on device"; got != want {
		t.Errorf("WriteMessage(PathError) = %q, want %q", got, want)
	}
	if got, want := WriteMessage(fmt.Errorf("wrapped: %w", pe)), "wrapped: write /dev/stdout: no space left on device"; got != want {
		t.Errorf("WriteMessage(wrapped PathError) = %q, want %q", got, want)
	}
	if got, want := WriteMessage(io.ErrClosedPipe), "write: io: read/write on closed pipe"; got != want {
		t.Errorf("WriteMessage(ErrClosedPipe) = %q, want %q", got, want)
	}
}
