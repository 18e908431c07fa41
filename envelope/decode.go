package envelope

// The decoder below reads canonical JSON only (the output of the strict
// canon gate), so it needs no whitespace handling, no duplicate checks and
// no number parsing beyond plain decimal integers: the gate has settled all
// of that. It walks the envelope once, writes what it finds into the
// Envelope, and records every departure from §4 and §5 as a Problem. JSON
// Pointers are built only when a problem is recorded.

import (
	"bytes"
	"math"
	"strconv"

	"github.com/bbdigest/bbdigest/hashing"
)

// Member bits, for the presence checks.
const (
	hasSynopsis = 1 << iota
	hasFindings
	hasRecommendations
	hasOffer
	hasQuestion
)

// decode fills e from the canonical envelope b, whose text as a string is
// s, recording problems in p.problems.
func (p *Parser) decode(e *Envelope, b []byte, s string) {
	e.findings = e.findings[:0]
	e.recommendations = e.recommendations[:0]
	e.options = e.options[:0]
	e.meta = meta{}
	if len(b) == 0 || b[0] != '{' {
		p.typeProblem("", "object", b)
		return
	}
	var seen int
	for it := (iter{b: b, i: 1}); it.next(); {
		switch string(b[it.ns:it.ne]) {
		case "synopsis":
			seen |= hasSynopsis
			e.synopsis = p.str(s, &it, "/synopsis", -1, "")
		case "findings":
			seen |= hasFindings
			e.findings = p.strs(e.findings, s, &it, "/findings")
		case "recommendations":
			seen |= hasRecommendations
			e.recommendations = p.strs(e.recommendations, s, &it, "/recommendations")
		case "offer":
			seen |= hasOffer
			e.offer = p.str(s, &it, "/offer", -1, "")
		case "question":
			seen |= hasQuestion
			it.setEnd(p.question(e, b, s, it.vs))
		case "meta":
			it.setEnd(p.meta(&e.meta, b, s, it.vs))
		case "binding_moment", "structuredContent", "result", "jsonrpc":
			if p.probing { // a wrapper, not a bare envelope: see ParseInto
				p.wrapped = true
				return
			}
			p.unknown("", b[it.ns:it.ne])
		default:
			p.unknown("", b[it.ns:it.ne])
		}
	}
	p.missing(seen&hasSynopsis != 0, "/synopsis")
	p.missing(seen&hasFindings != 0, "/findings")
	p.missing(seen&hasRecommendations != 0, "/recommendations")
	p.missing(seen&hasOffer != 0, "/offer")
	p.missing(seen&hasQuestion != 0, "/question")
}

const (
	hasStem = 1 << iota
	hasOptions
	hasRecommendedIdx
	hasHatches
)

// question decodes slot 5 to 8 from the value at vs and returns its end,
// or -1 when it is not an object.
func (p *Parser) question(e *Envelope, b []byte, s string, vs int) int {
	if b[vs] != '{' {
		p.typeProblem("/question", "object", b[vs:])
		return -1
	}
	var seen int
	idxOK := false
	var idxLit []byte // recommended_idx as written (canonical: the gate passed it)
	nOptions := -1    // -1: options is not an array
	it := iter{b: b, i: vs + 1}
	for it.next() {
		switch string(b[it.ns:it.ne]) {
		case "stem":
			seen |= hasStem
			e.stem = p.str(s, &it, "/question/stem", -1, "")
		case "options":
			seen |= hasOptions
			var end int
			nOptions, end = p.options(e, b, s, it.vs)
			it.setEnd(end)
		case "recommended_idx":
			seen |= hasRecommendedIdx
			idxLit = it.scalar()
			e.recommendedIdx, idxOK = p.index(idxLit)
		case "hatches":
			seen |= hasHatches
			it.setEnd(p.hatches(&e.hatches, b, it.vs))
		default:
			p.unknown("/question", b[it.ns:it.ne])
		}
	}
	// Members are sorted, so options has been read by now.
	if idxOK && nOptions >= 0 && e.recommendedIdx >= nOptions {
		p.add("/question/recommended_idx", "out of range: "+string(idxLit)+
			" is not an index of the "+strconv.Itoa(nOptions)+" options")
	}
	p.missing(seen&hasStem != 0, "/question/stem")
	p.missing(seen&hasOptions != 0, "/question/options")
	p.missing(seen&hasRecommendedIdx != 0, "/question/recommended_idx")
	p.missing(seen&hasHatches != 0, "/question/hatches")
	return it.end
}

