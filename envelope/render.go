package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// The marks of the plain-text rendering. They are part of the output
// format, which tests pin.
const (
	RecommendedMark = "(recommended)"
	DeclineKey      = "d"
	FreeTextKey     = "a"
	DialogueKey     = "q"
)

// RenderText returns the plain-text rendering of e (§9.2, "plain text with a
// labelled multiple-choice block"). It keeps every invariant of §9.1:
//
//   - all four briefing slots are rendered, findings and recommendations
//     in full;
//   - the recommended option starts with "*" and is followed by the mark
//     "(recommended)";
//   - each option's reasoning is on the line under its label;
//   - a decline affordance is listed with the options;
//   - each hatch whose flag is true is listed as an affordance of its own.
//
// Every string the agent wrote is shown as one double-quoted string on a
// line the renderer starts, never at the start of a line, so nothing the
// agent writes can pass for a line or a mark of the renderer (§12.1). Inside
// the quotes, '"' and '\' are escaped with a backslash, and so is every
// character a terminal could act on or that could hide or imitate the
// layout: controls (\n, \x1b, \u0085), format characters such as the bidi
// overrides (\u202e), line and paragraph separators, spaces other than the
// ASCII space, unassigned and private-use code points, characters drawn like
// the quotation mark (\u201d, \uff02), and a combining mark that would sit
// on the opening quote. The "(" that would start a "(recommended" is
// written \x28, so the mark appears in the rendering exactly once. Apart
// from these, text is shown as written.
//
// RenderText of the zero Envelope, which is not an envelope, renders no
// decision: it returns a line saying so.
func RenderText(e *Envelope) string {
	if !e.valid() {
		return "binding moment discarded: not an envelope made by Parse or Build\n"
	}
	var b []byte
	line := func(prefix, s string) {
		b = append(b, prefix...)
		b = appendQuoted(b, s)
		b = append(b, '\n')
	}
	list := func(title string, items []string) {
		b = append(b, title...)
		b = append(b, ":\n"...)
		if len(items) == 0 {
			b = append(b, "  (none)\n"...)
		}
		for _, s := range items {
			line("  - ", s)
		}
	}
	if s, ok := e.DecisionClass(); ok {
		line("Decision: ", s)
	}
	if s, ok := e.CalibrationNote(); ok {
		line("Note: ", s)
	}
	line("Synopsis: ", e.synopsis)
	b = append(b, '\n')
	list("Findings", e.findings)
	b = append(b, '\n')
	list("Recommendations", e.recommendations)
	b = append(b, '\n')
	line("Offer: ", e.offer)
	b = append(b, '\n')
	line("Question: ", e.stem)
	for i, o := range e.options {
		mark := "  "
		if i == e.recommendedIdx {
			mark = "* "
		}
		b = append(b, mark...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, ". "...)
		b = appendQuoted(b, o.Label)
		if i == e.recommendedIdx {
			b = append(b, "  "+RecommendedMark...)
		}
		b = append(b, '\n')
		line("       ", o.Reasoning)
	}
	b = append(b, "  "+DeclineKey+". Decline: answer no to the question as put\n"...)
	if e.hatches.FreeText {
		b = append(b, "  "+FreeTextKey+". Answer in your own words instead of choosing an option\n"...)
	}
	if e.hatches.Dialogue {
		b = append(b, "  "+DialogueKey+". Reject the question and reopen the discussion\n"...)
	}
	b = append(b, "\nEnvelope: "...)
	b = e.digest.AppendTo(b)
	b = append(b, '\n')
	return string(b)
}

// appendQuoted appends s in double quotes, escaped as RenderText describes.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s, quoteText)
	return append(b, '"')
}

// The modes of appendEscaped.
const (
	quoteText  = iota // inside a double-quoted string of the rendering: '"' and '\' escaped too
	jsonString        // inside a JSON string that is already escaped: escapes are JSON's \uXXXX
	diagnostic        // a message already escaped by strconv.Quote: only what it leaves raw
	rawLines          // bytes shown line by line: '\' escaped, '\n' kept
)

