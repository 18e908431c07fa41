package receipt

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// VerifyOptions configures Verify. The zero value checks signatures on
// every core.
type VerifyOptions struct {
	// Workers is the number of goroutines that check lines and
	// signatures: 0 means runtime.GOMAXPROCS(0). The answer does not
	// depend on it.
	Workers int
	// Mark, if not nil, is the log's high-water mark (ReadMark of its
	// high-water file): Verify then also checks the file against it (see
	// Verify).
	Mark *Mark
}

// Summary describes the records that verified: the whole file when Verify
// returns nil, else those before the first bad record.
type Summary struct {
	Records  int64          // records verified
	FirstSeq uint64         // the seq of the first (1), 0 when none
	LastSeq  uint64         // the seq of the last, 0 when none
	Last     hashing.Digest // SHA-256 of the last line: the prev_hash of the record that follows; zero when none
	Bytes    int64          // the bytes of those records, each with its "\n"
}

// Verify reads a receipt file from r and checks every record against
// pub: each line is exactly its own JCS form, an EP-RECEIPT-v1 document
// with exactly the members of the format, its payload members of the
// right types, key_id that of pub, receipt_id from key_id and seq, and the
// signature; and each link in order: seq is 1 for the first record and
// the previous one's plus one after it, prev_hash 64 zeros for the first
// and the SHA-256 of the previous line after it. The file must end with
// "\n": a last line without one is a torn record (ErrTorn), even if it
// would verify, and every record before it is still verified.
//
// It returns nil with the Summary of the whole file when every record
// verifies. Otherwise the error is a *ChainError naming the first bad
// record (its line, seq where it could be read, the byte offset of the
// line, and what failed), and the Summary covers the records before it.
// An error reading r is returned as it is, and ctx.Err() when ctx is done.
// An empty file verifies, with no records.
//
// With o.Mark, the file must also hold the mark's record, and nothing
// after it: the line of seq o.Mark.Seq must end at offset o.Mark.Size and
// have the SHA-256 o.Mark.Digest, else a *ChainError wrapping ErrReplaced
// names it; a file that ends before it (records removed from its end, or
// a torn record at or below the mark) is a *ChainError wrapping
// ErrTruncated, at the line where the missing record belongs; and a
// record past the mark, which was never acknowledged, is a *ChainError
// wrapping ErrUnacknowledged at its line (or ErrTorn, if it is torn).
// Without a mark, Verify cannot tell a log from the same log with its last
// records removed.
//
// Lines and signatures are checked on Options.Workers goroutines through
// package batch, the links in order on the calling goroutine; memory stays
// bounded whatever the length of the file (batch's blocks in flight, and
// one line of at most MaxLineSize).
func Verify(ctx context.Context, r io.Reader, pub ed25519.PublicKey, o VerifyOptions) (Summary, error) {
	if len(pub) != ed25519.PublicKeySize {
		return Summary{}, fmt.Errorf("receipt: verify: bad public key length %d", len(pub))
	}
	if o.Workers < 0 {
		return Summary{}, fmt.Errorf("receipt: verify: negative number of workers %d", o.Workers)
	}
	mark := o.Mark
	if mark != nil && !mark.valid() {
		return Summary{}, fmt.Errorf("receipt: verify: a mark no log has: seq %d, size %d, digest %v", mark.Seq, mark.Size, mark.Digest)
	}
	v := newVerifier(pub)
	tr := &tailReader{r: r}
	var (
		sum, before Summary
		off         int64 // where the current line starts
		lastLen     int   // the length of the last line verified
	)
	opts := batch.Options{
		Mode:      batch.ModeBoth,
		Workers:   o.Workers,
		MaxRecord: MaxLineSize,
		Check: func(record, canonical []byte, _ hashing.Digest) error {
			if le := notCanonical(record, canonical); le != nil {
				return le
			}
			var p Payload
			if le := v.check(record, &p); le != nil {
				return le
			}
			return nil
		},
	}
	fail := func(res batch.Result, what string, err error, seq uint64) error {
		return &ChainError{Line: res.Line, Seq: seq, Offset: off, What: what, Err: err}
	}
	var failed []byte // the record that failed, if any
	_, err := batch.Stream(ctx, tr, opts, func(res batch.Result) error {
		if res.Err != nil {
			failed = res.Record
			if le, ok := errors.AsType[*lineError](res.Err); ok {
				seq := le.seq
				if seq == 0 {
					seq = seqHint(res.Record)
				}
				return fail(res, le.what, le.err, seq)
			}
			if res.Record == nil { // longer than MaxLineSize, not kept
				return fail(res, fmt.Sprintf("a line longer than %d bytes", MaxLineSize), ErrMalformed, 0)
			}
			le := notJSON(res.Err)
			return fail(res, le.what, le.err, seqHint(res.Record))
		}
		seq, prev, ok := links(res.Canonical)
		if !ok { // not reached: the line passed check
			return fail(res, "BUG: the seq and prev_hash of a checked line cannot be read", ErrMalformed, 0)
		}
		want := sum.LastSeq + 1
		if seq != want {
			failed = res.Record
			return fail(res, fmt.Sprintf("seq %d, want %d", seq, want), ErrSeq, seq)
		}
		if prev != sum.Last {
			failed = res.Record
			what := "prev_hash is not 64 zeros in the first record"
			if seq > 1 {
				what = fmt.Sprintf("prev_hash %x is not the SHA-256 of line %d, %x", prev[:], res.Line-1, sum.Last[:])
			}
			return fail(res, what, ErrLink, seq)
		}
		if mark != nil {
			end := off + int64(len(res.Record)) + 1
			switch {
			case seq > mark.Seq:
				failed = res.Record
				return fail(res, fmt.Sprintf("past the high-water mark, seq %d: never acknowledged (a crash, or a failed write or fsync, before the mark was updated), so its decision did not take effect", mark.Seq), ErrUnacknowledged, seq)
			case seq == mark.Seq && (end != mark.Size || res.Digest != mark.Digest):
				failed = res.Record
				return fail(res, fmt.Sprintf("the high-water mark records seq %d as %v ending at offset %d, but this record is %v ending at offset %d: the log was replaced or rewritten, or the mark is another log's", seq, mark.Digest, mark.Size, res.Digest, end), ErrReplaced, seq)
			}
		}
		before = sum
		if sum.Records == 0 {
			sum.FirstSeq = seq
		}
		sum.Records++
		sum.LastSeq = seq
		sum.Last = res.Digest
		sum.Bytes += int64(len(res.Record)) + 1
		lastLen = len(res.Record)
		off += int64(len(res.Record)) + 1
		return nil
	})
	// A line without "\n" is the input's last; batch answers it only once
	// the reader has reported the end, so tr.n tells whether a line is it.
	if ce, ok := errors.AsType[*ChainError](err); ok {
		if failed != nil && tr.n == ce.Offset+int64(len(failed)) {
			ce.What = "torn: the file ends inside this record, without its \"\\n\" (" + ce.What + ")"
			ce.Err = ErrTorn
			truncatedAt(ce, mark)
		}
		return sum, ce
	}
	if err != nil {
		return sum, err
	}
	if tr.n > 0 && tr.last != '\n' { // the last line verified, but has no "\n"
		ce := &ChainError{Line: sum.Records, Seq: sum.LastSeq, Offset: off - int64(lastLen) - 1,
			What: "torn: the file ends inside this record, without its \"\\n\"", Err: ErrTorn}
		truncatedAt(ce, mark)
		return before, ce
	}
	if mark != nil && sum.LastSeq < mark.Seq {
		return sum, &ChainError{Line: sum.Records + 1, Offset: sum.Bytes, Err: ErrTruncated,
			What: fmt.Sprintf("the file ends after seq %d, but the high-water mark records seq %d, ending at offset %d: acknowledged records were removed from its end, or the file is an older copy", sum.LastSeq, mark.Seq, mark.Size)}
	}
	return sum, nil
}

