// Package roff writes the manual page of the bbdigest command in roff with
// the man macros: text escaped so that it prints as it reads, filled
// paragraphs, and the help texts, laid out by hand, in no-fill mode with
// their section headings in bold. Wrap, which fills paragraphs, also fills
// the command's overview.
package roff

import (
	"fmt"
	"slices"
	"strings"
)

// Fill writes the words of text, escaped, as a filled paragraph, in
// source lines of at most 78 bytes (escaping adds no space, so wrap cuts
// no escape sequence).
func Fill(b *strings.Builder, text string) {
	for line := range strings.Lines(Wrap(Escape(text), 0, 78)) {
		b.WriteString(dot(strings.TrimSuffix(line, "\n")) + "\n")
	}
}

// NoFill writes text in no-fill mode, line for line as it is laid
// out, with the lines that head a section of a help text ("Options:") in
// bold.
func NoFill(b *strings.Builder, text string) {
	b.WriteString(".nf\n")
	for line := range strings.Lines(strings.TrimRight(text, "\n") + "\n") {
		line = strings.TrimSuffix(line, "\n")
		if isHeading(line) {
			b.WriteString(`\fB` + Escape(line) + `\fR` + "\n")
			continue
		}
		b.WriteString(Line(line) + "\n")
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

// Dedent removes from each line of text the indentation that all its
// lines that are not blank share.
func Dedent(text string) string {
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

// Line returns line escaped as a roff text line.
func Line(line string) string { return dot(Escape(line)) }

// dot returns the escaped text line s with a \& (a zero-width
// character) before a dot that starts it, which roff would read as a
// request. An apostrophe, the other character that starts a request, is
// escaped as \(aq.
func dot(s string) string {
	if strings.HasPrefix(s, ".") {
		return `\&` + s
	}
	return s
}

// Arg returns s as one double-quoted argument of a roff macro.
func Arg(s string) string { return `"` + Escape(s) + `"` }

// Escape escapes s for roff, text or macro argument alike, so that it
// prints as it reads: a backslash as \e; the minus, the apostrophe, the
// grave accent, the double quote, the circumflex and the tilde as the
// named ASCII characters (roff would print "-" as a hyphen and "'" as a
// closing quote, which a reader cannot paste into a shell); and every
// character that is not ASCII as \[uXXXX], which needs no input encoding.
// A control character, which a help text never holds, is dropped.
func Escape(s string) string {
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

// Wrap fills the words of text into lines of at most width bytes (a word
// longer than that takes a line of its own) and returns them joined with
// "\n", without a final one. The first line is taken to start at column
// indent, after what the caller writes before it; each line after it
// starts with indent spaces.
func Wrap(text string, indent, width int) string {
	var b strings.Builder
	n := indent // the length of the current line
	for i, w := range slices.Collect(strings.FieldsSeq(text)) {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				n = indent
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
