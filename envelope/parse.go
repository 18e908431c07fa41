package envelope

// This file finds the binding_moment value in its enclosing document and
// drives the decoder. The organisation is:
//
//   1. The whole input goes through the strict canon gate (§6.3) once.
//      Everything after that reads the canonical bytes, never the input:
//      no whitespace, members sorted, strings escaped only as RFC 8785
//      §3.2.2.2 requires, numbers as plain decimal integers.
//   2. locate finds the placement (§8.1 and the MCP shapes) in the
//      canonical document. JCS is compositional: the canonical form of a
//      member's value is the byte span of that value inside the canonical
//      form of the whole, so the envelope's canonical bytes are a sub-slice
//      and need no second canonicalization.
//   3. decode (decode.go) walks that span once, filling the Envelope and
//      collecting every Problem.
//
// The strict profile binds the binding_moment value only (§6.1: "That value
// alone is canonicalized, not the enclosing tool result"). So when the
// whole input fails the strict gate on a bound that plain RFC 8785 does not
// have (a fractional or large number, deep nesting), parseWrapped reads the
// input again under the rfc8785 profile (which still rejects duplicate
// names, invalid UTF-8 and lone surrogates anywhere: an ambiguous wrapper
// could hide a second envelope), locates the envelope there, and puts each
// binding_moment value found through the strict gate on its own raw bytes,
// so that an error still points into the caller's input.

import (
	"bytes"
	"errors"
	"sync"
	"unsafe"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jsonread"
	"github.com/bbdigest/bbdigest/internal/poolcap"
)

// Placement says where in the input the binding_moment value was found.
type Placement uint8

const (
	// PlacementBare: the input is the binding_moment value itself.
	PlacementBare Placement = iota + 1
	// PlacementToolResult: a tool result object with a top-level
	// binding_moment member (§8.1).
	PlacementToolResult
	// PlacementStructuredContent: an MCP tools/call result object
	// ({"content":[...],"structuredContent":{...}}) whose structuredContent
	// carries the binding_moment member.
	PlacementStructuredContent
	// PlacementJSONRPC: a JSON-RPC response whose result carries the
	// binding_moment member, in result.structuredContent or (§8.1 read
	// literally) at the top level of result.
	PlacementJSONRPC
)

// String returns the stable name of the placement: "bare", "tool-result",
// "structured-content" or "jsonrpc".
func (p Placement) String() string {
	switch p {
	case PlacementBare:
		return "bare"
	case PlacementToolResult:
		return "tool-result"
	case PlacementStructuredContent:
		return "structured-content"
	case PlacementJSONRPC:
		return "jsonrpc"
	}
	return "unknown"
}

// location is where locate found the envelope in the canonical document.
type location struct {
	placement Placement
	start     int    // value span [start, end) in the canonical document
	end       int    //
	members   []span // the member of every candidate found
}