// truncatedAt turns ce, a torn record, into a truncation when the record
// is at or below mark: it was acknowledged whole.
func truncatedAt(ce *ChainError, mark *Mark) {
	if mark == nil || ce.Line > int64(mark.Seq) {
		return
	}
	ce.What = fmt.Sprintf("the file ends inside this record, without its \"\\n\", but the high-water mark records seq %d, ending at offset %d: acknowledged records were cut from its end", mark.Seq, mark.Size)
	ce.Err = ErrTruncated
}

// tailReader counts the bytes read and keeps the last one.
type tailReader struct {
	r    io.Reader
	n    int64
	last byte
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.n += int64(n)
		t.last = p[n-1]
	}
	return n, err
}

// links reads seq and prev_hash from a line that passed check.
func links(line []byte) (seq uint64, prev hashing.Digest, ok bool) {
	m := jsonread.Object(line, 0)
	var payload []byte
	for m.Next() {
		name, v := m.Name(), m.Value()
		if string(name) == "payload" {
			payload = v
			break
		}
	}
	pm := jsonread.Object(payload, 0)
	found := 0
	for found < 2 {
		if !pm.Next() {
			return 0, prev, false
		}
		name, v := pm.Name(), pm.Value()
		switch string(name) {
		case "prev_hash":
			if len(v) != 66 {
				return 0, prev, false
			}
			if _, err := hex.Decode(prev[:], v[1:65]); err != nil {
				return 0, prev, false
			}
			found++
		case "seq":
			n, ok := parseInt(v)
			if !ok {
				return 0, prev, false
			}
			seq = uint64(n)
			found++
		}
	}
	return seq, prev, true
}