// appendEscaped appends s with every character that could act on a
// terminal, break or imitate the layout, or spell the recommended mark
// escaped, in the style of mode.
func appendEscaped(b []byte, s string, mode int) []byte {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		c := s[i]
		switch {
		case r == utf8.RuneError && size == 1:
			if mode == jsonString {
				b = append(b, `\ufffd`...) // not reached: JSON text is valid UTF-8
			} else {
				b = append(b, `\x`...)
				b = append(b, hexDigit[c>>4], hexDigit[c&15])
			}
		case mode == quoteText && (c == '"' || c == '\\'), mode == rawLines && c == '\\':
			b = append(b, '\\', c)
		case mode == rawLines && c == '\n':
			b = append(b, c)
		case c == '(' && recommendedAt(s[i+1:]):
			b = appendEscapedRune(b, '(', mode)
		case mustEscape(r, i == 0):
			b = appendEscapedRune(b, r, mode)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

const hexDigit = "0123456789abcdef"

// recommendedAt reports whether s starts with "recommended" in any case:
// after a "(", the start of the recommended mark.
func recommendedAt(s string) bool {
	const word = "recommended"
	return len(s) >= len(word) && strings.EqualFold(s[:len(word)], word)
}

// mustEscape reports whether r is shown escaped: anything strconv does not
// count as printable (controls, format characters, separators, spaces other
// than ' ', unassigned and private-use code points), a character drawn like
// the quotation mark, and a combining mark at the start of a string, where
// it would combine with the opening quote.
func mustEscape(r rune, first bool) bool {
	if r < utf8.RuneSelf {
		return r < ' ' || r == 0x7f
	}
	if !strconv.IsPrint(r) || isQuoteLike(r) {
		return true
	}
	return first && unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc)
}

// isQuoteLike reports characters that a reader could take for the ASCII
// quotation mark that delimits agent text.
func isQuoteLike(r rune) bool {
	switch r {
	case 0x02BA, 0x02DD, 0x02EE, 0x05F4, 0x201C, 0x201D, 0x201E, 0x201F,
		0x2033, 0x2036, 0x275D, 0x275E, 0x2E42, 0x301D, 0x301E, 0x301F, 0xFF02:
		return true
	}
	return false
}

// appendEscapedRune appends the escape of r: \uXXXX (a surrogate pair above
// U+FFFF) for a JSON string, else Go's \xNN, \uXXXX or \UXXXXXXXX.
func appendEscapedRune(b []byte, r rune, mode int) []byte {
	if mode == jsonString {
		if r > 0xFFFF {
			r -= 0x10000
			b = appendU4(b, 0xD800+(r>>10))
			return appendU4(b, 0xDC00+(r&0x3FF))
		}
		return appendU4(b, r)
	}
	switch {
	case r < 0x80:
		switch r {
		case '\n':
			return append(b, `\n`...)
		case '\r':
			return append(b, `\r`...)
		case '\t':
			return append(b, `\t`...)
		}
		return append(b, '\\', 'x', hexDigit[r>>4], hexDigit[r&15])
	case r <= 0xFFFF:
		return appendU4(b, r)
	}
	b = append(b, `\U`...)
	for sh := 28; sh >= 0; sh -= 4 {
		b = append(b, hexDigit[r>>sh&15])
	}
	return b
}

func appendU4(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigit[r>>12&15], hexDigit[r>>8&15], hexDigit[r>>4&15], hexDigit[r&15])
}

// Render writes the rendering of the binding moment carried by src to w.
//
// When src carries a well-formed envelope it writes RenderText. Otherwise
// (§4, §9.3, §12.8) the envelope is never rendered as a decision: Render
// writes FallbackText, the conventional payload, and then one diagnostic
// line
//
//	binding moment discarded: <error>
//
// and returns the error from Parse (a *MalformedError, *PlacementError or
// *canon.Error). An error from w is returned as is. The diagnostic is
// escaped like agent text: whatever the input holds, the output holds
// nothing a terminal acts on.
func Render(w io.Writer, src []byte) error {
	var p Parser
	e, err := p.Parse(src)
	if err == nil {
		_, werr := io.WriteString(w, RenderText(e))
		return werr
	}
	// The fallback is written as it is (it can be as large as the input),
	// and the diagnostic after it.
	fb := p.FallbackText(src)
	diag := []byte("binding moment discarded: ")
	if len(fb) > 0 && fb[len(fb)-1] != '\n' {
		diag = append([]byte{'\n'}, diag...)
	}
	diag = append(appendEscaped(diag, err.Error(), diagnostic), '\n')
	if _, werr := w.Write(fb); werr != nil {
		return werr
	}
	if _, werr := w.Write(diag); werr != nil {
		return werr
	}
	return err
}

// Payload returns the conventional payload of a tool result: src without
// its binding_moment member(s), in canonical form (rfc8785 profile, so a
// payload may carry fractional numbers), as a consuming surface that does
// not render the envelope would show it (§8.1, §9.3). For a bare envelope
// it returns nil: there is no payload besides the envelope. Input the
// rfc8785 canon gate rejects is the *canon.Error.
func Payload(src []byte) ([]byte, error) {
	return payload(canon.New(canon.RFC8785), src)
}

