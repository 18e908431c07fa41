package envelope

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
)

// boltBucket is the one bucket of a BoltLedger file. Its keys are the 32
// bytes of an envelope digest; its values are one state byte (a
// LedgerState), followed, for StateResolved, by the time of resolution as
// 8 bytes of big-endian Unix nanoseconds.
var boltBucket = []byte("binding_moment_envelopes")

// BoltLockTimeout is how long OpenBoltLedger waits for another process to
// release the file: bbolt lets one process at a time open a database for
// writing.
const BoltLockTimeout = 10 * time.Second

// BoltLedger is a Ledger kept in a bbolt database file, so that single use
// survives restarts and holds across processes. Every Emit and Resolve is
// one bbolt read-write transaction, synced to disk (fsync) before it
// returns: an envelope reported resolved stays resolved after a crash, and
// the test-and-set of Resolve is atomic across goroutines (bbolt runs one
// writer at a time) and across processes (the file is locked while open).
//
// It is safe for concurrent use. Close it when done.
type BoltLedger struct {
	db *bolt.DB
}

// OpenBoltLedger opens the ledger file at path, creating it (mode 0600) if
// it does not exist. If another process has the file open, it waits up to
// BoltLockTimeout, then fails.
func OpenBoltLedger(path string) (*BoltLedger, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: BoltLockTimeout})
	if err != nil {
		return nil, fmt.Errorf("envelope: open ledger %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(boltBucket)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("envelope: open ledger %s: %w", path, err)
	}
	return &BoltLedger{db: db}, nil
}

// Close closes the database file.
func (l *BoltLedger) Close() error { return l.db.Close() }

var errCorruptEntry = errors.New("envelope: ledger: corrupt entry")

// decodeState reads a stored value; nil (no entry) is StateUnknown.
func decodeState(v []byte) (LedgerState, time.Time, error) {
	if v == nil {
		return StateUnknown, time.Time{}, nil
	}
	switch {
	case len(v) == 1 && LedgerState(v[0]) == StateEmitted:
		return StateEmitted, time.Time{}, nil
	case len(v) == 1 && LedgerState(v[0]) == StateResolved:
		return StateResolved, time.Time{}, nil
	case len(v) == 9 && LedgerState(v[0]) == StateResolved:
		return StateResolved, time.Unix(0, int64(binary.BigEndian.Uint64(v[1:]))), nil
	}
	return StateUnknown, time.Time{}, fmt.Errorf("%w: % x", errCorruptEntry, v[:min(len(v), 16)])
}

// Emit implements Ledger.
func (l *BoltLedger) Emit(d hashing.Digest) error {
	return l.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		state, _, err := decodeState(b.Get(d[:]))
		if err != nil {
			return err
		}
		switch state {
		case StateEmitted:
			return nil
		case StateResolved:
			return fmt.Errorf("%w: %s", ErrAlreadyResolved, d)
		}
		return b.Put(d[:], []byte{byte(StateEmitted)})
	})
}

// Resolve implements Ledger. The test and the set are one transaction.
func (l *BoltLedger) Resolve(d hashing.Digest) (bool, error) {
	ok := false
	err := l.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		state, _, err := decodeState(b.Get(d[:]))
		if err != nil || state != StateEmitted {
			return err
		}
		v := make([]byte, 9)
		v[0] = byte(StateResolved)
		binary.BigEndian.PutUint64(v[1:], uint64(time.Now().UnixNano()))
		if err := b.Put(d[:], v); err != nil {
			return err
		}
		ok = true
		return nil
	})
	if err != nil {
		return false, err
	}
	return ok, nil
}

// State implements Ledger.
func (l *BoltLedger) State(d hashing.Digest) (LedgerState, error) {
	s, _, err := l.lookup(d)
	return s, err
}

// ResolvedAt reports when the envelope with digest d was resolved; ok is
// false if it is not resolved.
func (l *BoltLedger) ResolvedAt(d hashing.Digest) (t time.Time, ok bool, err error) {
	s, t, err := l.lookup(d)
	return t, err == nil && s == StateResolved, err
}

func (l *BoltLedger) lookup(d hashing.Digest) (s LedgerState, t time.Time, err error) {
	err = l.db.View(func(tx *bolt.Tx) error {
		s, t, err = decodeState(tx.Bucket(boltBucket).Get(d[:]))
		return err
	})
	return s, t, err
}
