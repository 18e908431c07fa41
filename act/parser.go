package act

// This file reads a call into its act. The organisation is:
//
//   1. The whole input goes through the strict canon gate once. Everything
//      after that reads the canonical bytes: no whitespace, members
//      sorted, strings escaped only as RFC 8785 §3.2.2.2 requires, numbers
//      as plain decimal integers.
//   2. locate (locate.go) recognises the form and finds the tool name and
//      the arguments in the canonical document. JCS is compositional: the
//      canonical form of a member's value is the byte span of that value
//      in the canonical form of the whole, so the arguments' canonical
//      bytes are a sub-slice and need no second canonicalization. An
//      OpenAI arguments string is decoded and its text put through the
//      strict gate on its own (argsText).
//   3. write lays out the act, prefix + canonical arguments + suffix, in
//      one reused buffer, and hashing hashes it.
//
// A message (message.go) takes the same steps: one pass of the gate over
// the whole message, then locateMessage finds the list of calls, and each
// call object in it is a sub-slice of the canonical document that
// locateTop and actOf read as they read a call on its own.
//
// The strict profile binds the act, not the wrapper. So when the whole
// input fails the strict gate on a bound that plain RFC 8785 does not have
// (a fractional or large number, deep nesting), view reads it
// again under the rfc8785 profile (which still rejects duplicate names,
// invalid UTF-8 and lone surrogates anywhere: an ambiguous wrapper could
// hide a second call), the call is located there, and actOf puts the
// arguments through the strict gate on their own raw bytes, so that an
// error still points into the caller's input.
//
// Depth: the act object is level 1 and its arguments level 2, so the
// arguments may nest 63 levels of their own. Read in place, an argument
// object is at level 2 or deeper of its document, so the whole-input gate
// already bounds it; read on its own (an OpenAI string, or the fallback),
// the gate allows 64 and canonArgs takes one off.

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jcs"
	"github.com/bbdigest/bbdigest/internal/jsonread"
	"github.com/bbdigest/bbdigest/internal/poolcap"
)

// Tag is the value of the act's "act" member: the type and version of the
// act, which keeps an act digest apart from the digest of any other
// document (an arguments object, an envelope).
const Tag = "tool_call/v1"

// MaxArgumentsDepth is how deep the arguments object of an act in the
// strict profile may nest, itself included: the strict profile's 64
// levels, less the act object that holds it.
const MaxArgumentsDepth = canon.StrictMaxDepth - 1

// MaxArgumentsDepthRFC8785 is how deep the arguments object of an act in
// the rfc8785 profile may nest, itself included: the profile's 1000
// levels, less the act object. The arguments of a call read in place (not
// an OpenAI string) are bounded by the input's 1000 levels too, which the
// levels around them (a message's, say) count toward.
const MaxArgumentsDepthRFC8785 = canon.DefaultRFC8785MaxDepth - 1

// profileMember is the member that an act in the rfc8785 profile carries
// after its arguments (members sort act, arguments, profile, server,
// tool); an act in the strict profile has none, so that its bytes are
// those of acts before profiles.
const profileMember = `,"profile":"rfc8785"`

// MaxToolName is the longest tool name accepted, in bytes of its canonical
// JSON spelling without the quotes. The vendors' own limits are far below
// it (MCP 128 characters, OpenAI and Anthropic 64); the bound keeps every
// receipt that names the tool within the receipt log's line size.
const MaxToolName = 256

// prefix is the canonical act up to its arguments: the members sort as
// act, arguments, server, tool.
const prefix = `{"act":"` + Tag + `","arguments":`

var emptyObject = []byte("{}")