// payload is Payload with c, an rfc8785 Canonicalizer.
func payload(c *canon.Canonicalizer, src []byte) ([]byte, error) {
	var p Parser
	doc, err := c.View(src)
	if err != nil {
		return nil, err
	}
	if err := locate(doc, &p.loc, nil); err != nil {
		if _, ok := errors.AsType[*PlacementError](err); !ok {
			return nil, err
		}
		return bytes.Clone(doc), nil // a wrapper with no single envelope: all payload
	}
	if p.loc.placement == PlacementBare {
		return nil, nil
	}
	return cut(doc, p.loc.members), nil
}

// cut returns doc without the members (name through value) and one comma
// next to each. The members are disjoint: no candidate path of locate is a
// prefix of another.
func cut(doc []byte, members []span) []byte {
	spans := slices.Clone(members)
	slices.SortFunc(spans, func(a, b span) int { return b.member - a.member }) // last first: offsets stay valid
	out := bytes.Clone(doc)
	for _, m := range spans {
		s, e := m.member, m.end
		switch {
		case e < len(out) && out[e] == ',':
			e++
		case s > 0 && out[s-1] == ',':
			s--
		}
		out = append(out[:s], out[e:]...)
	}
	return out
}

// maxRawShown is how many bytes of an input that is not JSON FallbackText
// shows.
const maxRawShown = 64 << 10

// FallbackText returns the §9.3 fallback rendering of src, for a surface
// that does not render its envelope: the conventional payload (see Payload)
// indented, ending in a newline. Characters that RenderText escapes in agent
// text are written as JSON \uXXXX escapes inside the payload's strings, so
// the text is still JSON with the same value and holds nothing a terminal
// acts on, no bidi controls and no recommended mark.
//
// A bare binding_moment value, which has no payload, gives a one-line note
// saying so. Input the canon gate rejects (not JSON, invalid UTF-8, ...)
// gives a note with the reason and then at most the first 64 KiB of the
// input, each line behind "| " and escaped as in RenderText (bytes that are
// not UTF-8 as \xNN).
func FallbackText(src []byte) []byte {
	return fallbackText(canon.New(canon.RFC8785), src)
}

// FallbackText is the package's FallbackText, done with p's scratch memory:
// after p.Parse(src) has failed on a large input, it needs no second arena
// of that size.
func (p *Parser) FallbackText(src []byte) []byte {
	p.c.Reset(canon.RFC8785)
	defer p.c.Reset(canon.Strict)
	return fallbackText(&p.c, src)
}

// fallbackText is FallbackText with c, an rfc8785 Canonicalizer.
func fallbackText(c *canon.Canonicalizer, src []byte) []byte {
	payload, err := payload(c, src)
	if err != nil {
		return fallbackRaw(src, err)
	}
	if payload == nil {
		return []byte("(no conventional payload: the input is a bare binding_moment value)\n")
	}
	var out bytes.Buffer
	out.Grow(len(payload) + len(payload)/2) // indentation adds about that much
	if json.Indent(&out, payload, "", "  ") != nil {
		return fallbackRaw(src, err) // not reached: canonical JSON always indents
	}
	b := escapeJSONStrings(make([]byte, 0, out.Len()+out.Len()/8+1), out.Bytes())
	return append(b, '\n')
}

// escapeJSONStrings appends the JSON text j with the characters mustEscape
// names, and the "(" of a "(recommended", escaped as \uXXXX inside its
// strings. Outside strings JSON text is ASCII.
func escapeJSONStrings(b, j []byte) []byte {
	for i := 0; i < len(j); {
		if j[i] != '"' {
			b = append(b, j[i])
			i++
			continue
		}
		end := jsonread.SkipString(j, i) // past the closing quote
		if end < 0 {                     // not reached: j is valid JSON
			return append(b, j[i:]...)
		}
		b = append(b, '"')
		b = appendEscaped(b, string(j[i+1:end-1]), jsonString)
		b = append(b, '"')
		i = end
	}
	return b
}

// fallbackRaw renders input that is not an acceptable JSON text.
func fallbackRaw(src []byte, err error) []byte {
	b := []byte("(the tool result is not shown as JSON: ")
	b = appendEscaped(b, err.Error(), diagnostic)
	b = append(b, ")\n"...)
	shown := src[:min(len(src), maxRawShown)]
	for len(shown) > 0 {
		line := shown
		if k := bytes.IndexByte(shown, '\n'); k >= 0 {
			line, shown = shown[:k], shown[k+1:]
		} else {
			shown = nil
		}
		b = append(b, "| "...)
		b = appendEscaped(b, string(line), rawLines)
		b = append(b, '\n')
	}
	if len(src) > maxRawShown {
		b = append(b, "(... "...)
		b = strconv.AppendInt(b, int64(len(src)-maxRawShown), 10)
		b = append(b, " more bytes not shown)\n"...)
	}
	return b
}
