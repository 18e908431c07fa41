package main

// bbdigest man: the manual page bbdigest(1), in roff with the man macros,
// made from the help texts and the command table, so that it says what
// 'bbdigest help' says. The help texts are laid out by hand (tables,
// aligned examples), so they go into the page as they are, in no-fill
// mode, each character escaped for roff (roffEscape).

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// manHelp is the help of man, help/man.txt.
var manHelp = helpFile("man")

// environment lists the environment variables that bbdigest reads, for
// the page's ENVIRONMENT (TestManEnvironment holds it to the os.Getenv
// and os.LookupEnv calls of the packages bbdigest is built from).
var environment = []struct{ name, text string }{
	{"BBDIGEST_SHA256", "Force a SHA-256 path: generic, shani, avx2, avx512 or arm64. An unknown name, or a path this CPU or build cannot run, is not fatal: bbdigest runs the detected path, and 'bbdigest cpu' prints a warning that says why."},
	{"JOB_COMPLETION_INDEX", "The index of the shard that archive rehash and archive verify answer with --shards N, as a Kubernetes Indexed Job sets it in each pod."},
}

// man is "bbdigest man": it prints the manual page.
func (c *cli) man(args []string) int {
	fs := c.flagSet("man")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	return c.write([]byte(manPage()))
}

// manPage returns the manual page bbdigest(1).
func manPage() string {
	var b strings.Builder
	b.WriteString(`.\" bbdigest(1), made by 'bbdigest man' from the help of bbdigest.` + "\n")
	// The date, digits and hyphens, goes unescaped: mandoc reads it.
	fmt.Fprintf(&b, ".TH BBDIGEST 1 \"%s\" %s \"User Commands\"\n", manDate(), roffArg("bbdigest "+version()))

	b.WriteString(".SH NAME\nbbdigest \\- canonicalize JSON with RFC 8785 (JCS) and print SHA\\-256 digests\n")

	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, cmd := range commands {
		if cmd.synopsis == nil {
			fmt.Fprintf(&b, "\\fBbbdigest %s\\fR\n", roffEscape(cmd.name))
		}
		for _, s := range cmd.synopsis {
			fmt.Fprintf(&b, "\\fBbbdigest %s\\fR %s\n", roffEscape(cmd.name), roffEscape(s))
		}
	}
	b.WriteString(".fi\n")

	b.WriteString(".SH DESCRIPTION\n")
	roffFill(&b, overviewIntro)
	b.WriteString(".PP\n")
	roffFill(&b, overviewNotes)
	b.WriteString(".SS Commands\n")
	for _, cmd := range commands {
		fmt.Fprintf(&b, ".TP 12n\n.B %s\n", roffEscape(cmd.name))
		roffFill(&b, cmd.summary)
	}
	b.WriteString(".SS Diagnostics\n")
	roffNoFill(&b, dedent(overviewDiagnostics))

	// Each command's help as it prints it, indented less than a
	// section's text, so that its lines, laid out for 80 columns, fit
	// in 80 columns on the page.
	b.WriteString(".SH COMMANDS\n")
	for _, cmd := range commands {
		fmt.Fprintf(&b, ".SS %s\n.in 3n\n.sp\n", roffArg("bbdigest "+cmd.name))
		roffNoFill(&b, cmd.help)
		b.WriteString(".in\n")
	}

	b.WriteString(".SH EXIT STATUS\n")
	roffNoFill(&b, dedent(overviewExit))

	b.WriteString(".SH ENVIRONMENT\n")
	for _, e := range environment {
		fmt.Fprintf(&b, ".TP\n.B %s\n", roffEscape(e.name))
		roffFill(&b, e.text)
	}

	b.WriteString(".SH EXAMPLES\n")
	roffNoFill(&b, dedent(overviewExamples))

	b.WriteString(`.SH SEE ALSO
.BR sha256sum (1)
.PP
RFC 8785, JSON Canonicalization Scheme (JCS);
RFC 6901, JavaScript Object Notation (JSON) Pointer;
draft\-morrison\-binding\-moment\-envelope\-04, the binding\-moment envelope.
`)
	return b.String()
}