// Parser reads tool calls into acts with reusable scratch memory: its own
// strict canon.Canonicalizers and buffers. Once warm, and for input the
// strict profile accepts as a whole, [Parser.Digest] allocates nothing,
// and neither does [Parser.ParseInto] when the tool name is that of the
// Act's previous call (else one string).
//
// The zero value is ready to use. A Parser is not safe for concurrent use.
type Parser struct {
	// Server is the identity of the server the host dispatches calls to,
	// bound as the act's "server" member when it is not empty. It is
	// configuration, never read from the call, and must be valid UTF-8.
	Server string

	// Profile is the number profile of the acts, canon.Strict (the zero
	// value) or canon.RFC8785 (see the package documentation, # Profiles);
	// any other Profile is an error.
	Profile canon.Profile

	// ProfileOf, if not nil, chooses each call's profile by its tool name,
	// in place of Profile: it is called once per call, once the name is
	// read and before the arguments are (a gate's policy gives each tool
	// its profile). It must return canon.Strict or canon.RFC8785.
	ProfileOf func(tool string) canon.Profile

	c    canon.Canonicalizer  // the strict gate of the whole input
	ac   canon.Canonicalizer  // the strict gate of arguments read on their own
	rc   *canon.Canonicalizer // the rfc8785 gate of arguments read on their own, made when first needed
	w    *canon.Canonicalizer // the rfc8785 reading of a wrapper (view), made when first needed
	tool string               // the last tool name given to ProfileOf
	top  topLevel             // locate's scratch memory; top.text is the decoded OpenAI arguments string
	wrap []byte               // "[" + arguments + "]", for a depth error
	name []byte               // a decoded tool name that had escapes
	out  []byte               // the act being written

	server     string // the Server that serverJSON encodes
	serverDone bool
	serverJSON []byte // Server as a canonical JSON string; empty for none
}

// parsed is what build found besides the act bytes.
type parsed struct {
	shape         Shape
	rfc8785       bool   // the act is in the rfc8785 profile
	args, argsEnd int    // the arguments in the act bytes
	name          []byte // the tool name as a canonical JSON string, valid until the next call
}

// Parse reads the call in src, in shape s (ShapeAuto: any), into a new Act.
// See [Parser.ParseInto].
func (p *Parser) Parse(src []byte, s Shape) (*Act, error) {
	a := new(Act)
	if err := p.ParseInto(a, src, s); err != nil {
		return nil, err
	}
	return a, nil
}

// ParseInto reads the call in src, in shape s (ShapeAuto recognises every
// shape), and stores its act in a, replacing the whole value and reusing
// a's memory. src is not retained, and may be a's own Canonical.
//
// The whole input must pass the rfc8785 canon gate (no duplicate names,
// invalid UTF-8, lone surrogates or syntax errors anywhere), the arguments
// the gate of the act's profile (Profile, or ProfileOf's choice for the
// tool: strict unless set), and the call one of the shapes of the package
// documentation. Otherwise the error is an *[Error] with the canon class
// or [ErrShape], and a holds no act (empty Canonical, zero Digest). The
// only other errors are those of a Server that is not valid UTF-8, of a
// profile that is neither canon.Strict nor canon.RFC8785, and of an
// unknown Shape.
func (p *Parser) ParseInto(a *Act, src []byte, s Shape) error {
	var r parsed
	out, err := p.build(p.out[:0], src, s, &r)
	p.out = out[:0]
	if err != nil {
		a.clear()
		return err
	}
	p.fill(a, out, &r)
	return nil
}

// fill stores in a the act that build wrote to out, with what it found
// in r. The name is set before Canonical is written: it may lie in the
// input, which may be a.Canonical.
func (p *Parser) fill(a *Act, out []byte, r *parsed) {
	body := r.name[1 : len(r.name)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		p.name, _ = jsonread.AppendUnquote(p.name[:0], r.name, 0)
		body = p.name
	}
	if a.Tool != string(body) { // compared without allocating
		a.Tool = string(body)
	}
	a.Server = p.Server
	a.Shape = r.shape
	a.Profile = canon.Strict
	if r.rfc8785 {
		a.Profile = canon.RFC8785
	}
	a.Canonical = append(a.Canonical[:0], out...)
	a.args, a.argsEnd = r.args, r.argsEnd
	a.Digest = hashing.Sum(a.Canonical)
}

// Digest returns the act digest of the call in src, in shape s: the Digest
// of the Act that ParseInto would store, with the same errors. Once warm it
// allocates nothing.
func (p *Parser) Digest(src []byte, s Shape) (hashing.Digest, error) {
	var r parsed
	out, err := p.build(p.out[:0], src, s, &r)
	p.out = out[:0]
	if err != nil {
		return hashing.Digest{}, err
	}
	return hashing.Sum(out), nil
}

