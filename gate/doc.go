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
// tool's name, its arguments under the number profile the policy gives the
// tool, and the configured server), looks up the tool's consequence Class
// in the Policy, and:
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
// # Authority: a bearer token, or a principal's signature
//
// The envelope draft defines no signature over a resolution (§12.6: the
// binding "is therefore only as strong as whatever protects the resolution
// in transit and at rest"). So a gate whose Policy names no Principals
// accepts an authority from whoever presents it: anything that can write
// the call's params._meta and has seen the envelope (the agent does, in the
// deny that asks for it) can approve its own call, with an expiry it
// chooses. That mode stays, for hosts whose path from the principal to the
// gate is protected otherwise; Gate.Authenticated reports it, and bbdigest
// gate says so on stderr at every run (TestUnauthenticatedAsBefore).
//
// A policy that names its principals (their Ed25519 public keys, in the form
// bbdigest keygen writes) accepts only a signed resolution document
// (SignedResolution, "bbdigest-signed-resolution/v1"; SignResolution makes
// one, and bbdigest resolution sign calls it) as an authority's
// resolution:
//
//   - an unsigned resolution is refused (ReasonUnsigned), and consumes
//     nothing (TestSelfApprovalRefused);
//   - one signed by a key the policy does not name is refused
//     (ReasonUnknownPrincipal), and one whose signature does not verify under
//     the key its key_id names, or whose document breaks the format, or
//     whose signature value is spelt in any but its one way (padding, line
//     breaks, another alphabet, non-zero unused bits), is refused
//     (ReasonBadSignature; TestUnknownPrincipal, TestSignatureRespelt,
//     TestParseSignedResolution, FuzzParseSignedResolution);
//   - the signature covers the envelope digest and the act digest: replayed
//     with another envelope it is refused (ReasonConsumed,
//     TestSignatureBindsEnvelope), and presented with another act, or with
//     its act digest rewritten, it is refused (ReasonNotActBound or
//     ReasonBadSignature, TestSignatureBindsAct);
//   - it is current only for the policy's MaxAuthorityAge (default
//     DefaultMaxAuthorityAge) from the time the ledger recorded the
//     envelope's emission (ledger.Entry.EmittedAt), which only the host
//     writes; the authority's Expires may end it sooner, never later
//     (ReasonExpired, TestMaxAuthorityAge). An envelope whose emission time
//     the ledger does not hold (a ledger file of an earlier bbdigest) is
//     refused (TestNoEmissionTime), and so is a signature made more than
//     ClockSkew before the emission: it was made for an earlier emission of
//     the same envelope (TestSignedBeforeEmission);
//   - the allow names the principal: Decision.PrincipalKeyID and
//     PrincipalName, and the receipt's detail, which starts with the key id
//     (TestSignedAuthorityAllows);
//   - the document's JSON may be re-spelt in transit (whitespace, member
//     order, escapes): its canonical form is what was signed and what is
//     verified (TestSignedAuthorityJSON);
//   - a receipt and a signed resolution are never each other, even under
//     one key: the type tag is inside the bytes signed
//     (TestSignedResolutionDomainSeparation).
//
// What a signature does not protect: a principal's private key that is not
// kept from the agent; a principal who signs a misleading envelope (§12.1:
// the briefing is the agent's own account); whoever can write the policy or
// the ledger (the emission time); and the window itself: within
// MaxAuthorityAge, the first presenter of a signed document is the one
// allowed, once (the ledger's single use).
//
// The authority's JSON form is ParseAuthority's, which refuses a text with
// an *AuthorityError naming the member by its JSON Pointer
// (TestParseAuthority); its resolution is either
// a resolution of §7.3 or a signed resolution document. A gate without
// principals reads a signed document's resolution, and checks that the
// document names the envelope presented and the call's act, but it has no
// key to check the signature with (TestSignedResolutionUnauthenticated).
//
// # Approvals: asking the principal
//
// A gate with Config.Approvals (which needs a policy with Principals: New
// refuses it otherwise with a *ConfigError, since an unsigned approval would
// be a bearer token again) asks instead of refusing. A call that needs
// authority and carries none:
//
//   - becomes an approval request (NewRequest): a binding-moment envelope
//     whose synopsis names the tool and the server, whose findings list the
//     class, the arguments as JSON (the first 16, each cut to 512 bytes, and
//     saying so), the act digest and a nonce with the time, and whose
//     question offers "Allow this call once" (action_digest: the act
//     digest) and "Deny" (action_digest: the digest of DenyAction, a
//     document naming the act digest), Deny recommended; any call the gate
//     reads gives a well-formed one (TestApprovalEnvelope,
//     TestApprovalEnvelopeBounds, FuzzApprovalRequest). The store keeps
//     one open request per act: the same act while pending gets the same
//     envelope, an act one byte different its own (TestApprovalLoop), and
//     gates sharing a store asking at once get one (TestApprovalManyGates).
//     The envelope is emitted in the Ledger, so everything of Authority
//     below applies to it unchanged; the call is denied, ReasonApprovalPending,
//     the Decision naming the envelope (EnvelopeDigest, Approval);
//   - retried once a principal granted it (the store holds the principal's
//     signed selection of Allow, SignGrant), is decided on that grant as on
//     an authority the call carried: the signature, the principal, the age
//     from the emission and the single use are checked as there, the allow
//     names the principal's key id in its receipt, and the envelope is
//     consumed; the request is closed (TestApprovalLoop). A grant that is
//     refused (expired, unknown_principal, bad_signature, not_act_bound)
//     closes the request too (TestApprovalExpired,
//     TestApprovalRefusedDecisions);
//   - retried once a principal denied it (a signed selection of Deny,
//     SignDeny) is denied, ReasonApprovalDenied, naming the principal; the
//     envelope is resolved in the ledger (declined), so it is spent, and
//     the request closed (TestApprovalDenied).
//
// After a request is closed, the identical call is a new question: a new
// request, with a new envelope (its nonce), ReasonApprovalPending again. A
// grant consumed once is not authority again: presented with a call it is
// refused as consumed, like any authority. A store that fails, or answers
// for another act, denies the call, ReasonApprovalError; one that cannot
// close a grant just consumed turns the allow into that deny
// (TestApprovalStoreFails). The gate takes the loop through any of the
// shapes it reads, docker/mcp-gateway's interceptor payload among them
// (TestApprovalGatewayShapes).
//
// # Channels: who decided
//
// A decision made on someone's decision records how that decision reached
// the gate (Decision.Channel, the receipt's channel member), and each
// channel proves something different about who decided:
//
//   - "signed": a resolution signed with the key of a principal the policy
//     names, which verified: a grant or deny recorded by bbdigest approve
//     or the approval page, or a signed resolution the call carried. It
//     proves that the holder of that principal's key decided, on the
//     envelope it signed (its digest and the act digest are inside the
//     bytes signed); the receipt's detail names the key id
//     (TestSignedChannel).
//   - "elicitation": the answer of an MCP client's user, asked by package
//     mcpgate through MCP elicitation and handed over by AuthorizeElicited.
//     No one signs it: it proves only that whoever controls the MCP
//     client's interface chose, a person at the client or code answering
//     for one. The gate takes it only through that Go call, never from a
//     call's bytes (_meta, a stored record), and only for the act whose
//     open request the user was shown; it consumes the envelope and closes
//     the request exactly as a principal's grant does, once
//     (TestElicitedAllow, TestElicitedNotFromBytes). A Deny or a decline
//     is honoured for any class (approval_denied, TestElicitedDeny).
//
// The policy says for which classes an elicited Allow is authority
// (Policy.Elicitation, the policy's elicitation member); for the others it
// is refused, ReasonElicitationNotAuthority, and the request stays pending
// for a principal (TestElicitationNotAuthority). The default is READ_ONLY
// and ORDINARY. The issue that asked for the channel proposed leaving out
// only PHYSICAL and NETWORK_CONTROL; the default leaves out FINANCIAL too,
// for two reasons. The tool-binding draft puts FINANCIAL with PHYSICAL and
// NETWORK_CONTROL: for all three fail-closed is the only conforming
// behaviour, and no threshold may exempt them. And the gate cannot tell a
// person's click from an agent runtime's elicitation handler: with
// FINANCIAL in the default, every gate with the default threshold and
// approvals, whose operator named principals so that a payment needs a
// principal's signature, would let any client that declares elicitation
// approve its own payments. An operator whose clients are driven by people
// says so in the policy ("elicitation": ["ORDINARY", "FINANCIAL"]), where
// the receipts' policy_version names the rule. A tool the policy does not
// name never takes an elicited Allow: its consequence is unknown.
//
// # Expiry
//
// The envelope grammar has no expiry, so the host states one: an
// Authority's Expires. An authority without one is refused. Under a policy
// with principals the policy bounds it too (above). Hosts that carry
// authority inside an MCP call put it in params._meta under MetaKey in the
// JSON form ParseAuthority reads, where MetaAuthority finds it in the
// call's JSON (TestMetaAuthority); the act digest never covers _meta.
//
// # Policy
//
// ParsePolicy reads the policy strictly: exactly its members, each of its
// type (policy_version is a string, and null is not one), no duplicate
// names, every principal's key in its one spelling, every class of
// elicitation once; a refusal is a *PolicyError naming the member by its
// JSON Pointer (TestParsePolicy, TestParsePolicyPrincipals,
// TestParsePolicyElicitation, TestClassNames, FuzzParsePolicy). New refuses
// a Config without a ledger or a receipts log with a *ConfigError naming
// the field, and an invalid policy with its *PolicyError (TestNewRefuses).
//
// # Non-integer arguments
//
// A call that needs authority (its tool at or above the threshold, or not
// named) is read under the strict profile, which admits only integers of
// magnitude at most 2^53-1: a call whose arguments hold 19.99 is denied as
// malformed, never rounded, since its act must be an envelope's action
// (draft-morrison-binding-moment-envelope-04 §5.6, §6.3). Tools that take
// amounts take them in minor units ("amount_cents": 1999) or as strings
// ("ratio": "0.25").
//
// A tool below the threshold is read under the rfc8785 profile by default
// (Policy.NumberProfiles, the policy's number_profiles member), so a
// READ_ONLY lookup taking {"lat":47.37} is allowed on policy; its act,
// and the receipt's act_digest, record the profile ("profile":"rfc8785",
// package act), so no such act has the digest of a strict one. The policy
// may read a class or one tool under strict instead; rfc8785 at or above
// the threshold is refused. Authorize reads the tool's name first and its
// arguments under that tool's profile (act.Parser.ProfileOf), and denies
// an Act given to it that was read under another profile as malformed
// (TestAuthorizeNumberProfiles, TestAuthorizeActProfile,
// TestNumberProfilesPolicy).
package gate
