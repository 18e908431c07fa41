package envelope

// The decoder below reads canonical JSON only (the output of the strict
// canon gate), so it needs no whitespace handling, no duplicate checks and
// no number parsing beyond plain decimal integers: the gate has settled all
// of that. It walks the envelope once, writes what it finds into the
// Envelope, and records every departure from §4 and §5 as a Problem. JSON
// Pointers are built only when a problem is recorded.

import (
	"math"
	"strconv"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/hexdec"
	"github.com/bbdigest/bbdigest/internal/jsonread"
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
	for it := jsonread.Object(b, 0); it.Next(); {
		switch string(it.Name()) {
		case "synopsis":
			seen |= hasSynopsis
			e.synopsis = p.str(s, &it, "/synopsis", -1, "")
		case "findings":
			seen |= hasFindings
			e.findings = p.strs(e.findings, b, s, &it, "/findings")
		case "recommendations":
			seen |= hasRecommendations
			e.recommendations = p.strs(e.recommendations, b, s, &it, "/recommendations")
		case "offer":
			seen |= hasOffer
			e.offer = p.str(s, &it, "/offer", -1, "")
		case "question":
			seen |= hasQuestion
			it.SetValueEnd(p.question(e, b, s, it.ValueStart()))
		case "meta":
			it.SetValueEnd(p.meta(&e.meta, b, s, it.ValueStart()))
		default:
			if p.probing { // a wrapper, or not an envelope: see ParseInto
				p.wrapped = true
				return
			}
			p.unknown("", it.QuotedName())
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
	it := jsonread.Object(b, vs)
	for it.Next() {
		switch string(it.Name()) {
		case "stem":
			seen |= hasStem
			e.stem = p.str(s, &it, "/question/stem", -1, "")
		case "options":
			seen |= hasOptions
			var end int
			nOptions, end = p.options(e, b, s, it.ValueStart())
			it.SetValueEnd(end)
		case "recommended_idx":
			seen |= hasRecommendedIdx
			idxLit = it.Scalar()
			e.recommendedIdx, idxOK = p.index(idxLit)
		case "hatches":
			seen |= hasHatches
			it.SetValueEnd(p.hatches(&e.hatches, b, it.ValueStart()))
		default:
			p.unknown("/question", it.QuotedName())
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
	return it.Close()
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
	it := jsonread.Array(b, vs)
	var spare Option         // options past maxOptions are checked but not kept
	if cap(e.options) == 0 { // a new Envelope: room for every option kept
		e.options = make([]Option, 0, maxOptions)
	}
	for it.Elem() {
		i := it.Index()
		o := &spare
		if i < maxOptions {
			e.options = append(e.options, Option{})
			o = &e.options[len(e.options)-1]
		}
		if b[it.ValueStart()] != '{' {
			p.typeProblem(optPtr(i, ""), "object", b[it.ValueStart():])
			continue
		}
		var seen int
		m := jsonread.Object(b, it.ValueStart())
		for m.Next() {
			switch string(m.Name()) {
			case "label":
				seen |= hasLabel
				o.Label = p.str(s, &m, "/question/options", i, "/label")
			case "reasoning":
				seen |= hasReasoning
				o.Reasoning = p.str(s, &m, "/question/options", i, "/reasoning")
			case "action_digest":
				seen |= hasActionDigest
				o.ActionDigest = p.digest(m.Scalar(), i)
			default:
				p.unknown(optPtr(i, ""), m.QuotedName())
			}
		}
		it.SetValueEnd(m.Close())
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
	n = it.Index() // the loop has moved past the last element
	if n < minOptions || n > maxOptions {
		p.add("/question/options", "want "+strconv.Itoa(minOptions)+" to "+strconv.Itoa(maxOptions)+
			" options, got "+strconv.Itoa(n))
	}
	return n, it.Close()
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
	if len(v) == hashing.DigestTextLen+2 && v[0] == '"' && v[len(v)-1] == '"' && digestText(&d, v[1:len(v)-1]) {
		return d
	}
	ptr := optPtr(i, "/action_digest")
	if v[0] != '"' {
		p.typeProblem(ptr, "string", v)
		return d
	}
	if _, err := hashing.ParseDigest(unquote(v)); err != nil {
		if de, ok := err.(*hashing.DigestError); ok {
			p.add(ptr, `want "sha256:" and 64 lowercase hex digits: `+de.Reason)
		} else {
			p.add(ptr, `want "sha256:" and 64 lowercase hex digits`)
		}
	}
	return d
}

// digestText decodes t into d when t is a digest as §6.2 writes it,
// "sha256:" and 64 lowercase hex digits, and reports whether it was;
// hashing.ParseDigest decodes the same texts (TestDigestTextAgrees), and
// explains the others. The digits are checked and decoded by
// hexdec.Lower32 (all 64 at once with AVX-512 BW).
func digestText(d *hashing.Digest, t []byte) bool {
	const prefix = "sha256:"
	if len(t) != hashing.DigestTextLen || string(t[:len(prefix)]) != prefix {
		return false
	}
	return hexdec.Lower32((*[hashing.Size]byte)(d), (*[2 * hashing.Size]byte)(t[len(prefix):]))
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
	it := jsonread.Object(b, vs)
	for it.Next() {
		switch string(it.Name()) {
		case "free_text":
			seen |= hasFreeText
			h.FreeText = p.boolean(it.Scalar(), "/question/hatches/free_text")
		case "dialogue":
			seen |= hasDialogue
			h.Dialogue = p.boolean(it.Scalar(), "/question/hatches/dialogue")
		default:
			p.unknown("/question/hatches", it.QuotedName())
		}
	}
	p.missing(seen&hasFreeText != 0, "/question/hatches/free_text")
	p.missing(seen&hasDialogue != 0, "/question/hatches/dialogue")
	return it.Close()
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
	it := jsonread.Object(b, vs)
	for it.Next() {
		switch string(it.Name()) {
		case "decision_class":
			m.hasClass = true
			m.decisionClass = p.str(s, &it, "/meta/decision_class", -1, "")
		case "calibration_note":
			m.hasNote = true
			m.calNote = p.str(s, &it, "/meta/calibration_note", -1, "")
		default:
			p.unknown("/meta", it.QuotedName())
		}
	}
	return it.Close()
}

// str decodes the current value of it as a string. Its pointer is ptr,
// or, when i >= 0, ptr + "/" + i + suffix (built only on the error path).
// A string without escapes is a substring of s, which holds the same bytes
// as the document it walks.
func (p *Parser) str(s string, it *jsonread.Iter, ptr string, i int, suffix string) string {
	body, plain, ok := it.StringBody()
	if !ok {
		if i >= 0 {
			ptr += "/" + strconv.Itoa(i) + suffix
		}
		p.typeProblem(ptr, "string", it.Scalar())
		return ""
	}
	vs := it.ValueStart()
	if !plain {
		return unquote(it.Value())
	}
	return s[vs+1 : vs+1+len(body)]
}

// strs decodes the current value of it, a walk of b, an array of strings,
// into dst[:0], and records the array's end in it.
func (p *Parser) strs(dst []string, b []byte, s string, it *jsonread.Iter, ptr string) []string {
	if b[it.ValueStart()] != '[' {
		p.typeProblem(ptr, "array", it.Scalar())
		return dst
	}
	a := jsonread.Array(b, it.ValueStart())
	if cap(dst) == 0 { // a new Envelope: room for most, in one allocation
		dst = make([]string, 0, 4)
	}
	for a.Elem() {
		dst = append(dst, p.str(s, &a, ptr, a.Index(), ""))
	}
	it.SetValueEnd(a.Close())
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
		got = jsonread.Kind(v[0])
	}
	p.add(ptr, "want "+want+", got "+got)
}

func (p *Parser) missing(present bool, ptr string) {
	if !present {
		p.add(ptr, "missing required member")
	}
}

// unknown records the member called name (quoted, as the document writes
// it) in the object at parent, which the grammar does not define.
func (p *Parser) unknown(parent string, name []byte) {
	if p.full() {
		p.omitted++
		return
	}
	p.add(parent+"/"+escapePointer(unquote(name)), "member not defined by the envelope grammar")
}