var errUnknownShape = errors.New("act: unknown Shape")

// start checks what every reading of src checks before its shape (the
// Shape s, the Server and the Profile) and returns the canonical document
// of src (see view).
func (p *Parser) start(src []byte, s Shape) (doc []byte, wrapped bool, err error) {
	if s > ShapeMCP {
		return nil, false, errUnknownShape
	}
	if err := p.encodeServer(); err != nil {
		return nil, false, err
	}
	if _, err := checkProfile(p.Profile); err != nil {
		return nil, false, err
	}
	return p.view(src)
}

// build writes the act of the call in src to dst[:0].
func (p *Parser) build(dst, src []byte, s Shape, r *parsed) ([]byte, error) {
	doc, wrapped, err := p.start(src, s)
	if err != nil {
		return dst, err
	}
	var loc located
	if pr := locate(doc, s, &loc, &p.top); pr != nil {
		e := shapeProblem(src, pr)
		e.Err.(*shapeError).message = loc.message
		return dst, e
	}
	var raw span
	if wrapped {
		raw, _ = findTop(src, pathTop)
	}
	return p.actOf(dst, src, doc, &loc, wrapped, raw, nil, r)
}

// view returns the canonical document of src under the strict profile,
// or, when the strict gate refuses src with a rejection the rfc8785
// profile does not make (wrapped), under rfc8785: the input may be a
// wrapper whose members outside the arguments are not in the strict
// profile. See the comment at the top of this file.
func (p *Parser) view(src []byte) (doc []byte, wrapped bool, err error) {
	doc, err = p.c.View(src)
	if err == nil {
		return doc, false, nil
	}
	if ce := asCanon(err); !strictOnly(ce) {
		return nil, false, canonError(ce, 0, "")
	}
	if p.w == nil {
		p.w = canon.New(canon.RFC8785)
	}
	if doc, err = p.w.View(src); err != nil {
		return nil, false, canonError(asCanon(err), 0, "")
	}
	return doc, true, nil
}

// actOf writes to dst[:0] the act of the call that locate found at loc in
// el, a canonical object: the input's top level, or an item of a message
// (w places it in the input; nil for the top level). When wrapped, el is
// the rfc8785 reading, rawEl the span of the same object in src, and
// arguments read in place are put through the strict gate from their raw
// bytes, so that an error still points into the caller's input.
func (p *Parser) actOf(dst, src, el []byte, loc *located, wrapped bool, rawEl span, w *at, r *parsed) ([]byte, error) {
	fi := &forms[loc.form]
	name := el[loc.name.start:loc.name.end]
	var rfc8785 bool
	var err error
	if p.ProfileOf != nil || p.Profile != (canon.Profile{}) { // not the default, strict
		if rfc8785, err = p.profileFor(name); err != nil {
			return dst, err
		}
	}
	var args []byte
	switch {
	case fi.text:
		if args, err = p.argsText(el, loc.args, fi, w, rfc8785); err != nil {
			return dst, err
		}
	case loc.args.found() && (!wrapped || rfc8785):
		// Read in place. The canonical bytes of a value the strict gate
		// accepts are the same under rfc8785 (a safe integer is written
		// the same by both), and an rfc8785 reading (wrapped) is the
		// arguments' rfc8785 form: no second reading either way.
		args = el[loc.args.start:loc.args.end]
	case loc.args.found():
		raw, ok := find(src, rawEl.start, fi.argsPath)
		if !ok {
			return dst, fmt.Errorf("act: internal error: %s found in the canonical form but not in the input", w.pointer(fi.argsPtr))
		}
		if args, err = p.canonArgs(src[raw.start:raw.end], false); err != nil {
			return dst, canonError(asCanon(err), raw.start, w.pointer(fi.argsPtr))
		}
		if !bytes.Equal(args, el[loc.args.start:loc.args.end]) {
			// Both are JCS of one value; they can only differ through a
			// canon bug. Refuse rather than guess.
			return dst, fmt.Errorf("act: internal error: strict and rfc8785 canonical forms of %s differ", w.pointer(fi.argsPtr))
		}
	default:
		args = emptyObject
	}
	return p.write(dst, args, name, fi.shape, rfc8785, r), nil
}

