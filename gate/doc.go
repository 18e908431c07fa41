// Package gate is the enforcer of draft-das-agentic-tool-binding-03 at the
// dispatch sink: a model's tool call stays non-effective until Authorize
// says allow, and every decision, allow or deny, commits a signed,
// hash-chained receipt (a Ledger-Anchored Validation Receipt, package
// receipt) before Authorize returns. "tool_use is not invoke()."
//
// # The decision
//
// Authorize reads the call into its act (package act: Anthropic tool_use,
// OpenAI tool_calls and function_call, MCP tools/call; the act binds the
// tool's name, its arguments under the strict profile, and the configured
// server), looks up the tool's consequence Class in the Policy, and:
//
//   - below the policy's threshold, allows on policy alone (ReasonPolicy);
//   - at or above it, and for every tool the policy does not name, allows
//     only on an Authority that is current and act-bound: the principal's
//     resolution of a binding-moment envelope the host emitted
//     (package envelope), selecting an option whose action_digest is this
//     call's act digest, which the gate consumes in the single-use ledger
//     (package ledger; ledger/bolt on disk) in the same step, so that among
//     any number of concurrent calls presenting one authority exactly one is
//     allowed (ReasonAuthority);
//   - denies everything else, with a stable Reason.
//
// The threshold may be READ_ONLY, ORDINARY or FINANCIAL, never higher: the
// draft makes fail-closed the only conforming behaviour for FINANCIAL,
// PHYSICAL and NETWORK_CONTROL.
//
// An envelope option authorizes an act when its action is the act's
// canonical bytes (act.Act.Canonical): a host builds the option with
// envelope.BuildOption{Action: a.Canonical}, emits the envelope (recording
// it with the ledger's Emit), and presents the principal's resolution with
// the call. The authority is not the call's to assert: it is checked
// against the ledger, which only the host writes.
//
// # Receipts
//
// Each decision becomes one receipt (receipt.Payload): the decision's
// result (PASS or FAIL), reason, consequence class, tool, act and arguments
// digests, envelope digest and resolution outcome where there is one, and
// the policy version. Authorize returns only after the receipt is durable;
// if it cannot be written, the answer is deny (ReasonReceiptError), whatever
// the decision would have been: a missing receipt is itself a reason to
// deny. With a *receipt.Log, concurrent decisions share one fsync.
//
// # Expiry
//
// The envelope grammar has no expiry, so the host states one: an
// Authority's Expires. An authority without one is refused. Hosts that
// carry authority inside an MCP call put it in params._meta under MetaKey in
// the JSON form ParseAuthority reads; the act digest never covers _meta.
//
// # Non-integer arguments
//
// Acts are canonicalized under the strict profile, which admits only
// integers of magnitude at most 2^53-1: a call whose arguments hold 19.99
// is denied as malformed, never rounded. Tools that take amounts take them
// in minor units ("amount_cents": 1999) or as strings ("ratio": "0.25").
package gate