// manDate returns the date of the page for .TH: the day of the commit
// bbdigest was built from, when the build recorded it, so that the same
// build always writes the same page; else (go run, go test) today's.
func manDate() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" && len(s.Value) >= len("2006-01-02") {
				return s.Value[:len("2006-01-02")]
			}
		}
	}
	return time.Now().UTC().Format("2006-01-02")
}

// roffFill writes the words of text, escaped, as a filled paragraph, in
// source lines of at most 78 bytes (escaping adds no space, so wrap cuts
// no escape sequence).
func roffFill(b *strings.Builder, text string) {
	for line := range strings.Lines(wrap(roffEscape(text), 0, 78)) {
		b.WriteString(roffDot(strings.TrimSuffix(line, "\n")) + "\n")
	}
}

// roffNoFill writes text in no-fill mode, line for line as it is laid
// out, with the lines that head a section of a help text ("Options:") in
// bold.
func roffNoFill(b *strings.Builder, text string) {
	b.WriteString(".nf\n")
	for line := range strings.Lines(strings.TrimRight(text, "\n") + "\n") {
		line = strings.TrimSuffix(line, "\n")
		if isHeading(line) {
			b.WriteString(`\fB` + roffEscape(line) + `\fR` + "\n")
			continue
		}
		b.WriteString(roffLine(line) + "\n")
	}
	b.WriteString(".fi\n")
}

// isHeading reports whether line heads a section of a help text: a
// capitalised phrase of letters and spaces that ends in a colon, at the
// start of the line ("Exit status:").
func isHeading(line string) bool {
	phrase, ok := strings.CutSuffix(line, ":")
	if !ok || phrase == "" || phrase[0] < 'A' || phrase[0] > 'Z' {
		return false
	}
	for _, r := range phrase {
		if r != ' ' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// dedent removes from each line of text the indentation that all its
// lines that are not blank share.
func dedent(text string) string {
	common := -1
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		n := len(line) - len(strings.TrimLeft(line, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	var b strings.Builder
	for line := range strings.Lines(text) {
		if len(line) >= common && strings.TrimSpace(line[:max(common, 0)]) == "" {
			line = line[max(common, 0):]
		}
		b.WriteString(line)
	}
	return b.String()
}

// roffLine returns line escaped as a roff text line.
func roffLine(line string) string { return roffDot(roffEscape(line)) }

// roffDot returns the escaped text line s with a \& (a zero-width
// character) before a dot that starts it, which roff would read as a
// request. An apostrophe, the other character that starts a request, is
// escaped as \(aq.
func roffDot(s string) string {
	if strings.HasPrefix(s, ".") {
		return `\&` + s
	}
	return s
}

// roffArg returns s as one double-quoted argument of a roff macro.
func roffArg(s string) string { return `"` + roffEscape(s) + `"` }

// roffEscape escapes s for roff, text or macro argument alike, so that it
// prints as it reads: a backslash as \e; the minus, the apostrophe, the
// grave accent, the double quote, the circumflex and the tilde as the
// named ASCII characters (roff would print "-" as a hyphen and "'" as a
// closing quote, which a reader cannot paste into a shell); and every
// character that is not ASCII as \[uXXXX], which needs no input encoding.
// A control character, which a help text never holds, is dropped.
func roffEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\'':
			b.WriteString(`\(aq`)
		case r == '`':
			b.WriteString(`\(ga`)
		case r == '"':
			b.WriteString(`\(dq`)
		case r == '^':
			b.WriteString(`\(ha`)
		case r == '~':
			b.WriteString(`\(ti`)
		case r >= 0x80:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		case r < 0x20 || r == 0x7f:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