var errProfile = errors.New("act: the profile of an act is canon.Strict or canon.RFC8785")

// checkProfile reports whether pr is the rfc8785 profile, and refuses a
// profile that is neither canon.Strict nor canon.RFC8785. It is small
// enough to inline: the strict path pays two comparisons.
func checkProfile(pr canon.Profile) (rfc8785 bool, err error) {
	if pr == (canon.Profile{}) { // canon.Strict, the zero Profile
		return false, nil
	}
	if pr == canon.RFC8785 {
		return true, nil
	}
	return false, profileError(pr)
}

// profileError is checkProfile's refusal of pr.
func profileError(pr canon.Profile) error {
	return fmt.Errorf("%w, not %v", errProfile, pr)
}

// profileFor reports whether the act of the call to the tool named name
// (a canonical JSON string) is in the rfc8785 profile: ProfileOf's choice
// for it, or Profile.
func (p *Parser) profileFor(name []byte) (bool, error) {
	if p.ProfileOf == nil {
		return checkProfile(p.Profile)
	}
	return p.profileByName(name)
}

// profileByName is profileFor with ProfileOf set: it decodes name into
// p.tool, allocating only when the name is not the previous call's.
func (p *Parser) profileByName(name []byte) (bool, error) {
	body := name[1 : len(name)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		p.name, _ = jsonread.AppendUnquote(p.name[:0], name, 0)
		body = p.name
	}
	if p.tool != string(body) { // compared without allocating
		p.tool = string(body)
	}
	return p.profileOf(p.tool)
}

// profileOf reports whether the act of a call to tool is in the rfc8785
// profile: ProfileOf's choice for it, or Profile.
func (p *Parser) profileOf(tool string) (bool, error) {
	if p.ProfileOf == nil {
		return checkProfile(p.Profile)
	}
	pr := p.ProfileOf(tool)
	rfc8785, err := checkProfile(pr)
	if err != nil {
		return false, fmt.Errorf("%w: ProfileOf(%q) returned %v", errProfile, tool, pr)
	}
	return rfc8785, nil
}

// strictOnly reports whether ce is a rejection that the strict profile
// makes and the rfc8785 profile does not: a number that is not a safe
// integer, or nesting deeper than 64. Every other rejection (syntax,
// invalid UTF-8, duplicate names, unpaired surrogates, size) is the same
// under both profiles.
func strictOnly(ce *canon.Error) bool {
	switch ce.Class {
	case canon.ClassNonInteger, canon.ClassUnsafeInteger, canon.ClassDepth:
		return true
	}
	return false
}

// argsText decodes the OpenAI arguments string at a in the canonical
// document doc and returns the canonical form of the JSON text it holds,
// in the rfc8785 profile or the strict one. Errors carry the string
// member's pointer (within w's object) and offsets in the decoded text.
func (p *Parser) argsText(doc []byte, a span, fi *formInfo, w *at, rfc8785 bool) ([]byte, error) {
	if p.top.textAt != a.start { // walkTop decodes the one it read last
		p.top.text, _ = jsonread.AppendUnquote(p.top.text[:0], doc, a.start)
		p.top.textAt = a.start
	}
	text := p.top.text
	out, err := p.canonArgs(text, rfc8785)
	if err != nil {
		ce := asCanon(err)
		return nil, &Error{Pointer: w.pointer(fi.argsPtr), Offset: ce.Offset, InString: true, Err: ce}
	}
	if out[0] != '{' {
		return nil, &Error{Pointer: w.pointer(fi.argsPtr), Offset: int64(jsonread.SkipSpace(text, 0)), InString: true,
			Err: &shapeError{msg: "the JSON text is " + jsonread.KindWithArticle(out[0]) + ", not an object"}}
	}
	return out, nil
}

