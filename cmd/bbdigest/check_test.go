package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/inerttest"

	"github.com/bbdigest/bbdigest/internal/diag"
	"github.com/bbdigest/bbdigest/internal/sumline"
)

// hexOf is the plain hex of the digest of hand-written canonical bytes, as
// sha256sum writes it.
func hexOf(canonical string) string { return strings.TrimPrefix(sha(canonical), "sha256:") }

// TestCheckNamesRoundTrip checks that a name escaped by AppendName, as
// digest --names writes it, reads back from each form of check line.
func TestCheckNamesRoundTrip(t *testing.T) {
	hex := hexOf(aCanon)
	for _, name := range append([]string{"a.json", `a\b`, "new\nline\r", "a (1).json"}, inerttest.Hostile...) {
		if name == "" {
			continue
		}
		own := sumline.AppendName([]byte(sha(aCanon)+"  "), name)
		plain := sumline.AppendName([]byte(hex+"  "), name)
		esc := name
		if diag.NeedsEscape(name, diag.ModeName) {
			esc = string(diag.AppendEscaped(nil, name, diag.ModeName))
		}
		tag := "SHA256 (" + esc + ") = " + hex
		if esc != name {
			tag = `\` + tag
		}
		for _, line := range []string{string(own), string(plain), tag} {
			cl, reason := sumline.Parse([]byte(line))
			if reason != "" || cl.Name != name {
				t.Errorf("name %q: %q reads as %q (%q)", name, line, cl.Name, reason)
			}
		}
	}
}

// TestCheck runs digest --check on lists in each form, with each of its
// flags, and checks its answers, diagnostics, warnings and exit code.
func TestCheck(t *testing.T) {
	aHex, bHex := hexOf(aCanon), hexOf(bCanon)
	zero := strings.Repeat("0", 64)
	own := sha(aCanon) + "  a.json\n" + sha(bCanon) + "  b.json\n"
	const (
		okAB     = "a.json: OK\nb.json: OK\n"
		hint     = `bbdigest: hint: plain sha256sum lines are compared with the SHA-256 of the canonical form \(JCS\), not of the bytes: a file that is not canonical JSON fails though its sha256sum matches\n`
		mismatch = "bbdigest: warning: 1 computed checksum did NOT match\n"
		unread   = "bbdigest: warning: 1 listed file could not be read\n"
		nope     = "bbdigest: error: nope.json: open: no such file or directory\n"
		improper = `improperly formatted checksum line: want .*\n`
	)
	runCases(t, []runCase{
		// Where the lists come from: FILE, stdin, "-"; flags before or
		// after them.
		{name: "check file", args: []string{"digest", "--check", "sums.txt"}, stdout: okAB},
		{name: "check -c", args: []string{"digest", "-c", "sums.txt"}, stdout: okAB},
		{name: "check after the list", args: []string{"digest", "sums.txt", "--check"}, stdout: okAB},
		{name: "check grouped", args: []string{"digest", "-wc", "sums.txt"}, stdout: okAB},
		{name: "check stdin", args: []string{"digest", "-c"}, stdin: own, stdout: okAB},
		{name: "check dash", args: []string{"digest", "--check", "-"}, stdin: own, stdout: okAB},
		{name: "check two lists", args: []string{"digest", "-c", "sums.txt", "-"}, stdin: own, stdout: okAB + okAB},
		{name: "check profile", args: []string{"digest", "-c", "--profile", "rfc8785"}, stdin: sha("[0.5]") + "  frac.json\n", stdout: "frac.json: OK\n"},

		// sha256sum's forms; the canonical form is what is compared.
		{name: "check plain", args: []string{"digest", "-c"},
			stdin:  aHex + "  a.json\n" + strings.ToUpper(bHex) + " *b.json\nSHA256 (a.json) = " + aHex + "\nSHA256(b.json)= " + bHex + "\n",
			stdout: okAB + okAB},
		{name: "check plain crlf and comments", args: []string{"digest", "-c"},
			stdin:  "# made by sha256sum\r\n" + aHex + "  a.json\r\n#\n" + sha(bCanon) + "  b.json\r\n",
			stdout: okAB},
		{name: "check plain failed hints once", args: []string{"digest", "-c"},
			stdin:  zero + "  a.json\n" + sha(bCanon) + "  b.json\nSHA256 (b.json) = " + zero + "\n",
			code:   1,
			stdout: "a.json: FAILED\nb.json: OK\nb.json: FAILED\n",
			errRE:  `^` + hint + `bbdigest: warning: 2 computed checksums did NOT match\n$`},
		{name: "check own failed no hint", args: []string{"digest", "-c"},
			stdin: sha(bCanon) + "  a.json\n" + own, code: 1,
			stdout: "a.json: FAILED\n" + okAB, errRE: `^` + mismatch + `$`},

		// --quiet, --status, --warn: the last wins.
		{name: "check quiet", args: []string{"digest", "-c", "--quiet"}, stdin: own + zero + "  b.json\n", code: 1,
			stdout: "b.json: FAILED\n", errRE: `^` + hint + mismatch + `$`},
		{name: "check quiet ok", args: []string{"digest", "--quiet", "-c", "sums.txt"}},
		{name: "check status failed", args: []string{"digest", "-c", "--status"}, stdin: own + zero + "  b.json\n", code: 1},
		{name: "check status ok", args: []string{"digest", "-c", "--status", "sums.txt"}},
		{name: "check status malformed", args: []string{"digest", "-c", "--status"}, stdin: own + "junk\n", code: 1},
		{name: "check status still reports reads", args: []string{"digest", "-c", "--status"},
			stdin: own + aHex + "  nope.json\n" + aHex + "  dup.json\n", code: 1,
			errRE: `^` + nope + `bbdigest: error: dup.json: "/a": duplicate-name: .*\n$`},
		{name: "check status no lines", args: []string{"digest", "-c", "--status"}, stdin: "junk\n", code: 1,
			errRE: `^bbdigest: error: -: no properly formatted checksum lines found\n$`},
		{name: "check warn", args: []string{"digest", "--warn", "-c"}, stdin: own, stdout: okAB},
		{name: "check quiet then warn", args: []string{"digest", "-c", "--quiet", "-w"}, stdin: own, stdout: okAB},
		{name: "check warn then quiet", args: []string{"digest", "-c", "-w", "--quiet"}, stdin: own},
		{name: "check status then quiet", args: []string{"digest", "-c", "--status", "--quiet"}, stdin: zero + "  a.json\n", code: 1,
			stdout: "a.json: FAILED\n", errRE: `^` + hint + mismatch + `$`},
		{name: "check quiet then status", args: []string{"digest", "-c", "--quiet", "--status"}, stdin: zero + "  a.json\n", code: 1},
		{name: "check quiet undone", args: []string{"digest", "-c", "--quiet", "--quiet=false"}, stdin: own, stdout: okAB},

		// Files that cannot be read, are missing or are rejected.
		{name: "check missing", args: []string{"digest", "-c"}, stdin: own + aHex + "  nope.json\n", code: 1,
			stdout: okAB + "nope.json: FAILED open or read\n", errRE: `^` + nope + unread + `$`},
		{name: "check ignore missing", args: []string{"digest", "-c", "--ignore-missing"}, stdin: aHex + "  nope.json\n" + own, stdout: okAB},
		{name: "check ignore missing none verified", args: []string{"digest", "-c", "--ignore-missing"}, stdin: aHex + "  nope.json\n", code: 1,
			errRE: `^bbdigest: error: -: no file was verified\n$`},
		{name: "check ignore missing only failed", args: []string{"digest", "-c", "--ignore-missing"}, stdin: aHex + "  nope.json\n" + zero + "  a.json\n", code: 1,
			stdout: "a.json: FAILED\n", errRE: `^` + hint + mismatch + `bbdigest: error: -: no file was verified\n$`},
		{name: "check ignore missing status", args: []string{"digest", "-c", "--ignore-missing", "--status"}, stdin: aHex + "  nope.json\n", code: 1},
		{name: "check ignore missing not unreadable", args: []string{"digest", "-c", "--ignore-missing"}, stdin: own + aHex + "  dup.json/x\n", code: 1,
			stdout: okAB + "dup.json/x: FAILED open or read\n", errRE: `^bbdigest: error: dup.json/x: open: not a directory\n` + unread + `$`},
		{name: "check rejected", args: []string{"digest", "-c"}, stdin: aHex + "  dup.json\n" + aHex + "  frac.json\n", code: 1,
			stdout: "dup.json: FAILED rejected\nfrac.json: FAILED rejected\n",
			errRE:  `^bbdigest: error: dup.json: "/a": duplicate-name: .*\nbbdigest: error: frac.json: "/0": non-integer: .*\nbbdigest: warning: 2 listed files were rejected by the canon gate\n$`},
		{name: "check every warning", args: []string{"digest", "-c"}, stdin: "junk\n" + zero + "  a.json\n" + aHex + "  nope.json\n" + aHex + "  dup.json\n", code: 1,
			stdout: "a.json: FAILED\nnope.json: FAILED open or read\ndup.json: FAILED rejected\n",
			errRE: `^bbdigest: error: -: line 1: ` + improper + hint + nope + `bbdigest: error: dup.json: .*\n` +
				`bbdigest: warning: 1 line is improperly formatted\n` + unread +
				`bbdigest: warning: 1 listed file was rejected by the canon gate\n` + mismatch + `$`},

		// Improperly formatted lines fail (--strict is the default).
		{name: "check malformed", args: []string{"digest", "-c"}, stdin: own + "junk\n\n" + aHex + " a.json\n", code: 1, stdout: okAB,
			errRE: `^bbdigest: error: -: line 3: ` + improper + `bbdigest: error: -: line 5: ` + improper +
				`bbdigest: warning: 2 lines are improperly formatted\n$`},
		{name: "check empty lines skipped", args: []string{"digest", "-c"}, stdin: "\n" + sha(aCanon) + "  a.json\n\r\n\n" + sha(bCanon) + "  b.json\n\n", stdout: okAB},
		{name: "check strict", args: []string{"digest", "-c", "--strict", "-"}, stdin: "junk\n" + own, code: 1, stdout: okAB,
			errRE: `^bbdigest: error: -: line 1: ` + improper + `bbdigest: warning: 1 line is improperly formatted\n$`},
		{name: "check strict false", args: []string{"digest", "-c", "--strict=false"}, stdin: own, code: 2,
			errRE: `^bbdigest: error: digest: invalid value "false" for --strict: it is always on: an improperly formatted line could hide a file that should have been checked\nbbdigest: hint: `},
		{name: "check other lengths", args: []string{"digest", "-c", "sums.txt", "-"}, stdin: aHex + aHex + "  a.json\nSHA1 (a.json) = " + aHex[:40] + "\n", code: 1,
			stdout: okAB,
			errRE: `^bbdigest: error: -: line 1: a digest of 128 hex digits \(sha512sum and b2sum write those\): only SHA-256 is supported, 64 hex digits\n` +
				`bbdigest: error: -: line 2: a SHA1 digest: only SHA-256 is supported, "SHA256 \(NAME\) = <64 hex>"\n` +
				`bbdigest: error: -: no properly formatted checksum lines found\n$`},
		{name: "check empty", args: []string{"digest", "-c"}, code: 1,
			errRE: `^bbdigest: error: -: no properly formatted checksum lines found\n$`},
		{name: "check comments only", args: []string{"digest", "-c"}, stdin: "# nothing\n", code: 1,
			errRE: `^bbdigest: error: -: no properly formatted checksum lines found\n$`},
		{name: "check stdin in stdin", args: []string{"digest", "-c"}, stdin: aHex + "  -\n" + own, code: 1,
			stdout: "-: FAILED open or read\n" + okAB,
			errRE:  `^bbdigest: error: -: open: stdin is the list of digests being checked\n` + unread + `$`},
		{name: "check list missing", args: []string{"digest", "-c", "nope.txt", "sums.txt"}, code: 2, stdout: okAB,
			errRE: `^bbdigest: error: nope.txt: open: no such file or directory\n$`},
		{name: "check list missing and failed", args: []string{"digest", "-c", "-", "nope.txt"}, stdin: zero + "  a.json\n", code: 2,
			stdout: "a.json: FAILED\n",
			errRE:  `^` + hint + mismatch + `bbdigest: error: nope.txt: open: no such file or directory\n$`},

		// Usage errors.
		{name: "check with value", args: []string{"digest", "--check=sums.txt"}, code: 2,
			errRE: `^bbdigest: error: digest: invalid value "sums.txt" for --check: a switch takes no value: the lists of digests are FILE arguments, as in 'bbdigest digest --check digests.txt'\nbbdigest: hint: run 'bbdigest help digest' for usage\n$`},
		{name: "check with names", args: []string{"digest", "-c", "--names", "sums.txt"}, code: 2,
			errRE: `^bbdigest: error: digest: --check does not go with --lines or --names\n`},
		{name: "check with lines", args: []string{"digest", "sums.txt", "--lines", "-c"}, code: 2,
			errRE: `^bbdigest: error: digest: --check does not go with --lines or --names\n`},
		{name: "quiet without check", args: []string{"digest", "--quiet", "a.json"}, code: 2,
			errRE: `^bbdigest: error: digest: --quiet goes with --check\nbbdigest: hint: run 'bbdigest help digest' for usage\n$`},
		{name: "status without check", args: []string{"digest", "a.json", "--status"}, code: 2,
			errRE: `^bbdigest: error: digest: --status goes with --check\n`},
		{name: "w without check", args: []string{"digest", "-w", "a.json"}, code: 2,
			errRE: `^bbdigest: error: digest: -w goes with --check\n`},
		{name: "warn without check", args: []string{"digest", "--warn", "a.json"}, code: 2,
			errRE: `^bbdigest: error: digest: --warn goes with --check\n`},
		{name: "strict without check", args: []string{"digest", "--strict", "a.json"}, code: 2,
			errRE: `^bbdigest: error: digest: --strict goes with --check\n`},
		{name: "ignore missing without check", args: []string{"digest", "--ignore-missing", "a.json"}, code: 2,
			errRE: `^bbdigest: error: digest: --ignore-missing goes with --check\n`},
	})
}

// TestCheckStdoutGone checks that --check stops when stdout cannot be
// written, with exit code 2, and does not go on to the next list.
func TestCheckStdoutGone(t *testing.T) {
	var stderr bytes.Buffer
	list := sha("[]") + "  -\n"
	code := run([]string{"digest", "-c", "-", "-"}, strings.NewReader(list), errWriter{}, &stderr)
	if code != exitUsage || !strings.HasSuffix(stderr.String(), "bbdigest: error: disk full\n") || strings.Count(stderr.String(), "disk full") != 1 {
		t.Errorf("exit code %d, stderr %q; want %d and one disk full", code, stderr.String(), exitUsage)
	}
}

// TestCheckLikeSha256sum runs GNU sha256sum --check and digest --check on
// the same lists of canonical JSON files, whose digests the two agree on,
// and compares exit codes, answers on stdout, the WARNING counts and the
// per-list errors, and the numbers of the lines reported improperly
// formatted. sha256sum runs with --strict, bbdigest's default, and with
// --warn, which bbdigest does unless --status or --quiet says otherwise.
func TestCheckLikeSha256sum(t *testing.T) {
	gnu, err := exec.LookPath("sha256sum")
	if err != nil {
		t.Skip("sha256sum (GNU coreutils) is not installed: nothing to compare with")
	}
	if out, err := exec.Command(gnu, "--version").Output(); err != nil || !bytes.Contains(out, []byte("GNU coreutils")) {
		t.Skipf("%s is not GNU coreutils' sha256sum: %v", gnu, err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"a.json":      aCanon,
		"b.json":      bCanon,
		"c.json":      `[]`,
		"new\nl.json": `{"x":"y"}`,
	}
	hexes := map[string]string{}
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
		hexes[name] = hexOf(content)
	}
	zero := strings.Repeat("0", 64)
	line := func(name string) string { return hexes[name] + "  " + name + "\n" }
	lists := map[string]string{
		"ok.txt":       line("a.json") + line("b.json") + hexes["c.json"] + " *c.json\n",
		"tag.txt":      "SHA256 (a.json) = " + hexes["a.json"] + "\nSHA256 (b.json) = " + strings.ToUpper(hexes["b.json"]) + "\n",
		"escaped.txt":  `\` + hexes["new\nl.json"] + "  new\\nl.json\n" + `\SHA256 (new\nl.json) = ` + hexes["new\nl.json"] + "\n",
		"fail1.txt":    line("a.json") + zero + "  b.json\n",
		"fail2.txt":    zero + "  a.json\n" + zero + "  b.json\n" + line("c.json"),
		"missing.txt":  line("a.json") + zero + "  nope.json\n" + zero + "  gone.json\n",
		"allgone.txt":  zero + "  nope.json\n",
		"gonefail.txt": zero + "  nope.json\n" + zero + "  a.json\n",
		// No empty line: coreutils 9 skips them, as bbdigest does, and
		// coreutils 8 counts them improperly formatted.
		"bad.txt":     line("a.json") + "junk\n" + hexes["b.json"] + " b.json\n" + line("b.json"),
		"badonly.txt": "junk\n" + hexes["a.json"] + hexes["a.json"] + "  a.json\nSHA512 (a.json) = " + hexes["a.json"] + hexes["a.json"] + "\n",
		"empty.txt":   "",
		"comment.txt": "# sums\n" + line("a.json") + "#\n",
		"mixed.txt":   "junk\n" + zero + "  a.json\n" + zero + "  nope.json\n" + line("b.json"),
	}
	for name, content := range lists {
		if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"ok.txt"}, {"tag.txt"}, {"escaped.txt"}, {"fail1.txt"}, {"fail2.txt"},
		{"missing.txt"}, {"allgone.txt"}, {"bad.txt"}, {"badonly.txt"},
		{"empty.txt"}, {"comment.txt"}, {"mixed.txt"},
		{"ok.txt", "fail1.txt", "bad.txt", "missing.txt"},
		{"--quiet", "ok.txt"}, {"--quiet", "mixed.txt"}, {"--quiet", "fail2.txt", "ok.txt"},
		{"--status", "ok.txt"}, {"--status", "fail1.txt"}, {"--status", "missing.txt"},
		{"--status", "bad.txt"}, {"--status", "badonly.txt"}, {"--status", "mixed.txt"},
		{"--ignore-missing", "missing.txt"}, {"--ignore-missing", "allgone.txt"},
		{"--ignore-missing", "gonefail.txt"}, {"--ignore-missing", "mixed.txt"},
		{"--ignore-missing", "--status", "allgone.txt"}, {"--ignore-missing", "--quiet", "missing.txt"},
		{"--quiet", "--warn", "bad.txt"}, {"--warn", "--status", "bad.txt"}, {"--status", "--quiet", "mixed.txt"},
	} {
		cmd := exec.Command(gnu, append([]string{"--check", "--strict", "--warn"}, args...)...)
		var gout, gerr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &gout, &gerr
		cmd.Args[0] = "sha256sum" // its messages start with the name it is run by
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		gcode := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			gcode = ee.ExitCode()
		}
		var bout, berr bytes.Buffer
		bcode := run(append([]string{"digest", "--check"}, args...), strings.NewReader(""), &bout, &berr)

		if bcode != gcode {
			t.Errorf("%q: exit code %d, sha256sum's %d", args, bcode, gcode)
		}
		if bout.String() != gout.String() {
			t.Errorf("%q: stdout\n%s\nsha256sum's\n%s", args, bout.String(), gout.String())
		}
		g, b := gnuSummary(gerr.String()), bbdigestSummary(berr.String())
		if !slices.Equal(b.warnings, g.warnings) || !slices.Equal(b.listErrors, g.listErrors) {
			t.Errorf("%q: warnings %q and list errors %q; sha256sum's %q and %q\nstderr:\n%s\nsha256sum's:\n%s",
				args, b.warnings, b.listErrors, g.warnings, g.listErrors, berr.String(), gerr.String())
		}
		// Of --warn, --quiet and --status the last wins, in both tools;
		// sha256sum runs with --warn first. Under --quiet sha256sum
		// reports no line, and bbdigest still does (the help says so).
		level := "--warn"
		for _, a := range args {
			if a == "--warn" || a == "--quiet" || a == "--status" {
				level = a
			}
		}
		switch {
		case level == "--warn" && !slices.Equal(b.badLines, g.badLines):
			t.Errorf("%q: improperly formatted lines %q, sha256sum's %q", args, b.badLines, g.badLines)
		case level == "--status" && len(b.badLines)+len(g.badLines) > 0:
			t.Errorf("%q: --status reported lines %q, sha256sum %q", args, b.badLines, g.badLines)
		}
		if !slices.Equal(b.unread, g.unread) {
			t.Errorf("%q: files reported unreadable %q, sha256sum's %q", args, b.unread, g.unread)
		}
	}
}

// checkSummary is what TestCheckLikeSha256sum compares of the stderr of a
// check: the WARNING counts, the errors about whole lists ("LIST: no file
// was verified"), the improperly formatted lines reported ("LIST:N"), and
// the files reported unreadable.
type checkSummary struct {
	warnings, listErrors, badLines, unread []string
}

var (
	gnuBadLine = regexp.MustCompile(`^sha256sum: (.*): (\d+): improperly formatted (?:SHA256 )?checksum line$`)
	bbdBadLine = regexp.MustCompile(`^bbdigest: error: (.*): line (\d+): `)
	gnuUnread  = regexp.MustCompile(`^sha256sum: (.*): No such file or directory$`)
	bbdUnread  = regexp.MustCompile(`^bbdigest: error: (.*): open: no such file or directory$`)
	listError  = regexp.MustCompile(`: (no file was verified|no properly formatted (?:SHA256 )?checksum lines found)$`)
)

func gnuSummary(stderr string) (s checkSummary) {
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if w, ok := strings.CutPrefix(l, "sha256sum: WARNING: "); ok {
			s.warnings = append(s.warnings, w)
		} else if m := gnuBadLine.FindStringSubmatch(l); m != nil {
			s.badLines = append(s.badLines, m[1]+":"+m[2])
		} else if m := gnuUnread.FindStringSubmatch(l); m != nil {
			s.unread = append(s.unread, m[1])
		} else if listError.MatchString(l) {
			s.listErrors = append(s.listErrors, strings.Replace(strings.TrimPrefix(l, "sha256sum: "), "SHA256 ", "", 1))
		}
	}
	return s
}

func bbdigestSummary(stderr string) (s checkSummary) {
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if w, ok := strings.CutPrefix(l, "bbdigest: warning: "); ok {
			s.warnings = append(s.warnings, w)
		} else if m := bbdBadLine.FindStringSubmatch(l); m != nil {
			s.badLines = append(s.badLines, m[1]+":"+m[2])
		} else if m := bbdUnread.FindStringSubmatch(l); m != nil {
			s.unread = append(s.unread, m[1])
		} else if listError.MatchString(l) {
			s.listErrors = append(s.listErrors, strings.TrimPrefix(l, "bbdigest: error: "))
		}
	}
	return s
}

// TestCheckListNames checks that a list's name in a diagnostic is quoted
// as every FILE field is, and that the escaped name of a listed file
// answers as digest --names escapes it.
func TestCheckListNames(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	list := "li\x1bst: 1.txt"
	if err := os.WriteFile(filepath.Join(dir, list), []byte("junk\n"+hexOf("[]")+"  n\\x1b.json\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"digest", "-c", list}, strings.NewReader(""), &stdout, &stderr)
	const wantErr = "bbdigest: error: \"li\\u001bst: 1.txt\": line 1: improperly formatted"
	if code != exitRejected || !strings.HasPrefix(stderr.String(), wantErr) {
		t.Errorf("exit code %d, stderr %q; want %d and %q...", code, stderr.String(), exitRejected, wantErr)
	}
	inerttest.AssertInert(t, "stderr", stderr.Bytes())
	// A plain line without a leading backslash takes its name as it is.
	if want := "\\n\\\\x1b.json: FAILED open or read\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
}