// index reads recommended_idx: a canonical integer, so "0" or digits
// without a leading zero, possibly negative.
func (p *Parser) index(v []byte) (int, bool) {
	const ptr = "/question/recommended_idx"
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		p.typeProblem(ptr, "integer", v)
		return 0, false
	}
	if v[0] == '-' {
		p.add(ptr, "out of range: "+string(v)+" is negative")
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' || n > 1<<53 { // the gate allows nothing else
			p.typeProblem(ptr, "integer", v)
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n > math.MaxInt {
		// Only where int has 32 bits: no envelope has that many options,
		// so the caller's range check reports it (quoting the literal).
		return math.MaxInt, true
	}
	return int(n), true
}

const (
	hasLabel = 1 << iota
	hasReasoning
	hasActionDigest
)

// options decodes slot 6 from the value at vs and returns the number of
// entries and the value's end, or -1 and -1 when it is not an array.
func (p *Parser) options(e *Envelope, b []byte, s string, vs int) (n, end int) {
	if b[vs] != '[' {
		p.typeProblem("/question/options", "array", b[vs:])
		return -1, -1
	}
	it := iter{b: b, i: vs + 1}
	var spare Option // options past maxOptions are checked but not kept
	for it.elem() {
		i := it.n
		o := &spare
		if i < maxOptions {
			e.options = append(e.options, Option{})
			o = &e.options[len(e.options)-1]
		}
		if b[it.vs] != '{' {
			p.typeProblem(optPtr(i, ""), "object", b[it.vs:])
			continue
		}
		var seen int
		m := iter{b: b, i: it.vs + 1}
		for m.next() {
			switch string(b[m.ns:m.ne]) {
			case "label":
				seen |= hasLabel
				o.Label = p.str(s, &m, "/question/options", i, "/label")
			case "reasoning":
				seen |= hasReasoning
				o.Reasoning = p.str(s, &m, "/question/options", i, "/reasoning")
			case "action_digest":
				seen |= hasActionDigest
				o.ActionDigest = p.digest(m.scalar(), i)
			default:
				p.unknown(optPtr(i, ""), b[m.ns:m.ne])
			}
		}
		it.setEnd(m.end)
		if seen&hasLabel == 0 {
			p.add(optPtr(i, "/label"), "missing required member")
		}
		if seen&hasReasoning == 0 {
			p.add(optPtr(i, "/reasoning"), "missing required member")
		}
		if seen&hasActionDigest == 0 {
			p.add(optPtr(i, "/action_digest"), "missing required member")
		}
	}
	n = it.n // the loop has moved past the last element
	if n < minOptions || n > maxOptions {
		p.add("/question/options", "want "+strconv.Itoa(minOptions)+" to "+strconv.Itoa(maxOptions)+
			" options, got "+strconv.Itoa(n))
	}
	return n, it.end
}

// The bounds of slot 6 (§5.6).
const (
	minOptions = 2
	maxOptions = 4
)

func optPtr(i int, suffix string) string {
	return "/question/options/" + strconv.Itoa(i) + suffix
}

// digest decodes an action_digest: a JSON string holding "sha256:" and 64
// lowercase hex digits (§6.2). A string of the right length without escapes
// is decoded where it lies, without allocating; anything else goes through
// unescaping to hashing.ParseDigest for the reason.
func (p *Parser) digest(v []byte, i int) hashing.Digest {
	var d hashing.Digest
	if len(v) == hashing.DigestTextLen+2 && v[0] == '"' && v[len(v)-1] == '"' && d.UnmarshalText(v[1:len(v)-1]) == nil {
		return d
	}
	ptr := optPtr(i, "/action_digest")
	if v[0] != '"' {
		p.typeProblem(ptr, "string", v)
		return d
	}
	if _, err := hashing.ParseDigest(unescape(v[1 : len(v)-1])); err != nil {
		if de, ok := err.(*hashing.DigestError); ok {
			p.add(ptr, `want "sha256:" and 64 lowercase hex digits: `+de.Reason)
		} else {
			p.add(ptr, `want "sha256:" and 64 lowercase hex digits`)
		}
	}
	return d
}

