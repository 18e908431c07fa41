package envelope

// The fast path of the decoder. A well-formed envelope in canonical form
// has one layout: its members sorted (findings, meta, offer, question,
// recommendations, synopsis; in question hatches, options,
// recommended_idx, stem; in an option action_digest, label, reasoning; in
// hatches dialogue, free_text; in meta calibration_note, decision_class,
// both optional), each of the type the grammar gives it. decodeFast reads
// that layout front to back, comparing each member name with the bytes
// where the layout puts it instead of reading the name and looking it up,
// and gives up at the first byte that departs from it; decode (decode.go)
// then reads the envelope again, and explains. So decodeFast decides
// nothing that decode does not: it accepts a subset of what decode
// accepts, and fills the Envelope as decode would
// (TestDecodeFastAgrees, and the fuzz targets through ParseInto).

import (
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// cursor reads a canonical envelope b, whose text as a string is s, from
// pos on.
type cursor struct {
	b   []byte
	s   string
	pos int
	unq *[]unquoted // the escaped strings of s already unquoted, by offset (Parser.unq); nil: none kept
}

// unquoted is an escaped string of a Parser's text, unquoted: the text
// being the same, ParseInto reads it from there instead of unquoting it
// again (strings are immutable, so Envelopes may share it).
type unquoted struct {
	off int // the opening quote's, in the text
	s   string
}

// maxUnquoted bounds the escaped strings a Parser keeps for its text.
const maxUnquoted = 16

// lit reads the bytes l, if they come next.
func (c *cursor) lit(l string) bool {
	if end := c.pos + len(l); end <= len(c.b) && string(c.b[c.pos:end]) == l {
		c.pos = end
		return true
	}
	return false
}

// str reads a string value: a substring of s when it has no escape.
func (c *cursor) str() (string, bool) {
	i := c.pos
	end, plain := jsonread.StringEnd(c.b, i)
	if end < 0 {
		return "", false
	}
	c.pos = end
	if plain {
		return c.s[i+1 : end-1], true
	}
	if c.unq == nil {
		return jsonread.Unquote(c.b[i:end])
	}
	for _, u := range *c.unq {
		if u.off == i {
			return u.s, true
		}
	}
	v, ok := jsonread.Unquote(c.b[i:end])
	if ok && len(*c.unq) < maxUnquoted {
		*c.unq = append(*c.unq, unquoted{i, v})
	}
	return v, ok
}

// strs reads an array of strings after its '[' into dst[:0], and its ']'.
func (c *cursor) strs(dst []string) ([]string, bool) {
	dst = dst[:0]
	if cap(dst) == 0 { // a new Envelope: room for most, as decode makes
		dst = make([]string, 0, 4)
	}
	if c.lit("]") {
		return dst, true
	}
	for {
		v, ok := c.str()
		if !ok {
			return dst, false
		}
		dst = append(dst, v)
		if c.lit("]") {
			return dst, true
		}
		if !c.lit(",") {
			return dst, false
		}
	}
}

// boolean reads true or false.
func (c *cursor) boolean() (v, ok bool) {
	if c.lit("true") {
		return true, true
	}
	return false, c.lit("false")
}

// digest reads an action_digest string, "sha256:" and 64 lowercase hex
// digits.
func (c *cursor) digest() (hashing.Digest, bool) {
	var d hashing.Digest
	i, end := c.pos, c.pos+hashing.DigestTextLen+2
	if end > len(c.b) || c.b[i] != '"' || c.b[end-1] != '"' || !digestText(&d, c.b[i+1:end-1]) {
		return d, false
	}
	c.pos = end
	return d, true
}

// index reads recommended_idx when it is one digit below n (n is at most
// maxOptions, so every index in range is one digit). A longer number is
// left for decode: the caller's next literal does not match its second
// digit. (Digits summed into an int wrapped where int has 32 bits: 2^53-1
// read as -1 and 2^32+1 as 1.)
func (c *cursor) index(n int) (int, bool) {
	if c.pos >= len(c.b) {
		return 0, false
	}
	v := int(c.b[c.pos]) - '0'
	if v < 0 || v >= n {
		return 0, false
	}
	c.pos++
	return v, true
}

// decodeFast fills e from the canonical envelope b (text s) when b has
// the layout of a well-formed envelope, and reports whether it had; when
// it had not, e holds what was read so far, and decode must read b.
func (p *Parser) decodeFast(e *Envelope, b []byte, s string) bool {
	return p.decodeFastAt(e, b, s, 0, nil) == len(b)
}

// decodeText is decodeFast of b, whose text s comes from textFor: for
// ParseInto, s is p.text, and the escaped strings of it unquoted before
// are taken from p.unq (which textFor empties when the text changes).
func (p *Parser) decodeText(e *Envelope, b []byte, s string) bool {
	var unq *[]unquoted
	if !p.own {
		unq = &p.unq
	}
	return p.decodeFastAt(e, b, s, 0, unq) == len(b)
}

// decodeFastAt is decodeFast of the envelope at b[pos:], which may go on
// past it: it returns the index of b past the envelope, or -1 when the
// envelope does not have the layout of a well-formed one. unq, when not
// nil, holds the escaped strings of s unquoted before (decodeText).
func (p *Parser) decodeFastAt(e *Envelope, b []byte, s string, pos int, unq *[]unquoted) int {
	if p.slowOnly {
		return -1
	}
	c := cursor{b: b, s: s, pos: pos, unq: unq}
	if !c.envelope(e) {
		return -1
	}
	return c.pos
}

// envelope reads an envelope into e for decodeFastAt.
func (c *cursor) envelope(e *Envelope) bool {
	var ok bool
	if !c.lit(`{"findings":[`) {
		return false
	}
	if e.findings, ok = c.strs(e.findings); !ok {
		return false
	}
	e.meta = meta{}
	if c.lit(`,"meta":{`) {
		m := &e.meta
		m.present = true
		if c.lit(`"calibration_note":`) {
			if m.calNote, ok = c.str(); !ok {
				return false
			}
			m.hasNote = true
			if c.lit(`,"decision_class":`) {
				if m.decisionClass, ok = c.str(); !ok {
					return false
				}
				m.hasClass = true
			}
		} else if c.lit(`"decision_class":`) {
			if m.decisionClass, ok = c.str(); !ok {
				return false
			}
			m.hasClass = true
		}
		if !c.lit("}") {
			return false
		}
	}
	if !c.lit(`,"offer":`) {
		return false
	}
	if e.offer, ok = c.str(); !ok {
		return false
	}
	if !c.lit(`,"question":{"hatches":{"dialogue":`) {
		return false
	}
	if e.hatches.Dialogue, ok = c.boolean(); !ok || !c.lit(`,"free_text":`) {
		return false
	}
	if e.hatches.FreeText, ok = c.boolean(); !ok || !c.lit(`},"options":[`) {
		return false
	}
	if !c.options(e) {
		return false
	}
	if !c.lit(`,"recommended_idx":`) {
		return false
	}
	if e.recommendedIdx, ok = c.index(len(e.options)); !ok || !c.lit(`,"stem":`) {
		return false
	}
	if e.stem, ok = c.str(); !ok || !c.lit(`},"recommendations":[`) {
		return false
	}
	if e.recommendations, ok = c.strs(e.recommendations); !ok || !c.lit(`,"synopsis":`) {
		return false
	}
	e.synopsis, ok = c.str()
	return ok && c.lit("}")
}

// options reads the options after their '[', and the ']': minOptions to
// maxOptions of them.
func (c *cursor) options(e *Envelope) bool {
	e.options = e.options[:0]
	if cap(e.options) == 0 { // a new Envelope: room for every option, as decode makes
		e.options = make([]Option, 0, maxOptions)
	}
	for {
		var o Option
		var ok bool
		if !c.lit(`{"action_digest":`) {
			return false
		}
		if o.ActionDigest, ok = c.digest(); !ok || !c.lit(`,"label":`) {
			return false
		}
		if o.Label, ok = c.str(); !ok || !c.lit(`,"reasoning":`) {
			return false
		}
		if o.Reasoning, ok = c.str(); !ok || !c.lit("}") || len(e.options) == maxOptions {
			return false
		}
		e.options = append(e.options, o)
		if c.lit("]") {
			return len(e.options) >= minOptions
		}
		if !c.lit(",") {
			return false
		}
	}
}