// locate finds the binding_moment value in the canonical document doc.
// Placement rules, first match wins:
//
//  1. doc is an object with a member at one of the candidate paths
//     (binding_moment, structuredContent.binding_moment,
//     result.structuredContent.binding_moment, result.binding_moment): that
//     member; every other candidate present must be byte-identical, else
//     ErrAmbiguous.
//  2. doc is an object with a structuredContent, result or jsonrpc member:
//     an MCP result or JSON-RPC response without an envelope, ErrNoEnvelope.
//  3. Otherwise doc is the bare binding_moment value (an envelope never has
//     those members, so a bare envelope is never mistaken for a wrapper).
//
// When fast is not nil, locate reads the first binding_moment value it
// meets (in the walk's order) with decodeFast into fast, which finds the
// value's end as it goes: located then tells whether that decode is of
// the value found, which need not be read again. locate without fast
// reads each byte once too, skipping the values.
func locate(doc []byte, loc *location, fast *fastDecode) error {
	loc.members = loc.members[:0]
	loc.placement = 0
	if fast != nil {
		fast.ok = false
	}
	if len(doc) == 0 || doc[0] != '{' {
		loc.placement, loc.start, loc.end = PlacementBare, 0, len(doc)
		return nil
	}
	// One pass over the document: the wrappers found (structuredContent,
	// result and its structuredContent) are walked as they come, so that
	// no value is read twice to find where it ends.
	var bm, sc, scBM, result, resultSC, resultSCBM, resultBM span // zero when absent
	jsonrpc := false
	for it := jsonread.Object(doc, 0); it.Next(); {
		switch string(it.Name()) {
		case "binding_moment":
			bm = fast.candidate(doc, &it)
		case "structuredContent":
			sc, scBM = bindingMomentIn(doc, &it, fast)
		case "result":
			if vs := it.ValueStart(); doc[vs] == '{' {
				in := jsonread.Object(doc, vs)
				for in.Next() {
					switch string(in.Name()) {
					case "structuredContent":
						resultSC, resultSCBM = bindingMomentIn(doc, &in, fast)
					case "binding_moment":
						resultBM = fast.candidate(doc, &in)
					}
				}
				it.SetValueEnd(in.Close())
			}
			result = spanOf(&it)
		case "jsonrpc":
			jsonrpc = true
		}
	}
	// found records the candidate m, if it was found, at placement pl.
	found := func(m span, pl Placement, ptr string) error {
		switch {
		case !m.found():
			return nil
		case loc.placement == 0:
			loc.placement, loc.start, loc.end = pl, m.start, m.end
		case !bytes.Equal(doc[loc.start:loc.end], doc[m.start:m.end]):
			return &PlacementError{Pointer: ptr, Err: ErrAmbiguous}
		}
		loc.members = append(loc.members, m)
		return nil
	}
	if err := found(bm, PlacementToolResult, "/binding_moment"); err != nil {
		return err
	}
	if err := found(scBM, PlacementStructuredContent, "/structuredContent/binding_moment"); err != nil {
		return err
	}
	if err := found(resultSCBM, PlacementJSONRPC, "/result/structuredContent/binding_moment"); err != nil {
		return err
	}
	if err := found(resultBM, PlacementJSONRPC, "/result/binding_moment"); err != nil {
		return err
	}
	switch {
	case loc.placement != 0:
		return nil
	case sc.found():
		return &PlacementError{Pointer: "/structuredContent", Err: ErrNoEnvelope}
	case resultSC.found() && doc[resultSC.start] == '{':
		return &PlacementError{Pointer: "/result/structuredContent", Err: ErrNoEnvelope}
	case result.found() || jsonrpc:
		return &PlacementError{Pointer: "/result", Err: ErrNoEnvelope}
	}
	loc.placement, loc.start, loc.end = PlacementBare, 0, len(doc)
	return nil
}

// bindingMomentIn returns the span of the current member of it, a walk of
// an object in doc, and, when its value is an object, the span of the
// binding_moment member in it (fast.candidate). The end of the value is
// the one that walk finds, so that the value is read once.
func bindingMomentIn(doc []byte, it *jsonread.Iter, fast *fastDecode) (m, bm span) {
	if vs := it.ValueStart(); doc[vs] == '{' {
		in := jsonread.Object(doc, vs)
		for in.Next() {
			if string(in.Name()) == "binding_moment" {
				bm = fast.candidate(doc, &in)
			}
		}
		it.SetValueEnd(in.Close())
	}
	return spanOf(it), bm
}

// fastDecode is locate's reading of a binding_moment value with
// decodeFast, as it meets it (see locate).
type fastDecode struct {
	p          *Parser
	e          *Envelope // where the value is decoded: its strings are views of doc
	ok         bool      // e holds the decode of doc[start:end], a well-formed envelope
	start, end int
}

// candidate returns the span of the current member of it, a binding_moment
// member in doc. While no value has been decoded (f is not nil and not
// ok), it decodes this one into f.e; the decode ends where the value
// ends, which it then records in it, so that the walk does not read the
// value again. (doc is canonical JSON, and a JSON value is no prefix of
// another: the object decodeFast read from the value's start is the
// value.)
func (f *fastDecode) candidate(doc []byte, it *jsonread.Iter) span {
	if f != nil && !f.ok {
		vs := it.ValueStart()
		s := unsafe.String(unsafe.SliceData(doc), len(doc))
		if end := f.p.decodeFastAt(f.e, doc, s, vs, nil); end > 0 {
			it.SetValueEnd(end)
			f.ok, f.start, f.end = true, vs, end
		}
	}
	return spanOf(it)
}

// located reports whether f.e holds the decode of the value at loc, or of
// the same bytes elsewhere in doc (which decode to the same Envelope).
func (f *fastDecode) located(doc []byte, loc *location) bool {
	return f.ok && f.end-f.start == loc.end-loc.start &&
		(f.start == loc.start || bytes.Equal(doc[f.start:f.end], doc[loc.start:loc.end]))
}

