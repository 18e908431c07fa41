// Package ledger makes a decision single-use: it records which envelopes
// (draft-morrison-binding-moment-envelope-04), named by their digests, an
// agent has emitted, and when, and which of them are resolved, and by which
// outcome.
// The Resolver of package envelope consumes an envelope here in the same
// step that checks its resolution, so that among any number of
// resolutions of one envelope at most one is a decision (§7.3, §12.5).
//
// A Ledger is the interface; Memory keeps one in memory, and package
// github.com/bbdigest/bbdigest/ledger/bolt keeps one in a bbolt file, which
// survives restarts and which processes share one at a time. This package
// does not depend on bbolt.
//
// # Single use
//
// Resolve is an atomic test-and-set: it reports true exactly once for an
// emitted envelope, whatever the number of concurrent callers, and records
// the outcome and the time. Emit refuses an envelope already resolved
// (ErrAlreadyResolved).
//
// # Emission time
//
// Emit records when the envelope was emitted (Entry.EmittedAt), once: an
// Emit of an envelope already emitted keeps the first time, so emitting
// again never makes a pending envelope younger. Package gate measures the
// age of a principal's authority from it (its policy's max_authority_age),
// so that an authority lives no longer than the policy allows after the
// host emitted the question, whatever the presenter writes. The time is
// the ledger's wall clock (time.Now). The states, outcomes and emission
// times are the contract every Ledger keeps; TestLedgerStates checks it of
// Memory and of the bolt ledger alike.
//
// Single use is at most once, not exactly once. The envelope is consumed
// when the ledger commits, before Resolve returns: a host killed, or given
// an error, between the two has consumed the decision without learning it,
// and the same resolution presented again is not a decision. Such a host
// asks the ledger: Lookup reports StateResolved with the Outcome that
// consumed the envelope and when. If the host's own record shows it did
// not act, it puts the question again in a new envelope that differs from
// the first (§12.5). StateEmitted means nothing was consumed.
//
// # Crash safety, the high-water file and locking
//
// The bolt ledger syncs every commit to disk before it returns, so an
// envelope reported resolved stays resolved after a crash. It keeps, beside
// its file PATH, a high-water file PATH.hwm, and on open refuses with
// ErrCorrupt a file that is damaged or rolled back: a damaged newest meta
// page that bbolt would silently replace by the previous one, an older copy
// of the file, a missing or damaged high-water file, or any page or entry
// that fails its checks. One process at a time has the file open; others
// wait for its lock, then fail with ErrLocked. These checks find
// accidents, not attacks: neither file is signed, and whoever can write
// both can set any state or roll both back together. Package bolt has the
// details.
//
// # Approval requests
//
// Approvals is the store of the approval requests a gate asks (package
// gate, Config.Approvals): each the binding-moment envelope built for one
// act, kept as bytes with its act, named by its envelope digest, with at
// most one open request per act digest (Ask returns it while it is open),
// a principal's decision recorded once (Decide), and Finish ending it, so
// that the act's next Ask opens a new request. Memory implements it, and so
// does the bolt ledger, in the same file as the envelopes; TestApprovals
// checks the contract of both (ledgertest.Approvals). This package holds
// the requests as bytes: package gate builds and reads their envelopes and
// decisions.
//
// # Errors
//
// Every error of Memory and of package bolt's Ledger is an *Error: what
// was being done, the ledger's file, and the cause, which wraps one of
// the sentinels (ErrAlreadyResolved, ErrCorrupt, ErrLocked, ErrClosed) or
// an error of the file system where one applies.
package ledger
