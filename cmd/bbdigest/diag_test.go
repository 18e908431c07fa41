package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/inerttest"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
	"github.com/bbdigest/bbdigest/internal/perline"
	"github.com/bbdigest/bbdigest/internal/sumline"
)

// TestHostileNames runs every command that reports rejections on inputs
// whose file names and member names are hostile, and checks that stdout
// and stderr are inert, that every stderr line is a diagnostic, and that
// each rejection is one line in the one format, whose FILE and POINTER read
// back as the file name and the pointer.
func TestHostileNames(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("res.json", []byte(`{"envelope_digest":"`+demo.DraftEnvelopeDigest+`","resolution":"declined"}`), 0o666); err != nil {
		t.Fatal(err)
	}
	type invocation struct {
		args          []string
		file, pointer string // what each error line must name
	}
	var runs []invocation
	for _, s := range inerttest.Hostile {
		if s == "" || strings.ContainsAny(s, "/\x00") {
			continue
		}
		f := "f-" + s + ".json"
		// A duplicate member named s, which the canon gate rejects.
		member, _ := json.Marshal(s)
		var decoded string
		json.Unmarshal(member, &decoded) // s, or with U+FFFD for bytes that are not UTF-8
		ptr := "/binding_moment/" + strings.ReplaceAll(strings.ReplaceAll(decoded, "~", "~0"), "/", "~1")
		body := `{"binding_moment":{"synopsis":"x",` + string(member) + `:1,` + string(member) + `:2}}`
		if err := os.WriteFile(f, []byte(body), 0o666); err != nil {
			t.Logf("file system refuses the name %q: %v", f, err)
			continue
		}
		runs = append(runs,
			invocation{[]string{"canon", f}, f, ptr},
			invocation{[]string{"digest", "--names", f, "res.json"}, f, ptr},
			invocation{[]string{"envelope", "validate", f}, f, ptr},
			invocation{[]string{"envelope", "digest", f}, f, ptr},
			invocation{[]string{"envelope", "render", f}, f, ptr},
			invocation{[]string{"envelope", "emit", "--ledger", filepath.Join(dir, "l.db"), f}, f, ptr},
			invocation{[]string{"resolution", "verify", "--envelope", f, "--resolution", "res.json"}, f, ptr},
			invocation{[]string{"digest", "nosuch-" + f}, "nosuch-" + f, ""},
		)
	}
	// A malformed envelope: the names are in the problems' pointers.
	var sb strings.Builder
	sb.WriteString(`{"synopsis":"x","findings":[],"recommendations":[],"offer":"","question":{"stem":"","options":[],"recommended_idx":0,"hatches":{"free_text":true,"dialogue":true}}`)
	for _, s := range inerttest.Hostile {
		m, _ := json.Marshal(s + "!")
		sb.WriteString("," + string(m) + ":1")
	}
	sb.WriteString("}")
	if err := os.WriteFile("malformed.json", []byte(sb.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	runs = append(runs,
		invocation{[]string{"envelope", "validate", "malformed.json"}, "malformed.json", ""},
		invocation{[]string{"envelope", "validate", "--json", "malformed.json"}, "", ""},
		invocation{[]string{"resolution", "verify", "--envelope", "malformed.json", "--resolution", "res.json"}, "malformed.json", ""},
	)
	for _, r := range runs {
		var stdout, stderr bytes.Buffer
		run(r.args, strings.NewReader(""), &stdout, &stderr)
		if r.args[1] != "render" { // the fallback payload is envelope's to escape
			inerttest.AssertInert(t, "stdout", stdout.Bytes())
		}
		inerttest.AssertInert(t, "stderr", stderr.Bytes())
		errors := 0
		for _, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
			if line == "" && stderr.Len() == 0 {
				continue
			}
			if strings.HasPrefix(line, "bbdigest: hint: ") {
				continue
			}
			if !strings.HasPrefix(line, "bbdigest: error: ") {
				t.Errorf("%q: stderr line %q is not a diagnostic", r.args, line)
				continue
			}
			errors++
			if strings.HasPrefix(r.file, "nosuch-") {
				// "FILE: open: ...".
				if !strings.HasPrefix(line, "bbdigest: error: "+fileField(r.file)+": open: ") {
					t.Errorf("%q: %q does not name the file %q", r.args, line, r.file)
				}
				continue
			}
			m := diagLine.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%q: stderr line %q is not FILE: POINTER: REASON", r.args, line)
				continue
			}
			if got := unquoteField(m[1]); got != r.file {
				t.Errorf("%q: FILE %s reads back as %q, want %q", r.args, m[1], got, r.file)
			}
			if got := unquoteField(m[2]); r.pointer != "" && got != r.pointer {
				t.Errorf("%q: POINTER %s reads back as %q, want %q", r.args, m[2], got, r.pointer)
			}
		}
		switch {
		case r.file == "" && errors != 0:
			t.Errorf("%q: %d error lines, want none", r.args, errors)
		case r.pointer != "" && errors != 1:
			t.Errorf("%q: %d error lines, want one:\n%s", r.args, errors, stderr.String())
		case r.file == "malformed.json" && errors != len(inerttest.Hostile)+2: // and the two about options
			t.Errorf("%q: %d error lines, want %d:\n%s", r.args, errors, len(inerttest.Hostile)+2, stderr.String())
		}
	}
}