const (
	hasFreeText = 1 << iota
	hasDialogue
)

// hatches decodes slot 8 from the value at vs and returns its end, or -1
// when it is not an object.
func (p *Parser) hatches(h *Hatches, b []byte, vs int) int {
	if b[vs] != '{' {
		p.typeProblem("/question/hatches", "object", b[vs:])
		return -1
	}
	var seen int
	it := iter{b: b, i: vs + 1}
	for it.next() {
		switch string(b[it.ns:it.ne]) {
		case "free_text":
			seen |= hasFreeText
			h.FreeText = p.boolean(it.scalar(), "/question/hatches/free_text")
		case "dialogue":
			seen |= hasDialogue
			h.Dialogue = p.boolean(it.scalar(), "/question/hatches/dialogue")
		default:
			p.unknown("/question/hatches", b[it.ns:it.ne])
		}
	}
	p.missing(seen&hasFreeText != 0, "/question/hatches/free_text")
	p.missing(seen&hasDialogue != 0, "/question/hatches/dialogue")
	return it.end
}

func (p *Parser) boolean(v []byte, ptr string) bool {
	switch string(v) {
	case "true":
		return true
	case "false":
		return false
	}
	p.typeProblem(ptr, "boolean", v)
	return false
}

// meta decodes the meta slot from the value at vs into m and returns its
// end, or -1 when it is not an object.
func (p *Parser) meta(m *meta, b []byte, s string, vs int) int {
	if b[vs] != '{' {
		p.typeProblem("/meta", "object", b[vs:])
		return -1
	}
	m.present = true
	it := iter{b: b, i: vs + 1}
	for it.next() {
		switch string(b[it.ns:it.ne]) {
		case "decision_class":
			m.hasClass = true
			m.decisionClass = p.str(s, &it, "/meta/decision_class", -1, "")
		case "calibration_note":
			m.hasNote = true
			m.calNote = p.str(s, &it, "/meta/calibration_note", -1, "")
		default:
			p.unknown("/meta", b[it.ns:it.ne])
		}
	}
	return it.end
}

// str decodes the current value of it as a string. Its pointer is ptr,
// or, when i >= 0, ptr + "/" + i + suffix (built only on the error path).
// A string without escapes is a substring of s, which holds the same bytes
// as it.b.
func (p *Parser) str(s string, it *iter, ptr string, i int, suffix string) string {
	v := it.scalar()
	if v[0] != '"' {
		if i >= 0 {
			ptr += "/" + strconv.Itoa(i) + suffix
		}
		p.typeProblem(ptr, "string", v)
		return ""
	}
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		return unescape(raw)
	}
	return s[it.vs+1 : it.ve-1]
}

// strs decodes the current value of it, an array of strings, into dst[:0],
// and records the array's end in it.
func (p *Parser) strs(dst []string, s string, it *iter, ptr string) []string {
	if it.b[it.vs] != '[' {
		p.typeProblem(ptr, "array", it.scalar())
		return dst
	}
	a := iter{b: it.b, i: it.vs + 1}
	for a.elem() {
		dst = append(dst, p.str(s, &a, ptr, a.n, ""))
	}
	it.setEnd(a.end)
	return dst
}

// add records a problem, or only counts it once MaxProblems are kept.
func (p *Parser) add(ptr, reason string) {
	if len(p.problems) >= MaxProblems {
		p.omitted++
		return
	}
	p.problems = append(p.problems, Problem{Pointer: ptr, Reason: reason})
}

// full reports whether problems are only being counted: callers skip the
// work of building a pointer that would not be kept.
func (p *Parser) full() bool { return len(p.problems) >= MaxProblems }

func (p *Parser) typeProblem(ptr, want string, v []byte) {
	got := "nothing"
	if len(v) > 0 {
		got = kind(v[0])
	}
	p.add(ptr, "want "+want+", got "+got)
}

func (p *Parser) missing(present bool, ptr string) {
	if !present {
		p.add(ptr, "missing required member")
	}
}

func (p *Parser) unknown(parent string, rawName []byte) {
	if p.full() {
		p.omitted++
		return
	}
	p.add(parent+"/"+escapePointer(unescape(rawName)), "member not defined by the envelope grammar")
}