// Parser parses envelopes with reusable scratch memory: its own strict
// canon.Canonicalizer and decoder state. Once warm, ParseInto allocates
// nothing when the input's envelope is the one the Envelope already holds
// from the previous call; otherwise its text (one string, when it is not
// the previous call's), the backing of its lists (once per text), and one
// string per escaped string of a new text.
//
// The zero value is ready to use. A Parser is not safe for concurrent use.
type Parser struct {
	c           canon.Canonicalizer  // the strict gate
	w           *canon.Canonicalizer // the rfc8785 reading of a wrapper (parseWrapped), made when first needed
	loc         location
	fast        fastDecode // locate's decode of the first binding_moment value it meets
	scratch     Envelope   // Parse's decode target in locate, moved into the new Envelope (settle)
	scratchUsed bool       // scratch holds strings (putParser forgets them)
	text        string     // ParseInto's last canonical envelope as a string: its Envelope's strings and canonical bytes are views of it
	unq         []unquoted // the escaped strings of text, unquoted (decodeText)
	lists       *textLists // the backing of the lists decoded from text, for an Envelope whose own lists hold another text\'s (textFor)
	prev        []byte     // ParseInto: the canonical bytes its Envelope held before
	problems    []Problem
	omitted     int // problems found past MaxProblems
	placement   Placement

	// probing: decode is reading the whole document as a bare envelope and
	// stops (setting wrapped) at a top-level member that is not one of an
	// envelope's: a wrapper's, or one that makes the envelope malformed,
	// which locate and a second decode (not probing) then settle.
	probing, wrapped bool

	// own: Parse is running; the Envelope is made (newOwned) when the
	// canonical envelope is known, with its text in the same allocation,
	// and left in result.
	own    bool
	result *Envelope

	// slowOnly: decode reads every envelope, never decodeFast (the tests
	// that hold the fast path to decode: FuzzFastSlow, TestFastSlowMutations).
	slowOnly bool
}

// Placement returns where the last successful Parse or ParseInto found
// the envelope.
func (p *Parser) Placement() Placement { return p.placement }

// Parse parses and validates the binding_moment carried by src (see
// [Parser.ParseInto]) into a new Envelope.
func (p *Parser) Parse(src []byte) (*Envelope, error) {
	p.own = true
	err := p.parse(nil, src)
	e := p.result
	p.own, p.result = false, nil
	if err != nil {
		return nil, err
	}
	return e, nil
}

// ParseInto parses and validates the binding_moment carried by src and
// stores it in e, replacing the whole value (digest included). It reuses
// the backing of e's lists only when e held the same envelope, so a copy
// of e (an Envelope is a value) keeps its own values
// (TestEnvelopeCopyUnchanged). It is the only way, with
// [Envelope.UnmarshalJSON], to change an Envelope: use it only on an
// Envelope that nothing else is reading.
//
// src may be the bare binding_moment value, a tool result with a
// binding_moment member (§8.1), an MCP tools/call result, or a JSON-RPC
// response carrying one; see the package documentation for how the
// placement is decided.
//
// The binding_moment value must pass the strict canon gate (§6.3). The rest
// of a wrapper is read under the rfc8785 profile: its conventional payload
// may carry fractional numbers and deep nesting, but no duplicate names, no
// invalid UTF-8 and no unpaired surrogates anywhere.
//
// The error is a *canon.Error when src or the binding_moment value fails
// the canon gate (its Offset and Pointer are in src), a *PlacementError
// when no single envelope is found, and a *MalformedError listing the
// problems when the envelope breaks the grammar of §4 and §5. On error the
// contents of e are unspecified, and e must not be used as an envelope.
func (p *Parser) ParseInto(e *Envelope, src []byte) error {
	// e's canonical bytes are a view of the text its strings are views
	// of, which is never written: drop them, never reuse them. They say
	// which text e's lists hold the decode of (textFor).
	p.prev = e.canonical
	e.canonical = nil // on error, e is not an envelope
	e.digest = hashing.Digest{}
	err := p.parse(e, src)
	p.prev = nil
	return err
}

