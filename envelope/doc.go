// Package envelope reads, checks, digests, builds and renders the
// briefing-and-binding envelope of draft-morrison-binding-moment-envelope-04:
// the binding_moment value an agent emits in an MCP tool result when it
// needs its principal's decision, and the resolution the principal returns.
//
// Use Parse (or a reusable Parser) to read an envelope, Builder to make one,
// RenderText and Render to show one, and ParseResolution and Verify to check
// a resolution against it. Callers that only need a digest of arbitrary
// JSON want package bbdigest instead.
//
// # Parsing
//
// The binding_moment value passes the strict canon gate (canon.Strict,
// §6.3): duplicate member names, unpaired surrogates, invalid UTF-8,
// numbers that are not integers of magnitude at most 2^53-1 and nesting
// deeper than 64 are rejected there, with the *canon.Error returned as is.
// §6.1 canonicalizes "that value alone ..., not the enclosing tool result",
// so the strict bounds apply to the envelope only: the rest of a tool
// result is read under the rfc8785 profile and may carry a price of 120.5
// or deep nesting. It may not carry a duplicate member name, invalid UTF-8
// or an unpaired surrogate anywhere, since an ambiguous wrapper could hide a
// second envelope. An error's Offset and Pointer are always in the caller's
// input (such as "/binding_moment/question/recommended_idx").
//
// The envelope's canonical form (§6.1) is the canonical form of the
// binding_moment value alone. JCS is compositional, so that is the byte span
// of the value inside the canonical form of the whole input; its SHA-256 is
// the envelope digest (§6.2), Envelope.Digest.
//
// # Placement
//
// Parse accepts the binding_moment value in four places, and decides which
// from the members of the top-level object, first match wins:
//
//  1. A member at one of the paths binding_moment (a tool result, §8.1),
//     structuredContent.binding_moment (an MCP tools/call result),
//     result.structuredContent.binding_moment or result.binding_moment (a
//     JSON-RPC response): that member's value. The other members of the
//     tool result are ignored, but when more than one of these paths is
//     present their values must be identical, else a *PlacementError with
//     ErrAmbiguous: two differing envelopes in one result would let two
//     surfaces show two decisions under one result.
//  2. A top-level structuredContent, result or jsonrpc member without any of
//     those paths: an MCP result with no envelope, a *PlacementError with
//     ErrNoEnvelope.
//  3. Otherwise the input is the bare binding_moment value. (No envelope
//     has the members of rules 1 and 2, so rule 3 never misreads a wrapper,
//     and a bare value that is not an object is simply malformed.)
//
// Parser.Placement reports which rule applied.
//
// # Errors
//
// A malformed envelope (§4) gives a *MalformedError that lists every
// problem, not only the first, each a Problem with the JSON Pointer of
// the offending value relative to the binding_moment value, such as
// "/question/options/1/action_digest", and a reason. Checked: exactly the
// members of §4 at every level (an unknown member is a problem at its own
// pointer, a missing one at the pointer it would have), the type of every
// member, 2 to 4 options, recommended_idx present, non-negative and less
// than the number of options, both hatches present and boolean,
// action_digest exactly "sha256:" and 64 lowercase hex digits, and meta, when
// present, an object with at most its two optional string members. At most
// MaxProblems (100) problems are kept and the rest counted
// (MalformedError.Omitted), so that hostile input with millions of unknown
// members costs a bounded list. Validate returns the Problems directly.
// Errors wrap ErrMalformed, ErrNoEnvelope, ErrAmbiguous or a canon
// sentinel, for errors.Is.
//
// # What is not checked
//
// Much of §5 is construction discipline that no parser can decide. An
// envelope that passes Parse may still break these requirements:
//
//   - §5.1: the synopsis is a single sentence that commits to a position;
//     a hedged synopsis makes the envelope malformed, and §7.1 forbids
//     emitting one (the agent-side veto).
//   - §5.2: each finding adds an observation the synopsis does not carry;
//     three to six findings are recommended (any number is accepted,
//     including none).
//   - §5.3: each recommendation is a concrete move, not a consideration;
//     two to four are recommended.
//   - §5.4: the offer offers bounded, on-demand elaboration.
//   - §5.5: the stem is one neutral sentence that is not leading and does
//     not embed the recommendation.
//   - §5.6: each label is action-shaped, each reasoning a single line, and
//     each option carries the digest of exactly one action, the one it
//     authorizes; options are substantive answers and not hatches in
//     disguise (a "no" option, a "let's discuss" option). A well-formed
//     digest of the wrong action cannot be told from the right one here;
//     Verify compares it with the action being performed.
//   - §5.7: the mark falls on the agent's committed synthesis and, on a
//     tie, on the option that minimises the cost of being wrong.
//   - §5.8 and §12.3: a hatch is false only where its revision is
//     inapplicable.
//   - §5.9: calibration_note is not emitted ritually.
//   - §8.4: the envelope solicits one principal's decision and is not a
//     broadcast.
//   - §3, §7.3: an envelope is resolved once; see Resolver.
//
// Empty strings are accepted wherever a string is required: the grammar
// types them and says no more.
//
// # Rendering
//
// RenderText keeps every invariant of §9.1 in plain text, and shows every
// string the agent wrote in double quotes with everything a terminal could
// act on, and anything that could imitate the renderer's own lines and
// marks, escaped: no agent text can forge a line, a second recommended
// mark, a bidi reordering or a terminal escape (§12.1). Render falls back,
// for a malformed envelope, to the conventional payload and a diagnostic
// line (§4, §9.3, §12.8), escaped the same way, and never renders a partial
// or repaired decision.
//
// # Immutability
//
// An Envelope is one value: its slots are read through methods that return
// copies, and its canonical bytes and digest are computed once, from the
// bytes that were checked. Nothing a caller does to what the methods return
// changes what Verify, RenderText, MarshalJSON or a Resolver see, so a
// digest always names exactly the slots that are shown and checked. The
// zero Envelope is no envelope: Verify discards any resolution against it.
//
// # Persisting envelopes across restarts
//
// A host that emits an envelope and verifies its resolution later, perhaps
// after a restart (every host with a ledger on disk), stores the envelope's
// canonical bytes: Envelope.MarshalJSON (or Canonical) gives them, and
// json.Marshal of a struct holding an Envelope writes them as its value.
// To restore, pass the stored bytes to Parse, or json.Unmarshal them into an
// Envelope (UnmarshalJSON runs Parse: the gate, the grammar, and the digest
// computed again). Nothing is trusted from storage: bytes that were changed
// give a different digest, which no resolution and no ledger entry names,
// or fail to parse. Storing the Go struct by other means (gob, reflection,
// copying fields) is not supported: the fields are unexported.
//
// # Single use
//
// A Resolver consumes an envelope in a ledger.Ledger (package
// github.com/bbdigest/bbdigest/ledger) in the same step that checks its
// resolution, so among any number of resolutions of one envelope at most
// one is a decision (§7.3, §12.5). ledger.NewMemory keeps the ledger in
// memory; package ledger/bolt keeps it in a bbolt file, which survives
// restarts and crashes and which processes share one at a time, and
// refuses a file that is damaged or rolled back. Verifying against a ledger
// that must already hold the emitted envelopes opens it with
// bolt.Options.MustExist. Package envelope does not depend on bbolt.
//
// Single use is at most once, not exactly once. The envelope is consumed
// when the ledger commits, before Resolve returns: a host killed, or given
// an error, between the two has consumed the decision without learning it,
// and the same resolution presented again is OutcomeDiscarded. Such a host
// asks the ledger: Lookup reports ledger.StateResolved with the outcome
// that consumed the envelope and when (the Reason of the discarded Result
// says the same). If the host's own record shows it did not act, it puts
// the question again in a new envelope that differs from the first
// (§12.5). ledger.StateEmitted means nothing was consumed.
//
// # Concurrency
//
// A Parser is not safe for concurrent use; the package-level functions are.
// An Envelope is safe for concurrent reads; it changes only through
// Parser.ParseInto or UnmarshalJSON, which replace the whole value and must
// not run while anything else reads it.
package envelope
