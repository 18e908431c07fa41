package bolt

// This file is the Ledger's store of approval requests (ledger.Approvals):
// a second bucket of the same file, written with the same transactions,
// fsyncs and high-water file as the envelopes, and checked on open entry by
// entry as they are.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// requestBucket holds the approval requests. It is created by the first
// Ask, so that a ledger that never asks keeps the one bucket an earlier
// bbdigest reads. Its keys are 33 bytes:
//
//	'r' and the 32 bytes of an envelope digest: the request (requestValue)
//	'a' and the 32 bytes of an act digest: the envelope digest of the act's
//	    open request, 32 bytes, and a CRC-32C of the key and those bytes,
//	    big-endian, 4 bytes
var requestBucket = []byte("approval_requests")

const (
	requestKey    = 'r'
	openKey       = 'a'
	requestKeyLen = 1 + hashing.Size
	openValueLen  = hashing.Size + 4
	// requestFormat is the first byte of a request's value: the format of
	// what follows, a JSON object (storedRequest), and a CRC-32C of the
	// key and every byte before it, big-endian, 4 bytes.
	requestFormat = 1
)

// storedRequest is the JSON object of a request's value. Times are Unix
// nanoseconds, 0 for none.
type storedRequest struct {
	EnvelopeDigest hashing.Digest `json:"envelope_digest"`
	Envelope       []byte         `json:"envelope"`
	ActDigest      hashing.Digest `json:"act_digest"`
	Act            []byte         `json:"act"`
	Tool           string         `json:"tool"`
	Server         string         `json:"server"`
	Class          string         `json:"class"`
	State          uint8          `json:"state"`
	EmittedAt      int64          `json:"emitted_at"`
	Decision       []byte         `json:"decision,omitempty"`
	DecidedAt      int64          `json:"decided_at,omitempty"`
	Closing        string         `json:"closing,omitempty"`
	ClosedAt       int64          `json:"closed_at,omitempty"`
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

func key(kind byte, d hashing.Digest) []byte {
	return append([]byte{kind}, d[:]...)
}

// appendRequest appends the stored value of r, whose key is k.
func appendRequest(dst, k []byte, r *ledger.Request) []byte {
	s := storedRequest{
		EnvelopeDigest: r.EnvelopeDigest, Envelope: r.Envelope, ActDigest: r.ActDigest, Act: r.Act,
		Tool: r.Tool, Server: r.Server, Class: r.Class, State: uint8(r.State), EmittedAt: unixNano(r.EmittedAt),
		Decision: r.Decision, DecidedAt: unixNano(r.DecidedAt), Closing: r.Closing, ClosedAt: unixNano(r.ClosedAt),
	}
	j, err := json.Marshal(&s)
	if err != nil {
		panic("BUG: " + err.Error()) // digests, byte slices, strings and integers
	}
	start := len(dst)
	dst = append(append(dst, requestFormat), j...)
	return binary.BigEndian.AppendUint32(dst, crc32.Update(crc32.Checksum(k, castagnoli), castagnoli, dst[start:]))
}

// decodeRequest decodes the value v of the request key k, and checks that
// it is a request as Ask, Decide and Finish write one.
func decodeRequest(k, v []byte) (ledger.Request, error) {
	if len(k) != requestKeyLen || k[0] != requestKey {
		return ledger.Request{}, fmt.Errorf("request key of %d bytes", len(k))
	}
	if len(v) < 1+2+4 {
		return ledger.Request{}, fmt.Errorf("request value of %d bytes", len(v))
	}
	if v[0] != requestFormat {
		return ledger.Request{}, fmt.Errorf("request value of format %d, want %d (a ledger of a later bbdigest, or damage)", v[0], requestFormat)
	}
	if got, want := binary.BigEndian.Uint32(v[len(v)-4:]), crc32.Update(crc32.Checksum(k, castagnoli), castagnoli, v[:len(v)-4]); got != want {
		return ledger.Request{}, fmt.Errorf("checksum %08x, computed %08x", got, want)
	}
	var s storedRequest
	dec := json.NewDecoder(bytes.NewReader(v[1 : len(v)-4]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return ledger.Request{}, fmt.Errorf("request: %v", err)
	}
	r := ledger.Request{
		EnvelopeDigest: s.EnvelopeDigest, Envelope: s.Envelope, ActDigest: s.ActDigest, Act: s.Act,
		Tool: s.Tool, Server: s.Server, Class: s.Class, State: ledger.RequestState(s.State), EmittedAt: fromUnixNano(s.EmittedAt),
		Decision: s.Decision, DecidedAt: fromUnixNano(s.DecidedAt), Closing: s.Closing, ClosedAt: fromUnixNano(s.ClosedAt),
	}
	decided := r.State == ledger.RequestGranted || r.State == ledger.RequestDenied || r.State == ledger.RequestClosed && len(r.Decision) > 0
	switch {
	case !bytes.Equal(k[1:], r.EnvelopeDigest[:]):
		return ledger.Request{}, fmt.Errorf("request %x holds envelope %s", k[1:], r.EnvelopeDigest)
	case ledger.CheckAsk(&r) != nil:
		return ledger.Request{}, fmt.Errorf("request %s: %v", r.EnvelopeDigest, ledger.CheckAsk(&r))
	case !r.State.Valid() || r.EmittedAt.IsZero():
		return ledger.Request{}, fmt.Errorf("request %s: state %d, emitted %d", r.EnvelopeDigest, s.State, s.EmittedAt)
	case decided != (len(r.Decision) > 0) || decided != !r.DecidedAt.IsZero():
		return ledger.Request{}, fmt.Errorf("request %s: state %v with a decision of %d bytes, decided %d", r.EnvelopeDigest, r.State, len(r.Decision), s.DecidedAt)
	case (r.State == ledger.RequestClosed) != !r.ClosedAt.IsZero():
		return ledger.Request{}, fmt.Errorf("request %s: state %v, closed %d", r.EnvelopeDigest, r.State, s.ClosedAt)
	}
	return r, nil
}

// appendOpen appends the stored value of the open-request key k, naming
// the envelope d.
func appendOpen(dst, k []byte, d hashing.Digest) []byte {
	start := len(dst)
	dst = append(dst, d[:]...)
	return binary.BigEndian.AppendUint32(dst, crc32.Update(crc32.Checksum(k, castagnoli), castagnoli, dst[start:]))
}

// decodeOpen decodes the value v of the open-request key k.
func decodeOpen(k, v []byte) (hashing.Digest, error) {
	var d hashing.Digest
	if len(k) != requestKeyLen || k[0] != openKey || len(v) != openValueLen {
		return d, fmt.Errorf("open-request key of %d bytes, value of %d", len(k), len(v))
	}
	if got, want := binary.BigEndian.Uint32(v[hashing.Size:]), crc32.Update(crc32.Checksum(k, castagnoli), castagnoli, v[:hashing.Size]); got != want {
		return d, fmt.Errorf("checksum %08x, computed %08x", got, want)
	}
	copy(d[:], v)
	return d, nil
}

// requestChecker checks the entries of the request bucket as the walk of
// the file meets them, and then that they agree: each act's open request is
// a request of that act, open, and each open request is its act's.
type requestChecker struct {
	open     map[hashing.Digest]hashing.Digest // act -> envelope, from the 'a' keys
	requests map[hashing.Digest]ledger.Request // open requests, by envelope digest
}

func (c *requestChecker) entry(k, v []byte) error {
	if len(k) == 0 {
		return errors.New("empty key")
	}
	switch k[0] {
	case requestKey:
		r, err := decodeRequest(k, v)
		if err != nil {
			return err
		}
		if r.State.Open() {
			if c.requests == nil {
				c.requests = make(map[hashing.Digest]ledger.Request)
			}
			r.Envelope, r.Act, r.Decision = nil, nil, nil
			c.requests[r.EnvelopeDigest] = r
		}
	case openKey:
		d, err := decodeOpen(k, v)
		if err != nil {
			return err
		}
		if c.open == nil {
			c.open = make(map[hashing.Digest]hashing.Digest)
		}
		c.open[hashing.Digest(k[1:])] = d
	default:
		return fmt.Errorf("key %x of no kind", k)
	}
	return nil
}

func (c *requestChecker) check() error {
	for act, env := range c.open {
		r, ok := c.requests[env]
		if !ok || r.ActDigest != act {
			return fmt.Errorf("act %s: its open request %s is not an open request of it", act, env)
		}
	}
	if len(c.open) != len(c.requests) {
		return fmt.Errorf("%d open requests, %d acts with one", len(c.requests), len(c.open))
	}
	return nil
}

// requests returns the request bucket of tx, creating it when create.
func (l *Ledger) requests(tx *bbolt.Tx, create bool) (*bbolt.Bucket, error) {
	if b := tx.Bucket(requestBucket); b != nil || !create {
		return b, nil
	}
	return tx.CreateBucket(requestBucket)
}

// request returns the request d in b (ok false if there is none).
func (l *Ledger) request(b *bbolt.Bucket, d hashing.Digest) (ledger.Request, bool, error) {
	if b == nil {
		return ledger.Request{}, false, nil
	}
	k := key(requestKey, d)
	v := b.Get(k)
	if v == nil {
		return ledger.Request{}, false, nil
	}
	r, err := decodeRequest(k, v)
	if err != nil {
		return ledger.Request{}, false, l.corrupt("%v", err)
	}
	return r.Clone(), true, nil // bbolt's memory is valid only in the transaction
}

// Ask implements ledger.Approvals: the test for an open request and the
// store of a new one are one transaction.
func (l *Ledger) Ask(r *ledger.Request) (ledger.Request, bool, error) {
	if err := ledger.CheckAsk(r); err != nil {
		return ledger.Request{}, false, &ledger.Error{Op: "ask", Path: l.path, Err: err}
	}
	var got ledger.Request
	created := false
	err := l.update(func(tx *bbolt.Tx) error {
		b, err := l.requests(tx, false)
		if err != nil {
			return err
		}
		if b != nil {
			ok := b.Get(key(openKey, r.ActDigest))
			if ok != nil {
				d, err := decodeOpen(key(openKey, r.ActDigest), ok)
				if err != nil {
					return l.corrupt("%v", err)
				}
				open, found, err := l.request(b, d)
				switch {
				case err != nil:
					return err
				case !found || !open.State.Open() || open.ActDigest != r.ActDigest:
					return l.corrupt("act %s: its open request %s is not an open request of it", r.ActDigest, d)
				}
				got = open
				return errNoChange
			}
			if b.Get(key(requestKey, r.EnvelopeDigest)) != nil {
				return fmt.Errorf("envelope %s was asked before: a new request needs a new envelope", r.EnvelopeDigest)
			}
		}
		if b, err = l.requests(tx, true); err != nil {
			return err
		}
		n := r.Clone()
		n.State, n.EmittedAt = ledger.RequestPending, time.Now().Round(0)
		n.Decision, n.DecidedAt, n.Closing, n.ClosedAt = nil, time.Time{}, "", time.Time{}
		rk, ok := key(requestKey, n.EnvelopeDigest), key(openKey, n.ActDigest)
		if err := b.Put(rk, appendRequest(nil, rk, &n)); err != nil {
			return err
		}
		if err := b.Put(ok, appendOpen(nil, ok, n.EnvelopeDigest)); err != nil {
			return err
		}
		got, created = n, true
		return nil
	})
	if err != nil {
		return ledger.Request{}, false, opErr("ask", err)
	}
	return got, created, nil
}

// Decide implements ledger.Approvals.
func (l *Ledger) Decide(d hashing.Digest, state ledger.RequestState, decision []byte) (ledger.Request, error) {
	if err := ledger.CheckDecide(state, decision); err != nil {
		return ledger.Request{}, &ledger.Error{Op: "decide", Path: l.path, Err: err}
	}
	var got ledger.Request
	err := l.update(func(tx *bbolt.Tx) error {
		b, err := l.requests(tx, false)
		if err != nil {
			return err
		}
		r, ok, err := l.request(b, d)
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("%w: %s", ledger.ErrNoRequest, d)
		case r.State != ledger.RequestPending:
			return fmt.Errorf("%w: %s is %v", ledger.ErrNotPending, d, r.State)
		}
		r.State, r.Decision, r.DecidedAt = state, bytes.Clone(decision), time.Now().Round(0)
		if len(r.Envelope)+len(r.Act)+len(r.Decision) > ledger.MaxRequestText {
			return fmt.Errorf("a request of %d bytes with its decision, above %d", len(r.Envelope)+len(r.Act)+len(r.Decision), ledger.MaxRequestText)
		}
		k := key(requestKey, d)
		got = r
		return b.Put(k, appendRequest(nil, k, &r))
	})
	if err != nil {
		return ledger.Request{}, opErr("decide", err)
	}
	return got, nil
}

// Finish implements ledger.Approvals.
func (l *Ledger) Finish(d hashing.Digest, why string) (bool, error) {
	if len(why) > ledger.MaxRequestName {
		return false, &ledger.Error{Op: "finish", Path: l.path, Err: fmt.Errorf("a reason of %d bytes, above %d", len(why), ledger.MaxRequestName)}
	}
	done := false
	err := l.update(func(tx *bbolt.Tx) error {
		b, err := l.requests(tx, false)
		if err != nil {
			return err
		}
		r, ok, err := l.request(b, d)
		switch {
		case err != nil:
			return err
		case !ok || !r.State.Open():
			return errNoChange
		}
		r.State, r.Closing, r.ClosedAt = ledger.RequestClosed, why, time.Now().Round(0)
		k := key(requestKey, d)
		if err := b.Put(k, appendRequest(nil, k, &r)); err != nil {
			return err
		}
		if err := b.Delete(key(openKey, r.ActDigest)); err != nil {
			return err
		}
		done = true
		return nil
	})
	if err != nil {
		return false, opErr("finish", err)
	}
	return done, nil
}

// Request implements ledger.Approvals.
func (l *Ledger) Request(d hashing.Digest) (ledger.Request, bool, error) {
	var r ledger.Request
	var ok bool
	err := l.view(func(tx *bbolt.Tx) error {
		b, err := l.requests(tx, false)
		if err != nil {
			return err
		}
		r, ok, err = l.request(b, d)
		return err
	})
	if err != nil {
		return ledger.Request{}, false, err
	}
	return r, ok, nil
}

// Requests implements ledger.Approvals.
func (l *Ledger) Requests() ([]ledger.Request, error) {
	var rs []ledger.Request
	err := l.view(func(tx *bbolt.Tx) error {
		b, err := l.requests(tx, false)
		if err != nil || b == nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			if k[0] != requestKey {
				return nil
			}
			r, err := decodeRequest(k, v)
			if err != nil {
				return l.corrupt("%v", err)
			}
			rs = append(rs, r.Clone())
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	ledger.SortRequests(rs)
	return rs, nil
}

// view runs fn in a read-only transaction, as Lookup does.
func (l *Ledger) view(fn func(tx *bbolt.Tx) error) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if err := l.usable(); err != nil {
		return err
	}
	if _, err := l.txn(false, fn); err != nil {
		return l.wrap(err)
	}
	return nil
}

// opErr gives err, a *ledger.Error of update, the operation op when it
// names none.
func opErr(op string, err error) error {
	if le, ok := errors.AsType[*ledger.Error](err); ok && le.Op == "" && !errors.Is(err, ledger.ErrCorrupt) {
		c := *le
		c.Op = op
		return &c
	}
	return err
}