// parse is ParseInto, and Parse when p.own is set (e is then nil, and
// made by textFor).
func (p *Parser) parse(e *Envelope, src []byte) error {
	doc, err := p.c.View(src)
	if err != nil {
		if !strictOnly(err) {
			return err
		}
		return p.parseWrapped(e, src, err)
	}
	// Most inputs are either a bare envelope or a wrapper whose first
	// member is none of an envelope's (binding_moment, content, id); try
	// the bare reading first when the first member is an envelope's, which
	// makes locate's extra pass unnecessary unless another member turns up
	// (locate then chooses a wrapper placement, reports that there is no
	// envelope, or finds it bare, and decodeSpan decodes it again).
	if len(doc) > 0 && doc[0] == '{' && envelopeFirst(doc) {
		e, s := p.textFor(e, doc)
		p.resetProblems()
		if p.decodeText(e, doc, s) {
			return p.finish(e, doc, s, PlacementBare)
		}
		p.probing, p.wrapped = true, false
		p.decode(e, doc, s)
		p.probing = false
		if !p.wrapped {
			return p.finish(e, doc, s, PlacementBare)
		}
	}
	// locate decodes the value it meets into the scratch Envelope, never
	// into e, whose lists textFor chooses once the text is known.
	t := &p.scratch
	p.scratchUsed = true
	p.fast.p, p.fast.e = p, t
	err = locate(doc, &p.loc, &p.fast)
	p.fast.e = nil // do not keep the caller's Envelope
	if err != nil {
		return err
	}
	if p.fast.located(doc, &p.loc) {
		// The value was read as locate met it: give its strings the
		// text's memory instead of doc's, which the next View writes.
		span := doc[p.fast.start:p.fast.end]
		dst, s := p.textFor(e, span)
		settle(dst, t, unsafe.String(unsafe.SliceData(span), len(span)), s)
		p.resetProblems()
		return p.finish(dst, span, s, p.loc.placement)
	}
	return p.decodeSpan(e, doc[p.loc.start:p.loc.end], p.loc.placement)
}

// settle makes dst the envelope decoded into src (dst itself, or Parse's
// scratch), each string of it that is a view of from (the bytes decoded,
// in memory that is not the Envelope's) made the same view of to (its
// text, which holds the same bytes). A string that is not a view of from
// (an escaped one, unquoted into memory of its own) is kept as it is.
func settle(dst, src *Envelope, from, to string) {
	if dst != src {
		f, r, o := dst.findings, dst.recommendations, dst.options
		*dst = *src
		dst.findings = append(f[:0], src.findings...)
		dst.recommendations = append(r[:0], src.recommendations...)
		dst.options = append(o[:0], src.options...)
	}
	dst.synopsis = moveView(dst.synopsis, from, to)
	for i := range dst.findings {
		dst.findings[i] = moveView(dst.findings[i], from, to)
	}
	for i := range dst.recommendations {
		dst.recommendations[i] = moveView(dst.recommendations[i], from, to)
	}
	dst.offer = moveView(dst.offer, from, to)
	dst.stem = moveView(dst.stem, from, to)
	for i := range dst.options {
		o := &dst.options[i]
		o.Label = moveView(o.Label, from, to)
		o.Reasoning = moveView(o.Reasoning, from, to)
	}
	dst.meta.decisionClass = moveView(dst.meta.decisionClass, from, to)
	dst.meta.calNote = moveView(dst.meta.calNote, from, to)
}

// forget drops the strings e holds, keeping the backing of its slices
// (Parser.scratch, in the pool).
func (e *Envelope) forget() {
	clear(e.findings[:cap(e.findings)])
	clear(e.recommendations[:cap(e.recommendations)])
	clear(e.options[:cap(e.options)])
	*e = Envelope{findings: e.findings[:0], recommendations: e.recommendations[:0], options: e.options[:0]}
}

// moveView returns s, when it is a view of from, as the same view of to
// (len(to) == len(from)); else s. The empty string is "", a view of
// nothing.
func moveView(s, from, to string) string {
	if len(s) == 0 {
		return ""
	}
	off := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.StringData(from)))
	if off < uintptr(len(from)) && uintptr(len(s)) <= uintptr(len(from))-off {
		return to[off : off+uintptr(len(s))]
	}
	return s
}

