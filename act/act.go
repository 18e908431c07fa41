package act

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jcs"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// Act is one tool call as the gate binds it: the tool, the server when the
// host configures one, and the canonical arguments, laid out as the
// canonical act object (see the package documentation) and digested.
//
// An Act is a plain value: it holds no reference to the input it was read
// from. Read it, but change it only through [Parser.ParseInto], which
// rewrites every field.
type Act struct {
	// Tool is the tool's name, never empty.
	Tool string
	// Server is the configured server identity bound into the act, or ""
	// when none is.
	Server string
	// Shape is the family of the form the call was read from; ShapeAuto
	// only for an Act made by New, which reads no form.
	Shape Shape
	// Profile is the number profile the act was read under, canon.Strict
	// or canon.RFC8785, which the canonical act records (see the package
	// documentation, # Profiles).
	Profile canon.Profile
	// Canonical is the canonical act: the JCS bytes of
	// {"act":"tool_call/v1","arguments":{…},"server":"…","tool":"…"}
	// (with "profile":"rfc8785" after the arguments when Profile is
	// canon.RFC8785). It is what an envelope option's action is, for an
	// act in the strict profile. It belongs to the Act, and ParseInto
	// reuses its memory.
	Canonical []byte
	// Digest is the act digest, SHA-256 of Canonical.
	Digest hashing.Digest

	args, argsEnd int // the arguments object in Canonical
}

// Arguments returns the canonical arguments object: a sub-slice of
// Canonical (capacity limited to it), valid as long as Canonical is. It is
// nil for the zero Act.
func (a *Act) Arguments() []byte {
	if a.argsEnd == 0 {
		return nil
	}
	return a.Canonical[a.args:a.argsEnd:a.argsEnd]
}

// ArgumentsDigest returns the SHA-256 of the canonical arguments object
// alone (the arguments_digest of a receipt), or the zero Digest for the
// zero Act.
func (a *Act) ArgumentsDigest() hashing.Digest {
	if a.argsEnd == 0 {
		return hashing.Digest{}
	}
	return hashing.Sum(a.Arguments())
}

// clear makes a hold no act, keeping the memory of its Canonical.
func (a *Act) clear() {
	a.Tool, a.Server, a.Shape, a.Profile = "", "", ShapeAuto, canon.Strict
	a.Canonical = a.Canonical[:0]
	a.Digest = hashing.Digest{}
	a.args, a.argsEnd = 0, 0
}

// Parse reads the call in src, in shape s (ShapeAuto: any), into a new
// Act, binding server ("" for none). It is the one-shot form of
// [Parser.Parse] with [Parser.Server] set to server, and is safe for
// concurrent use.
func Parse(src []byte, s Shape, server string) (*Act, error) {
	p := getParser(server)
	a, err := p.Parse(src, s)
	putParser(p)
	return a, err
}

// New returns the act of a call to tool, on server ("" for none), with
// arguments, the JSON text of the arguments object (nil or empty for
// none, which is {}), in the strict profile: for a host that builds an
// envelope option from the call it means to make. It is [Parser.New] with
// [Parser.Server] set to server. arguments must pass the strict gate,
// nest at most [MaxArgumentsDepth] levels and be an object; the error is
// then an *[Error] whose Pointer and Offset are within arguments. tool
// must be a non-empty string of at most [MaxToolName] bytes as JSON writes
// it, and tool and server valid UTF-8.
//
// New(server, tool, args) gives the act that the call reads to in every
// shape, with Shape set to ShapeAuto.
func New(server, tool string, arguments []byte) (*Act, error) {
	p := getParser(server)
	defer putParser(p)
	return p.New(tool, arguments)
}

// New returns the act of a call to tool with arguments, as the package's
// [New] does, on p.Server and in the profile p chooses for tool
// (ProfileOf, or Profile): under rfc8785, arguments must pass the rfc8785
// gate and nest at most [MaxArgumentsDepthRFC8785] levels.
func (p *Parser) New(tool string, arguments []byte) (*Act, error) {
	if tool == "" {
		return nil, &Error{Err: &shapeError{msg: "the tool name is empty"}}
	}
	if !utf8.ValidString(tool) {
		return nil, fmt.Errorf("act: the tool name %q is not valid UTF-8", tool)
	}
	if err := p.encodeServer(); err != nil {
		return nil, err
	}
	if _, err := checkProfile(p.Profile); err != nil {
		return nil, err
	}
	rfc8785, err := p.profileOf(tool)
	if err != nil {
		return nil, err
	}
	args := emptyObject
	if len(arguments) > 0 {
		if args, err = p.canonArgs(arguments, rfc8785); err != nil {
			return nil, canonError(asCanon(err), 0, "")
		}
		if args[0] != '{' {
			return nil, &Error{Offset: int64(jsonread.SkipSpace(arguments, 0)), Err: &shapeError{msg: "the arguments are " + jsonread.KindWithArticle(args[0]) + ", not an object"}}
		}
	}
	p.name = jcs.AppendString(p.name[:0], tool)
	if len(p.name)-2 > MaxToolName {
		return nil, &Error{Err: &shapeError{msg: "the tool name is longer than " + strconv.Itoa(MaxToolName) + " bytes"}}
	}
	var r parsed
	a := &Act{Tool: tool, Server: p.Server, Profile: canon.Strict}
	if rfc8785 {
		a.Profile = canon.RFC8785
	}
	a.Canonical = p.write(make([]byte, 0, len(prefix)+len(args)+len(profileMember)+len(p.serverJSON)+len(p.name)+20), args, p.name, ShapeAuto, rfc8785, &r)
	a.args, a.argsEnd = r.args, r.argsEnd
	a.Digest = hashing.Sum(a.Canonical)
	return a, nil
}
