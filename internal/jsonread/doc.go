// Package jsonread is the one reader of JSON text that canon has already
// checked: the packages that read a document after canon's gate (act,
// envelope, receipt, and the CLI's archive verify) find its members and
// decode its strings here, without parsing it again. internal/jcs is its
// counterpart, the one writer. It is to bbdigest what internal/jsonwire is
// to go-json-experiment/json: stateless byte-level helpers, no options, no
// allocation but for the strings it returns.
//
// # What it reads
//
// Two forms of JSON text, each named where it is read:
//
//   - Canonical JSON: canon's output under either profile (RFC 8785): no
//     whitespace, members sorted by name with unique names, strings
//     escaped only as RFC 8785 section 3.2.2.2 requires (\" \\ \b \t \n \f
//     \r and \u00xx for the other controls). [Iter] walks its objects and
//     arrays.
//   - JSON text as written, that canon has accepted under either profile
//     (it is one valid JSON text, in valid UTF-8, with unique names and no
//     lone surrogates): whitespace between tokens, strings with any
//     escape. [Find] and [TextArray] walk it; [SkipSpace] passes its
//     whitespace.
//
// [SkipString], [SkipValue] and [AppendUnquote] read both. So does the
// fold of member names ([Fold], [EqualFold], [NameSet]): the rule by
// which Go's decoders match a member to a struct field without case,
// which act refuses spellings of its member names by.
//
// On that input every function gives the reading canon and encoding/json
// give: FuzzReadVsCanon holds the skips, the walks and the string decoder
// to canon's canonical output and to encoding/json's decoding, and
// TestFoldVsEncodingJSON (and the fuzz module's TestFoldVsJSONExperiment)
// hold the fold to the real decoders.
//
// # Failure
//
// On any other input (archive verify's records are read before canon
// sees them; a test may hand a reader bytes as they come) the result is
// defined, in one convention: a function that returns an index returns
// -1 where the text ends inside the value it reads or cannot be what the
// function reads there ([SkipString], [SkipValue], [AppendUnquote]);
// [Find] returns false; an [Iter] stops, and its Close is -1. An index
// returned is otherwise within [i, len(b)] for a start i. Nothing panics
// and nothing reads outside the slice given (FuzzReadVsCanon feeds every
// function arbitrary bytes). What canon checks and this package does not
// (UTF-8, control characters in strings, the grammar of numbers and
// literals, duplicate names) may go unnoticed on such input: the reading
// is bounded, not validated. Callers that read input canon has not seen
// (archive verify's wrapper) check what they rely on themselves.
package jsonread