// envelopeFirst reports whether the first member of the canonical object
// doc is one an envelope has: there is then a bare envelope to try. In
// canonical text a name has one spelling, so the name is compared as it is
// written, quotes and colon included, chosen by its first letter (an
// iterator's reading of the name cost 3% of ParseInto on a canonical
// envelope).
func envelopeFirst(doc []byte) bool {
	if len(doc) < 3 || doc[1] != '"' {
		return true // {}: decode reports the missing members
	}
	var name string
	switch doc[2] {
	case 'f':
		name = `"findings":`
	case 'm':
		name = `"meta":`
	case 'o':
		name = `"offer":`
	case 'q':
		name = `"question":`
	case 'r':
		name = `"recommendations":`
	case 's':
		name = `"synopsis":`
	default:
		return false
	}
	return len(doc) > len(name) && string(doc[1:1+len(name)]) == name
}

// decodeSpan decodes span, the canonical binding_moment value found at
// placement pl, into e.
func (p *Parser) decodeSpan(e *Envelope, span []byte, pl Placement) error {
	e, s := p.textFor(e, span)
	p.resetProblems()
	if !p.decodeText(e, span, s) {
		p.decode(e, span, s)
	}
	return p.finish(e, span, s, pl)
}

// textFor returns the Envelope to decode the canonical envelope b into,
// and its text: a string holding b's bytes, never written, which its
// strings and canonical bytes are views of. For Parse (p.own) both are
// new, in one allocation (newOwned); for ParseInto the Envelope is e and
// the text is p.text, made again only when b differs from it.
func (p *Parser) textFor(e *Envelope, b []byte) (*Envelope, string) {
	if p.own {
		e, s := newOwned(b)
		p.result = e
		return e, s
	}
	if p.text != string(b) { // compared without allocating
		p.text = string(b)
		p.unq = p.unq[:0]
		p.lists = nil
	}
	if len(p.prev) != len(p.text) || unsafe.SliceData(p.prev) != unsafe.StringData(p.text) {
		// e's lists hold the decode of another text, and copies of e (an
		// Envelope is a value) share their backing: never write it. The
		// lists of this text (p.lists) hold only its decode, which is
		// the same for every Envelope that shares them.
		if p.lists == nil {
			p.lists = new(textLists)
		}
		e.findings = p.lists.strs[:0:stringsInline]
		e.recommendations = p.lists.strs[stringsInline:stringsInline:len(p.lists.strs)]
		e.options = p.lists.opts[:0]
	}
	return e, p.text
}

// textLists is the backing of the lists of the Envelopes ParseInto
// decodes from one text (Parser.text).
type textLists struct {
	opts [maxOptions]Option
	strs [2 * stringsInline]string
}

func (p *Parser) resetProblems() {
	p.problems = p.problems[:0]
	p.omitted = 0
}

// strictOnly reports whether err is a rejection that the strict profile
// makes and the rfc8785 profile does not: a number that is not a safe
// integer, or nesting deeper than 64. Every other rejection (syntax,
// invalid UTF-8, duplicate names, unpaired surrogates, size) is the same
// under both profiles.
func strictOnly(err error) bool {
	ce, ok := errors.AsType[*canon.Error](err)
	if !ok {
		return false
	}
	switch ce.Class {
	case canon.ClassNonInteger, canon.ClassUnsafeInteger, canon.ClassDepth:
		return true
	}
	return false
}

// parseWrapped is ParseInto for an input that failed the strict gate with
// strictErr, a rejection the rfc8785 profile does not make: the input may
// be a wrapper whose payload, outside the envelope, is not in the strict
// profile (§6.1). See the comment at the top of this file.
func (p *Parser) parseWrapped(e *Envelope, src []byte, strictErr error) error {
	if p.w == nil {
		p.w = canon.New(canon.RFC8785)
	}
	doc, err := p.w.View(src)
	if err != nil {
		return err
	}
	if err := locate(doc, &p.loc, nil); err != nil {
		return err
	}
	if p.loc.placement == PlacementBare {
		return strictErr // the whole input is the envelope
	}
	span := doc[p.loc.start:p.loc.end]
	for _, path := range candidatePaths {
		vs, ve, ok := jsonread.Find(src, jsonread.SkipSpace(src, 0), path.names)
		if !ok {
			continue
		}
		out, err := p.c.View(src[vs:ve])
		if err != nil {
			return shiftError(err, vs, path.pointer)
		}
		if !bytes.Equal(out, span) {
			// Both are JCS of values locate found equal; they can only
			// differ through a canon bug. Refuse rather than guess.
			return &PlacementError{Pointer: path.pointer, Err: errCanonMismatch}
		}
	}
	return p.decodeSpan(e, span, p.loc.placement)
}