// diagLine is the one diagnostic format of a rejection: FILE (plain, or
// quoted), POINTER (quoted), REASON.
var diagLine = regexp.MustCompile(`^bbdigest: error: ([^"][^\n]*?|"(?:[^"\\]|\\.)*"): ("(?:[^"\\]|\\.)*"): ([^\n]+)$`)

// unquoteField reads back a FILE or POINTER field.
func unquoteField(f string) string {
	if !strings.HasPrefix(f, `"`) {
		return f
	}
	s, ok := sumline.ReadName(f[1 : len(f)-1])
	if !ok {
		return "<bad escape>"
	}
	return s
}

// TestUsageErrorsInert checks that usage errors, which quote what the user
// typed, escape it too: every diagnostic goes through errorf, which escapes
// the whole message.
func TestUsageErrorsInert(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\u202e\nbbdigest: error: forged"
	for _, args := range [][]string{
		{evil},
		{"-" + evil},
		{"help", evil},
		{"canon", "--" + evil},
		{"canon", "a.json", "-" + evil},
		{"digest", "--names=" + evil},
		{"demo", "--duration", evil},
		{"envelope", evil},
		{"resolution", evil},
		{"version", evil},
		{"resolution", "verify", "--" + evil},
		{"digest", "--check", evil},
	} {
		var stdout, stderr bytes.Buffer
		run(args, strings.NewReader(""), &stdout, &stderr)
		inerttest.AssertInert(t, "stdout", stdout.Bytes())
		inerttest.AssertInert(t, "stderr", stderr.Bytes())
		errors := 0
		for _, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
			switch {
			case strings.HasPrefix(line, "bbdigest: error: "):
				errors++
			case !strings.HasPrefix(line, "bbdigest: hint: "):
				t.Errorf("%q: stderr line %q", args, line)
			}
		}
		if errors != 1 {
			t.Errorf("%q: %d error lines, want 1:\n%s", args, errors, stderr.String())
		}
	}
}

// TestRejectionLine checks the diagnostic writer itself with hostile text
// in every field, including the REASON, whose text comes from the packages
// (which quote what they cite today; the CLI does not rely on it): one line,
// inert, in the one format, and FILE and POINTER read back.
func TestRejectionLine(t *testing.T) {
	for _, s := range inerttest.Hostile {
		var stderr bytes.Buffer
		c := &cli{stderr: &stderr}
		c.rejection(s, "/"+s, "reason "+s)
		line := stderr.String()
		inerttest.AssertInert(t, "rejection", stderr.Bytes())
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Errorf("rejection(%q) wrote %q: not one line", s, line)
			continue
		}
		m := diagLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
		if m == nil {
			t.Errorf("rejection(%q) wrote %q: not FILE: POINTER: REASON", s, line)
			continue
		}
		if got := unquoteField(m[1]); got != s {
			t.Errorf("rejection(%q): FILE %s reads back as %q", s, m[1], got)
		}
		if got := unquoteField(m[2]); got != "/"+s {
			t.Errorf("rejection(%q): POINTER %s reads back as %q", s, m[2], got)
		}
	}
}

// TestErrorLineEscaped checks the --lines answer to a rejection with
// hostile text in the message and the pointer.
func TestErrorLineEscaped(t *testing.T) {
	for _, s := range inerttest.Hostile {
		e := &canon.Error{Class: canon.ClassSyntax, Offset: 7, Pointer: "/" + s, Msg: "message " + s}
		line := perline.AppendErrorLine(nil, e)
		inerttest.AssertInert(t, "AppendErrorLine", line)
		if bytes.Count(line, []byte("\n")) != 1 || !bytes.HasPrefix(line, []byte("error syntax 7 message ")) {
			t.Errorf("AppendErrorLine for %q: %q", s, line)
		}
		if want := " within " + quote("/"+s) + "\n"; !bytes.HasSuffix(line, []byte(want)) {
			t.Errorf("AppendErrorLine for %q: %q does not end in %q", s, line, want)
		}
	}
}
