// Package demo holds the sample documents of "bbdigest demo", the one copy
// of them in the module: the example of draft-morrison-binding-moment-
// envelope-04 §6.4 (two actions and the envelope that offers them) with the
// values the draft publishes for it, and an envelope, an MCP tool call and
// its result of our own. The demo command embeds them from here, and the
// tests of the root package, canon, act, envelope, gate, the CLI and the
// bench module read them from here, so that a change to a sample is made
// once and every test sees it.
//
// The files sit beside this file, one JSON document each, as written:
// whitespace, escapes and member order are part of what the tests read.
// Each is embedded on its own, so that a file renamed or removed is a build
// error rather than a failure at run time. Every function returns a fresh
// copy, which the caller may change.
//
// The published digests are checked against the documents by canon's
// TestEnvelopeExample64, the root package's TestDigestEnvelopeExample and
// the demo command itself.
package demo

import _ "embed" // for the go:embed directives below

var (
	//go:embed action-1-dates.json
	draftAction1 string
	//go:embed action-2-dates-passport.json
	draftAction2 string
	//go:embed envelope-draft-6.4.json
	draftEnvelope string
	//go:embed envelope-meta.json
	metaEnvelope string
	//go:embed tool-call.json
	toolCall string
	//go:embed tool-result.json
	toolResult string
)

// The values draft-morrison-binding-moment-envelope-04 publishes in §6.4.
const (
	// DraftEnvelopeDigest is the envelope digest of DraftEnvelope.
	DraftEnvelopeDigest = "sha256:0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1"
	// DraftCanonicalLen is the length in bytes of DraftEnvelope's
	// canonical form (§6.1).
	DraftCanonicalLen = 895
	// DraftAction1Digest is the action digest of DraftAction1, the
	// action_digest of the envelope's option 0.
	DraftAction1Digest = "sha256:ff91e3166e64b892004d4b43b05ad6ed7ff0819463da80c72f27f47039c033fa"
	// DraftAction2Digest is the action digest of DraftAction2, the
	// action_digest of the envelope's option 1.
	DraftAction2Digest = "sha256:49be14ae6e74b950c0c7b790fa22538d45fb4853bb0f3b242b28204bee232945"
)

// DraftEnvelope returns the envelope of §6.4 (the value of a binding_moment
// member) as the draft shows it, with whitespace for reading and members in
// the draft's order, and the full action digests where the draft cuts them
// to fit the line.
func DraftEnvelope() []byte { return []byte(draftEnvelope) }

// DraftAction1 returns the first action of §6.4 (disclose the travel
// dates), pretty-printed as the draft shows it.
func DraftAction1() []byte { return []byte(draftAction1) }

// DraftAction2 returns the second action of §6.4 (disclose the passport
// number and the travel dates), pretty-printed as the draft shows it.
func DraftAction2() []byte { return []byte(draftAction2) }

// MetaEnvelope returns an envelope of our own with the optional meta member
// (an escaped quotation mark in its calibration_note), three options and the
// free_text hatch closed, its hatches' members in the other order.
func MetaEnvelope() []byte { return []byte(metaEnvelope) }

// ToolCall returns an MCP tools/call request of our own (book_hotel, id
// 42) whose arguments the profile rewrites: \u escapes, a surrogate pair,
// "\/" and the integer 25000 written 2.5E4.
func ToolCall() []byte { return []byte(toolCall) }

// ToolResult returns the MCP result answering ToolCall, whose
// structuredContent has member names ("€") that sort by UTF-16 code units.
func ToolResult() []byte { return []byte(toolResult) }

// Doc is one sample document.
type Doc struct {
	// Name is the file's name without ".json", as the demo prints it.
	Name string
	// Src is the document as its file writes it.
	Src []byte
	// Published is the digest the draft publishes for the document in
	// §6.4, or "" for a document of our own.
	Published string
}

// Docs returns every document, in the order of their names.
func Docs() []Doc {
	return []Doc{
		{"action-1-dates", DraftAction1(), DraftAction1Digest},
		{"action-2-dates-passport", DraftAction2(), DraftAction2Digest},
		{"envelope-draft-6.4", DraftEnvelope(), DraftEnvelopeDigest},
		{"envelope-meta", MetaEnvelope(), ""},
		{"tool-call", ToolCall(), ""},
		{"tool-result", ToolResult(), ""},
	}
}