var errCanonMismatch error = &placementReason{"internal error: strict and rfc8785 canonical forms of the binding_moment value differ"}

// candidatePaths are the places locate looks for the binding_moment value
// in a wrapper, with their JSON Pointers.
var candidatePaths = [...]struct {
	names   []string
	pointer string
}{
	{[]string{"binding_moment"}, "/binding_moment"},
	{[]string{"structuredContent", "binding_moment"}, "/structuredContent/binding_moment"},
	{[]string{"result", "structuredContent", "binding_moment"}, "/result/structuredContent/binding_moment"},
	{[]string{"result", "binding_moment"}, "/result/binding_moment"},
}

// shiftError moves a *canon.Error found in the bytes of a value at offset
// off and JSON Pointer ptr of the whole input into the input's coordinates.
func shiftError(err error, off int, ptr string) error {
	ce, ok := errors.AsType[*canon.Error](err)
	if !ok {
		return err
	}
	return &canon.Error{Class: ce.Class, Offset: ce.Offset + int64(off), Pointer: ptr + ce.Pointer, Msg: ce.Msg}
}

// finish completes ParseInto once decode has read span, the canonical
// binding_moment value found at placement pl, whose bytes the string s
// (textFor) holds.
func (p *Parser) finish(e *Envelope, span []byte, s string, pl Placement) error {
	if len(p.problems) > 0 {
		return &MalformedError{Problems: append([]Problem(nil), p.problems...), Omitted: p.omitted}
	}
	// The canonical bytes are s's, which nothing writes: no copy.
	e.canonical = unsafe.Slice(unsafe.StringData(s), len(s))
	e.digest = hashing.Sum(span)
	p.placement = pl
	return nil
}

// parsers holds the Parsers of Parse, and the strict gate of
// ParseResolution.
var parsers = sync.Pool{New: func() any { return new(Parser) }}

func getParser() *Parser { return parsers.Get().(*Parser) }

// putParser pools p unless a large input has grown it past the pools'
// bound.
func putParser(p *Parser) {
	if p.c.Poolable() && poolcap.Keep(len(p.text)) &&
		(p.w == nil || p.w.Poolable()) && cap(p.problems) <= MaxProblems {
		p.text = "" // do not pin the caller's text in the pool
		clear(p.unq)
		p.unq = p.unq[:0]
		if p.scratchUsed { // nor the strings locate decoded (views of the input, when View returned it)
			p.scratch.forget()
			p.scratchUsed = false
		}
		parsers.Put(p)
	}
}

// Parse parses and validates the binding_moment carried by src. It is the
// one-shot form of [Parser.Parse], safe for concurrent use.
func Parse(src []byte) (*Envelope, error) {
	p := getParser()
	e, err := p.Parse(src)
	putParser(p)
	return e, err
}

// Validate reports every problem that stops src from being a well-formed
// envelope, or nil if there is none. It is Parse without the result:
// a *canon.Error becomes one Problem at the canon error's pointer (in src,
// not relative to the envelope) with the class first in the reason, such as
// "duplicate-name: duplicate object member name ..."; a *PlacementError
// becomes one Problem at its pointer (in src).
func Validate(src []byte) []Problem {
	_, err := Parse(src)
	return Problems(err)
}

// UnmarshalJSON implements json.Unmarshaler, so that an Envelope stored with
// MarshalJSON (or any bare binding_moment value) is read back with every
// check of Parse: data must be the bare binding_moment value, it passes the
// strict canon gate and the grammar of §4 and §5, and the digest is
// computed again from its canonical form. A wrapper such as a tool result
// is an error here (use Parse), and so is JSON null. On error *e is
// unchanged.
func (e *Envelope) UnmarshalJSON(data []byte) error {
	var p Parser
	v, err := p.Parse(data)
	if err != nil {
		return err
	}
	if p.placement != PlacementBare {
		return &PlacementError{Pointer: "", Err: errWrapperNotBare}
	}
	*e = *v
	return nil
}

var errWrapperNotBare error = &placementReason{"UnmarshalJSON wants the bare binding_moment value, not a wrapper carrying it"}
