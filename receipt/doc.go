// Package receipt writes and verifies LAVR receipts (Ledger-Anchored
// Validation Receipts): one signed, hash-chained record per decision of a
// tool-call gate, allow or deny, kept in an append-only JSON Lines file,
// durable before the decision takes effect.
//
// Hosts use it through package gate, which appends a receipt for every
// decision; auditors use Verify (or bbdigest receipts verify) on the
// file, and VerifyEP on single EP-RECEIPT-v1 documents.
//
// # The receipt document
//
// A receipt is an EP-RECEIPT-v1 document, the shape of EP's authorization
// receipts (draft-schrock-ep-authorization-receipts):
//
//	{"@version":"EP-RECEIPT-v1","payload":{...},"signature":{"algorithm":"Ed25519","value":"..."}}
//
// The signature is Ed25519 (RFC 8032, crypto/ed25519) over the JCS bytes
// (RFC 8785, under the strict profile of package canon) of the payload
// object alone; its value is the base64url encoding of the 64 signature
// bytes, without padding, decoded strictly (the unused low bits of the
// last character must be zero, and no line break may stand between the
// characters, which encoding/base64 would skip), so every byte of a
// receipt has one spelling.
//
// The payload of a LAVR receipt holds these members, and no others (the
// names, and the chaining, are those of the reference model published by
// the agentic tool-binding draft's author, where it has one):
//
//	member              type                               presence
//	receipt_id          "lavr:<16 hex>:<seq>"              always
//	seq                 integer, 1 for the first record    always
//	prev_hash           64 lowercase hex                   always
//	timestamp_ms        integer, Unix milliseconds         always
//	key_id              "sha256:"+64 lowercase hex         always
//	policy_version      string                             always ("" allowed)
//	result              "PASS" (allow) or "FAIL" (deny)    always
//	reason              stable reason code                 always
//	detail              human text                         when not empty
//	consequence_class   READ_ONLY, ORDINARY, FINANCIAL,    always
//	                    PHYSICAL, NETWORK_CONTROL,
//	                    UNCONFIGURED
//	tool                string                             when the call named one
//	server              string                             when configured
//	act_digest          "sha256:"+64 lowercase hex         when the act was read
//	arguments_digest    "sha256:"+64 lowercase hex         when the act was read
//	envelope_digest     "sha256:"+64 lowercase hex         when an authority was presented
//	resolution_outcome  envelope outcome name              when an authority was checked
//
// A member that is absent is left out, never written empty or zero, so a
// Payload has exactly one document and a document exactly one Payload.
// Integers are within the strict profile's 2^53-1. The reason codes are
// package gate's.
//
// # Key ids
//
// key_id names the signing key: "sha256:" and the SHA-256, in lowercase
// hex, of its SubjectPublicKeyInfo DER (RFC 8410), the bytes EP's
// public_key carries in base64url (MarshalPublicKey). receipt_id is
// "lavr:", the first 16 hex digits of that digest, ":" and the seq: unique
// within one key's log, readable in a log line. A verifier refuses a
// record whose key_id is not its key's, or whose receipt_id does not match
// its key_id and seq. One log has one key: to rotate, start a new log.
//
// # The file and its chain
//
// A log is a JSON Lines file: each record is one line holding exactly the
// JCS bytes of its document (no other whitespace), then "\n". The records
// form a hash chain: seq counts from 1, and prev_hash is 64 zeros in the
// first record and, in every other, the SHA-256 of the previous line's
// bytes (the JCS of the previous signed document, signature included;
// the "\n" excluded), which Receipt.Digest and Summary.Last give. So a
// record cannot be changed, removed or reordered without breaking the
// link of the one after it, and the last one is held by its signature.
//
// Verify checks a whole file: every line canonical and well formed, every
// signature (on every core, through package batch), every link in order.
// It names the first bad record in a *ChainError: its line, its seq where
// it can be read, the byte offset of the line, and what failed.
//
// # Torn records
//
// A crash during an append can leave the file ending inside a record: the
// start of the line being written, with no "\n", perhaps followed (or
// replaced) by NUL bytes where the file system had allocated blocks it had
// not written. Such a record was never acknowledged: Append returns only
// after its line, "\n" included, is synced. The rule is: the bytes after
// the last "\n" of a file are a torn record. Verify reports it (ErrTorn,
// at its line) after verifying every record before it. Open keeps its
// bytes, appended to PATH.torn and synced, then cuts it off the log, so
// that the next Append continues the chain from the last complete record
// (its seq plus one, its digest as prev_hash); Log.Recovered reports what
// was cut. Open cuts only bytes that look like what a crash leaves: each of
// their first bytes (as many as the fixed start of a receipt line) is that
// start's or NUL. Anything else, and a last complete line that does not
// verify, fails Open without changing the file: those records were
// acknowledged, and only an operator can say what happened to them.
//
// The rule assumes that the bytes of one append reach the disk in order
// (a crash leaves a prefix of the write, then perhaps NULs), as a process
// killed with SIGKILL always does, and journaling file systems in their
// default modes (ext4 data=ordered, XFS, APFS) do for appends.
//
// # Group commit
//
// Log.Append returns once its record is written and synced (fsync, or
// F_FULLFSYNC on macOS). Concurrent Appends share writes and syncs: a Log
// runs two goroutines, a signer, which takes the Appends in the order they
// arrive, gives each its seq and signs it, and a flusher, which writes a
// group of signed records with one write and syncs it with one fsync.
// While one group is written and synced, the records that arrive are
// signed and gathered into the next, so N concurrent decisions cost N
// signatures but about N/(records per group) fsyncs; Log.Stats counts
// both. Signing stays serial (each record's prev_hash covers the
// signature of the one before), so a Log appends at most one record per
// Ed25519 signature's time, however fast its disk.
//
// If a write or fsync fails, the Log fails closed: that group's Appends
// and every later one return an error wrapping ErrFailed, and the records
// of the failed group may or may not be in the file (a gate that could not
// get its receipt denies). Open the file again to go on: its tail is
// checked as above.
//
// One Log at a time may have a file open: Open takes an exclusive lock
// (flock(2), or LockFileEx on Windows; other systems are refused), waits up
// to Options.Wait for it, then fails with ErrLocked. Keep the file, its
// .torn companion and their directory writable only by the gate.
//
// # EP-RECEIPT-v1 documents
//
// VerifyEP verifies one EP document as EP's conformance vectors carry it
// (any payload, canonicalized first), including an optional "anchor" of
// alg EP-MERKLE-v2: leaf_hash must be SHA-256(0x00 || JCS(payload)) in
// lowercase hex, and each proof step hashes SHA-256(0x01 || left || right)
// over the lowercase hex strings, ordered by the step's position, up to
// merkle_root. An anchor without alg is EP-MERKLE-v1, which does not bind
// the leaf to the payload: refused.
//
// # Errors
//
// Every rejection wraps one sentinel (ErrMalformed, ErrNotCanonical,
// ErrVersion, ErrAlgorithm, ErrMalformedSignature, ErrSignature, ErrKeyID,
// ErrSeq, ErrLink, ErrTorn, and for anchors ErrLegacyAnchor,
// ErrAnchorUnbound, ErrAnchor), for errors.Is; ChainError carries the
// place in the file. No input makes the verifiers panic or hold more than
// one line of MaxLineSize bytes beyond batch's blocks.
package receipt
