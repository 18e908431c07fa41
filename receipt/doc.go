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
//	channel             "signed" or "elicitation"          when the decision rests on a
//	                                                       principal's signed resolution, or on
//	                                                       the answer of an MCP client's user
//
// A member that is absent is left out, never written empty or zero, so a
// Payload has exactly one document and a document exactly one Payload.
// Integers are within the strict profile's 2^53-1. The reason codes are
// package gate's. channel came after the other members: a receipt written
// before it has none, and verifies as it did (TestPayloadChannel); a
// verifier from before it refuses a receipt that carries it, as it refuses
// every member it does not know.
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
// signature (on every core, through package batch), every link in order,
// and, given the log's high-water mark, that no record at or below it is
// missing and none is past it. It names the first bad record in a
// *ChainError: its line, its seq where it can be read, the byte offset of
// the line, and what failed.
//
// # The high-water mark
//
// A hash chain shows a record changed, removed or reordered before the
// last one, but not the last records removed: a log without its tail
// verifies. So beside the log PATH, its high-water file PATH.hwm
// (MarkPath) records its last acknowledged record, the Mark: its seq, the
// log's length through its "\n", and the SHA-256 of its line. The Log
// writes a group of records to the log, syncs it, then writes the group's
// last record in the high-water file and syncs that, and only then
// returns the group's Appends. The mark is never ahead of a durable log,
// and every acknowledged record is at or below it: a log shorter than its
// mark, or without the mark's record, lost acknowledged records; a record
// past the mark was never acknowledged, and its decision never took
// effect (a crash before the mark's sync kills the caller too; a failure
// fails its Append, and a gate denies).
//
// Open checks the log against this checkpoint, not the whole chain: it
// refuses (changing nothing, fail closed) a log below its mark or deleted
// beside it (ErrTruncated), a log whose line at the mark is not the mark's
// record or not of the Log's key (ErrReplaced, ErrKeyID), and a log with
// records but no intact high-water file (ErrMark: a log written before
// the mark existed is refused, as ledger/bolt refuses such ledgers)
// (TestLogMarkRefuses, TestLogTornKinds). It does not read the chain
// before the mark again: the mark's digest commits to it through the
// prev_hash links, and Verify checks it. A new log is made only where
// neither file is (or the log is empty: the crash window of its
// creation). To start a new log on purpose, move the log, its .hwm and
// its .torn aside together (keep them for the audit), or open a new path.
// Verify checks a log against its mark when given it (VerifyOptions.Mark;
// TestVerifyMark), and bbdigest receipts verify --hwm PATH.hwm does.
//
// The high-water file holds two checksummed slots in different sectors,
// written in turn, so a write torn by a crash leaves the previous mark
// intact (the group it was recording is then past the mark, and cut off
// as below; TestLogMarkSlots). TestKill SIGKILLs a process appending on
// eight goroutines, at random and between a group's fsync and its mark's,
// and checks that the mark covers every acknowledged record and never
// claims more than the log holds.
//
// These checks find accidents and erasures by whoever cannot write the
// high-water file: neither file is signed, and an older copy of both put
// back together rolls the log back undetected. Keep both files, their
// .torn companion and their directory writable only by the gate, and
// never restore them from a backup.
//
// # What Open cuts off
//
// Past the mark, a crash or a failure leaves at most one group, each of
// its records whole and verifying or the last one torn: a crash during an
// append can leave the file ending inside a record, the start of the line
// being written, with no "\n", perhaps followed (or replaced) by NUL bytes
// where the file system had allocated blocks it had not written. None of
// it was acknowledged, so Open keeps its bytes, appended to PATH.torn and
// synced, then cuts it off the log, so that the next Append continues the
// chain from the mark's record (its seq plus one, its digest as
// prev_hash); Log.Recovered reports what was cut, and how many whole
// records. Open cuts only what looks like that: records that verify under
// the Log's key and link on from the mark's record, at most one group
// (256 records); then bytes each of whose first bytes (as many as the
// fixed start of a receipt line) is that start's or NUL. Anything else
// fails Open without changing the file: only an operator can say what
// happened to it (TestLogTorn, TestLogTornKinds, TestLogUnacknowledged).
//
// Verify, without a mark, takes every whole record as a record, and
// reports bytes after the last "\n" as a torn record (ErrTorn, at its
// line) after verifying every record before it; with the mark it reports
// the first record past it (ErrUnacknowledged).
//
// The rule assumes that the bytes of one append reach the disk in order
// (a crash leaves a prefix of the write, then perhaps NULs), as a process
// killed with SIGKILL always does, and journaling file systems in their
// default modes (ext4 data=ordered, XFS, APFS) do for appends.
//
// # Group commit
//
// Log.Append returns once its record is written and synced (fdatasync on
// Linux, which makes the bytes and the size durable but not the times;
// F_FULLFSYNC on macOS; fsync elsewhere), and under the high-water mark,
// synced too.
// Concurrent Appends share writes and syncs: a Log runs two goroutines, a
// signer, which takes the Appends in the order they arrive, gives each its
// seq and signs it, and a flusher, which writes a group of signed records
// with one write, syncs it with one fsync, and then updates the mark with
// one more. While one group is written and synced, the records that
// arrive are signed and gathered into the next (up to 256), so N
// concurrent decisions cost N signatures but about 2N/(records per group)
// fsyncs; Log.Stats counts both. Signing stays serial (each record's
// prev_hash covers the signature of the one before), so the signer does
// nothing it can leave to others: the line goes straight into its group's
// buffer, and each Append copies its own line out and makes its Receipt
// on its own goroutine.
//
// Nor does it compute the costly part of a signature. An Ed25519
// signature's nonce r and its commitment R = r·B take about 15 of its
// 20 µs (BenchmarkSign, on a Zen 5 core), and RFC 8032 derives r from the
// message, which the chain makes known one record at a time. A Log draws
// its nonces ahead instead, r = SHA-512(prefix || 64 random bytes) mod L,
// on goroutines of its own (one for each nonce used), so that the serial
// part of a record is about 1.5 µs and the draws spread over the cores;
// when none is ready it signs with crypto/ed25519.Sign rather than wait.
// The signatures are Ed25519 signatures that crypto/ed25519.Verify and
// every RFC 8032 verifier accept, each nonce used once; they are not RFC
// 8032's deterministic ones (a payload signed twice gets two signatures),
// which nothing here relies on: a record is signed once and its digest
// taken from the line as signed. Stats.Presigned counts the records
// signed so. With Options.Deterministic, and in FIPS 140-3 mode
// (GODEBUG=fips140=on), every signature is crypto/ed25519's.
//
// # Failures
//
// If a write or fsync of the log or of its high-water file fails, the Log
// fails closed: that group's Appends and every later one return an error
// wrapping ErrFailed (a gate that could not get its receipt denies). The
// group's records may be in the file, whole, and verify: a signed PASS
// that was not the decision. So the Log cuts them back off: it writes the
// current mark again into the slot the failed update may have changed,
// then truncates the log to the mark and syncs it (TestLogFsyncEIO).
//
// It truncates rather than append a signed record that voids them: after
// a failed fsync the kernel may have dropped the pages it could not write
// and report a later fsync as a success (Linux does), so a voiding record
// could reach the disk while the records it voids do not, and the log
// would break in the middle; and every verifier would have to know that a
// PASS can be voided by a later line. The mark, synced before any Append
// returns, is the one boundary that a failed fsync cannot move:
// truncating to it is right whatever became of the bytes after it. If the
// truncation or its sync fails too, the Log stays failed, and the records
// stay past the mark, where Verify with the mark reports them as never
// acknowledged and the next Open cuts them off (into PATH.torn, which
// keeps them for the audit, outside the log). A Log that failed is never
// used again, even after a good cut: Close it and Open the file again.
//
// One Log at a time may have a file open: Open takes an exclusive lock
// (flock(2), or LockFileEx on Windows; other systems are refused), waits up
// to Options.Wait for it, then fails with ErrLocked.
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
// ErrSeq, ErrLink, ErrTorn, against a mark ErrTruncated, ErrReplaced and
// ErrUnacknowledged, and for anchors ErrLegacyAnchor, ErrAnchorUnbound,
// ErrAnchor), for errors.Is; ChainError carries the place in the file.
// Open's refusals wrap ErrTruncated, ErrReplaced, ErrMark or ErrLocked, or
// a record's sentinel. No input makes the verifiers panic or hold more than
// one line of MaxLineSize bytes beyond batch's blocks.
package receipt