// canonArgs returns the canonical form of raw, JSON text read on its own,
// under the strict profile (or rfc8785) and the arguments' depth bound of
// that profile. The result is valid until the next call on the profile's
// Canonicalizer; a rejection is a *canon.Error with offsets and pointers
// in raw.
func (p *Parser) canonArgs(raw []byte, rfc8785 bool) ([]byte, error) {
	c, maxDepth := &p.ac, MaxArgumentsDepth
	if rfc8785 {
		if p.rc == nil {
			p.rc = canon.New(canon.RFC8785)
		}
		c, maxDepth = p.rc, MaxArgumentsDepthRFC8785
	}
	out, err := c.View(raw)
	if err != nil || !deeperThan(out, maxDepth) {
		return out, err
	}
	// Put raw one level down to have the gate name the place: it is one
	// JSON value (the gate has just read it), so "[" + raw + "]" is an
	// array of that one value.
	p.wrap = append(append(append(p.wrap[:0], '['), raw...), ']')
	if _, err := c.View(p.wrap); err != nil {
		ce := asCanon(err)
		ptr := ce.Pointer
		if len(ptr) >= 2 && ptr[:2] == "/0" {
			ptr = ptr[2:]
		}
		return nil, &canon.Error{Class: ce.Class, Offset: max(ce.Offset-1, 0), Pointer: ptr, Msg: ce.Msg}
	}
	return nil, errors.New("BUG: act: the depth check and the canon gate disagree")
}

// deeperThan reports whether the canonical JSON value b nests deeper than
// max levels. It reads nothing unless b has enough brackets to.
func deeperThan(b []byte, max int) bool {
	if len(b) < 2*(max+1) || bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) <= max {
		return false
	}
	depth := 0
	for j := 0; j < len(b); j++ {
		switch b[j] {
		case '"':
			if j = jsonread.SkipString(b, j); j < 0 {
				return false
			}
			j-- // the loop's j++ moves past the closing quote
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// write lays out the act in dst[:0]: the prefix, the canonical arguments,
// the profile when it is rfc8785, the server when configured, and the
// tool name (a canonical JSON string).
func (p *Parser) write(dst, args, name []byte, shape Shape, rfc8785 bool, r *parsed) []byte {
	dst = append(dst[:0], prefix...)
	r.args = len(dst)
	dst = append(dst, args...)
	r.argsEnd = len(dst)
	if rfc8785 {
		dst = append(dst, profileMember...)
	}
	if len(p.serverJSON) > 0 {
		dst = append(dst, `,"server":`...)
		dst = append(dst, p.serverJSON...)
	}
	dst = append(dst, `,"tool":`...)
	dst = append(dst, name...)
	dst = append(dst, '}')
	r.name, r.shape, r.rfc8785 = name, shape, rfc8785
	return dst
}

// encodeServer keeps serverJSON the canonical JSON string of p.Server.
func (p *Parser) encodeServer() error {
	if p.serverDone && p.Server == p.server {
		return nil
	}
	if !utf8.ValidString(p.Server) {
		return fmt.Errorf("act: the server identity %q is not valid UTF-8", p.Server)
	}
	p.server, p.serverDone = p.Server, true
	p.serverJSON = p.serverJSON[:0]
	if p.Server != "" {
		p.serverJSON = jcs.AppendString(p.serverJSON, p.Server)
	}
	return nil
}

// shapeProblem returns the *Error of the shape problem pr, with the
// offset in src of the value it is about.
func shapeProblem(src []byte, pr *problem) *Error {
	off := 0
	if s, ok := findTop(src, pr.path); ok {
		off = s.start
	}
	return &Error{Pointer: pr.ptr, Offset: int64(off), Err: &shapeError{msg: pr.msg}}
}

// keep reports whether p may go back into a pool: each of its
// Canonicalizers is Poolable, and its own buffers together are within
// poolcap.Max.
func (p *Parser) keep() bool {
	return p.c.Poolable() && p.ac.Poolable() && (p.w == nil || p.w.Poolable()) && (p.rc == nil || p.rc.Poolable()) &&
		poolcap.Keep(cap(p.top.text)+cap(p.wrap)+cap(p.name)+cap(p.out)+cap(p.serverJSON))
}

var parsers = sync.Pool{New: func() any { return new(Parser) }}

func getParser(server string) *Parser {
	p := parsers.Get().(*Parser)
	p.Server = server
	p.Profile, p.ProfileOf = canon.Strict, nil
	return p
}

func putParser(p *Parser) {
	if p.keep() {
		parsers.Put(p)
	}
}
