package receipt

import (
	"errors"
	"strconv"
)

// Sentinel errors. A *ChainError, and every error of VerifyEP, wraps
// exactly one of the first group (and, for a line that is not JSON, the
// *canon.Error too), so callers can write errors.Is(err,
// receipt.ErrSignature).
var (
	// ErrMalformed: not a receipt document: not JSON, a member missing,
	// unknown or of the wrong type or form.
	ErrMalformed = errors.New("receipt: malformed")
	// ErrNotCanonical: a line that is JSON but not exactly its own JCS form.
	ErrNotCanonical = errors.New("receipt: not canonical")
	// ErrVersion: "@version" is not EP-RECEIPT-v1.
	ErrVersion = errors.New("receipt: unsupported version")
	// ErrAlgorithm: "signature"."algorithm" is not Ed25519.
	ErrAlgorithm = errors.New("receipt: unsupported signature algorithm")
	// ErrMalformedSignature: the signature value is missing, not base64url
	// without padding (strict), or not 64 bytes.
	ErrMalformedSignature = errors.New("receipt: malformed signature")
	// ErrSignature: the signature does not verify under the key.
	ErrSignature = errors.New("receipt: signature does not verify")
	// ErrKeyID: the payload's key_id is not the verifying key's, or its
	// receipt_id does not match its key_id and seq.
	ErrKeyID = errors.New("receipt: wrong key id")
	// ErrSeq: seq is not the previous record's plus one (1 for the first).
	ErrSeq = errors.New("receipt: sequence broken")
	// ErrLink: prev_hash is not the SHA-256 of the previous line (64 zeros
	// for the first).
	ErrLink = errors.New("receipt: chain link broken")
	// ErrTorn: the file ends inside a record: its last line has no "\n".
	ErrTorn = errors.New("receipt: torn record")
	// ErrLegacyAnchor: an EP anchor without "alg" (EP-MERKLE-v1, unbound to
	// the payload), refused.
	ErrLegacyAnchor = errors.New("receipt: legacy EP-MERKLE-v1 anchor refused")
	// ErrAnchorUnbound: an EP-MERKLE-v2 anchor whose leaf_hash is not that
	// of this payload.
	ErrAnchorUnbound = errors.New("receipt: anchor leaf not bound to the payload")
	// ErrAnchor: an EP anchor that is malformed, of an unknown alg, or
	// whose proof does not reach its merkle_root.
	ErrAnchor = errors.New("receipt: anchor does not verify")
)

// Errors of the Log.
var (
	// ErrLocked: another Log, in this process or another, has the file
	// open, and did not close it within Options.Wait.
	ErrLocked = errors.New("receipt: log locked")
	// ErrFailed: a write or fsync of the log failed; the Log refuses every
	// later Append (fail closed). Open it again to go on.
	ErrFailed = errors.New("receipt: log failed")
	// ErrClosed: the Log is closed.
	ErrClosed = errors.New("receipt: log closed")
)

// Errors of the high-water mark (see Mark). Open refuses a log with
// ErrTruncated, ErrReplaced or ErrMark, and cuts off what is
// ErrUnacknowledged; Verify, given a mark, reports the first three as a
// *ChainError wrapping them.
var (
	// ErrTruncated: the log ends before the record its high-water mark
	// records, or is missing: acknowledged records were removed from its
	// end, the file was deleted, or an older copy put back.
	ErrTruncated = errors.New("receipt: log truncated below its high-water mark")
	// ErrReplaced: the record at the high-water mark's seq is not the one
	// the mark records (another line, or at another offset): the log was
	// replaced or rewritten, or the mark is another log's.
	ErrReplaced = errors.New("receipt: log does not hold its high-water mark's record")
	// ErrUnacknowledged: a record past the high-water mark, whose Append
	// never returned (a crash, or a failed write or fsync, before the mark
	// was updated): its decision did not take effect. Verify reports it;
	// Open cuts it off into PATH.torn.
	ErrUnacknowledged = errors.New("receipt: record past the high-water mark, never acknowledged")
	// ErrMark: the high-water file is missing beside a log that has
	// records, or damaged (neither slot intact).
	ErrMark = errors.New("receipt: high-water file missing or damaged")
)

// ChainError reports the first record of a receipt file that does not
// verify, and why.
type ChainError struct {
	Line   int64  // the record's line, from 1
	Seq    uint64 // the seq the record carries, when it could be read; else 0
	Offset int64  // the byte offset of the line's first byte in the file
	What   string // what failed, e.g. `prev_hash is not the SHA-256 of line 2`
	Err    error  // one of the sentinels above (and a *canon.Error for a line that is not JSON)
}

// Error formats e as "receipt: line N (seq S) at offset O: WHAT"; the seq
// is left out when unknown.
func (e *ChainError) Error() string {
	s := "receipt: line " + strconv.FormatInt(e.Line, 10)
	if e.Seq != 0 {
		s += " (seq " + strconv.FormatUint(e.Seq, 10) + ")"
	}
	return s + " at offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.What
}

// Unwrap returns e.Err.
func (e *ChainError) Unwrap() error { return e.Err }

// KeyError reports why ParsePublicKey or ParsePrivateKey refuses a key's
// text.
type KeyError struct {
	Private bool   // the text was read as a private key (ParsePrivateKey)
	Reason  string // why, such as `not one PEM "PUBLIC KEY" block`
}

// Error returns "receipt: public key: REASON" (or "private key").
func (e *KeyError) Error() string {
	if e.Private {
		return "receipt: private key: " + e.Reason
	}
	return "receipt: public key: " + e.Reason
}

// EPError reports why VerifyEP refuses an EP-RECEIPT-v1 document.
type EPError struct {
	// What failed, such as "signature does not verify under the key
	// sha256:..." or, for the anchor, "anchor: " and what in it failed.
	What string
	// Err is the sentinel of the failure (ErrMalformed, ErrSignature,
	// ...; and the *canon.Error of a document that is not JSON under the
	// strict profile); nil for a public key of the wrong length.
	Err error
}

// Error returns "receipt: EP document: WHAT".
func (e *EPError) Error() string { return "receipt: EP document: " + e.What }

// Unwrap returns e.Err.
func (e *EPError) Unwrap() error { return e.Err }

// lineError is what one line's checks found wrong, before it has a place
// in a file.
type lineError struct {
	what string
	err  error
	seq  uint64 // when read
}

func (e *lineError) Error() string { return e.what }
func (e *lineError) Unwrap() error { return e.err }
