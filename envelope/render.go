package envelope

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
//   - the recommended option is marked "(recommended)" and starts with "*";
//   - each option's reasoning is on the line under its label;
//   - a decline affordance is listed with the options;
//   - each hatch whose flag is true is listed as an affordance of its own.
//
// Every agent-written string is shown on one line with control, format and
// line-separator characters escaped (\n, \u202e, ...), so no text can forge
// a line of the rendering, such as a second recommended mark (§12.1).
func RenderText(e *Envelope) string {
	var b strings.Builder
	line := func(prefix, s string) {
		b.WriteString(prefix)
		writeSafe(&b, s)
		b.WriteByte('\n')
	}
	if e.Meta != nil && e.Meta.DecisionClass != nil {
		line("Decision: ", *e.Meta.DecisionClass)
	}
	if e.Meta != nil && e.Meta.CalibrationNote != nil {
		line("Note: ", *e.Meta.CalibrationNote)
	}
	line("", e.Synopsis)
	b.WriteString("\nFindings:\n")
	for _, s := range e.Findings {
		line("  - ", s)
	}
	b.WriteString("\nRecommendations:\n")
	for _, s := range e.Recommendations {
		line("  - ", s)
	}
	b.WriteByte('\n')
	line("", e.Offer)
	b.WriteByte('\n')
	line("", e.Question.Stem)
	for i, o := range e.Question.Options {
		mark := "  "
		if i == e.Question.RecommendedIdx {
			mark = "* "
		}
		b.WriteString(mark)
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(". ")
		writeSafe(&b, o.Label)
		if i == e.Question.RecommendedIdx {
			b.WriteString("  " + RecommendedMark)
		}
		b.WriteByte('\n')
		line("       ", o.Reasoning)
	}
	b.WriteString("  " + DeclineKey + ". Decline: answer no to the question as put\n")
	if e.Question.Hatches.FreeText {
		b.WriteString("  " + FreeTextKey + ". Answer in your own words instead of choosing an option\n")
	}
	if e.Question.Hatches.Dialogue {
		b.WriteString("  " + DialogueKey + ". Reject the question and reopen the discussion\n")
	}
	b.WriteString("\nEnvelope: ")
	b.WriteString(e.Digest().String())
	b.WriteByte('\n')
	return b.String()
}

// writeSafe writes s with every character that could break the one-line
// layout or hide text escaped.
func writeSafe(b *strings.Builder, s string) {
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			r == '\u2028', r == '\u2029':
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
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
// *canon.Error). An error from w is returned as is.
func Render(w io.Writer, src []byte) error {
	e, err := Parse(src)
	if err == nil {
		_, werr := io.WriteString(w, RenderText(e))
		return werr
	}
	var b bytes.Buffer
	b.Write(FallbackText(src))
	if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("binding moment discarded: ")
	b.WriteString(err.Error())
	b.WriteByte('\n')
	if _, werr := w.Write(b.Bytes()); werr != nil {
		return werr
	}
	return err
}

// Payload returns the conventional payload of a tool result: src without
// its binding_moment member(s), in canonical form, as a consuming surface
// that does not render the envelope would show it (§8.1, §9.3). For a bare
// envelope it returns nil: there is no payload besides the envelope.
func Payload(src []byte) ([]byte, error) {
	var p Parser
	doc, err := p.c.View(src)
	if err != nil {
		return nil, err
	}
	if err := locate(doc, &p.loc); err != nil {
		if _, ok := err.(*PlacementError); !ok {
			return nil, err
		}
		return bytes.Clone(doc), nil // a wrapper with no single envelope: all payload
	}
	if p.loc.placement == PlacementBare {
		return nil, nil
	}
	return cut(doc, p.loc.members), nil
}

// cut returns doc without the member spans (name through value) and one
// comma next to each. The spans are disjoint: no candidate path of locate
// is a prefix of another.
func cut(doc []byte, members [][2]int) []byte {
	spans := slices.Clone(members)
	slices.SortFunc(spans, func(a, b [2]int) int { return b[0] - a[0] }) // last first: offsets stay valid
	out := bytes.Clone(doc)
	for _, m := range spans {
		s, e := m[0], m[1]
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

// FallbackText returns the §9.3 fallback rendering of src, for a surface
// that does not render its envelope: the conventional payload (see Payload)
// indented, ending in a newline. Input the canon gate rejects is returned
// as it came; a bare binding_moment value, which has no payload, gives a
// one-line note saying so.
func FallbackText(src []byte) []byte {
	payload, err := Payload(src)
	if err != nil {
		return src
	}
	if payload == nil {
		return []byte("(no conventional payload: the input is a bare binding_moment value)\n")
	}
	var out bytes.Buffer
	if json.Indent(&out, payload, "", "  ") != nil {
		return payload // BUG-level: canonical JSON always indents
	}
	out.WriteByte('\n')
	return out.Bytes()
}
