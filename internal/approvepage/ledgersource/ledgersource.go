// Package ledgersource is the approval page's Source over the gate's bolt
// ledger (ledger/bolt): the requests pending in it, for
// internal/approvepage to list, and the principal's decisions, signed and
// recorded by gate.Decide as bbdigest approve grant and deny record them.
// It is the glue of the page, which knows nothing of the ledger, and the
// ledger, which knows nothing of pages, for bbdigest approve serve.
//
// The ledger is a bbolt file that one process at a time may hold (flock),
// and every gate --ask call is a process of its own that opens it: a
// Source never keeps it open. It opens it for each decision and for a
// listing (which a page asks for every second) when the ledger has changed
// since the last one (stamp), waiting up to Options.Wait for the process
// that holds it, and closes it at once, one operation at a time. Opening
// the ledger reads and checks all of it, and so does listing its requests:
// tens of milliseconds for a ledger of a few hundred requests, which the
// gate would otherwise wait out every second (BenchmarkPending).
//
// Tests: TestDecide (listing, a grant and a deny recorded between the
// calls of a gate that finds them, the refusals), TestUnchanged (the
// listing of an unchanged ledger opens nothing; a commit is listed at
// once), TestLocked (a held ledger: the wait, the message, a done
// context).
package ledgersource

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/internal/approvepage"
	"github.com/bbdigest/bbdigest/internal/diag"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

// Options configures a Source.
type Options struct {
	// Key is the principal's private key, which signs every decision
	// (gate.Decide). It stays in the Source: the page never sees it.
	Key ed25519.PrivateKey
	// Wait is how long each operation waits for another process that
	// holds the ledger (bolt.Options.Wait; 0 tries once).
	Wait time.Duration
	// OnDecision, when set, is called with each request decided (as read
	// right before the decision) and whether it was granted, once the
	// decision is recorded. Its calls take turns with each other and with
	// every other operation of the Source.
	OnDecision func(r *ledger.Request, grant bool)
}

// Source is the approvepage.Source of the bolt ledger at a path. Its
// calls take turns: calls of one process would otherwise wait on each
// other's file lock, which is polled, not queued.
type Source struct {
	path string
	opts Options
	// turn is held by the call that has the ledger open.
	turn chan struct{}
	// listed is the last listing and the stamp of the ledger it was read
	// from; valid is false until there is one, and after a decision.
	// Held with turn.
	listed struct {
		valid bool
		stamp stamp
		at    time.Time
		items []approvepage.Item
	}
}

var _ approvepage.Source = (*Source)(nil)

// New returns the Source of the ledger at path, which must exist (it is
// opened with bolt.Options.MustExist, never created).
func New(path string, opts Options) *Source {
	return &Source{path: path, opts: opts, turn: make(chan struct{}, 1)}
}

// relistAfter is how long Pending answers from its last listing while the
// ledger's stamp stays the same: it bounds what a change the stamp missed
// (see stamp) can hide.
const relistAfter = 10 * time.Second

// stamp tells a ledger changed since it was last read from one that is
// not, without opening it: the file's identity, size and modification
// time, and the bytes of its high-water file PATH.hwm, which package bolt
// rewrites with the transaction id after every commit. A commit that has
// written the file but not yet its high-water file within one tick of the
// file system's clock is missed until the high-water file is written, at
// the next listing.
type stamp struct {
	file os.FileInfo
	hwm  []byte
}

// stampOf returns the stamp of the ledger at path, false when it cannot be
// read (the listing then opens the ledger, which says why).
func stampOf(path string) (stamp, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return stamp{}, false
	}
	hwmPath := path
	if p, err := filepath.EvalSymlinks(path); err == nil {
		hwmPath = p // as package bolt finds it
	}
	hwm, err := os.ReadFile(hwmPath + ".hwm")
	if err != nil || len(hwm) == 0 {
		return stamp{}, false
	}
	return stamp{file: info, hwm: hwm}, true
}

// same reports whether s and t are the stamps of an unchanged ledger.
func (s stamp) same(t stamp) bool {
	return os.SameFile(s.file, t.file) && s.file.Size() == t.file.Size() &&
		s.file.ModTime().Equal(t.file.ModTime()) && bytes.Equal(s.hwm, t.hwm)
}

// take waits for the turn, or for ctx.
func (s *Source) take(ctx context.Context) error {
	select {
	case s.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// open opens the ledger, runs fn on it and closes it; the caller has the
// turn.
func (s *Source) open(fn func(l *bolt.Ledger) error) (err error) {
	l, err := bolt.Open(s.path, &bolt.Options{Wait: s.opts.Wait, MustExist: true})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := l.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(l)
}

// Pending implements approvepage.Source: the requests pending in the
// ledger, oldest first. It answers from its last listing while the
// ledger's stamp is unchanged, for up to relistAfter.
func (s *Source) Pending(ctx context.Context) ([]approvepage.Item, error) {
	if err := s.take(ctx); err != nil {
		return nil, err
	}
	defer func() { <-s.turn }()
	st, stamped := stampOf(s.path)
	now := time.Now()
	if last := &s.listed; stamped && last.valid && last.stamp.same(st) && now.Sub(last.at) < relistAfter {
		return slices.Clone(last.items), nil
	}
	s.listed.valid = false
	items, err := s.pending()
	if err != nil {
		return nil, err
	}
	if stamped {
		s.listed.valid, s.listed.stamp, s.listed.at, s.listed.items = true, st, now, items
	}
	return slices.Clone(items), nil
}

// pending reads the pending requests from the ledger; the caller has the
// turn.
func (s *Source) pending() ([]approvepage.Item, error) {
	var items []approvepage.Item
	err := s.open(func(l *bolt.Ledger) error {
		rs, err := l.Requests()
		if err != nil {
			return err
		}
		for i := range rs {
			r := &rs[i]
			if r.State != ledger.RequestPending {
				continue
			}
			items = append(items, approvepage.Item{
				EnvelopeDigest: r.EnvelopeDigest, Tool: r.Tool, Server: r.Server,
				ActDigest: r.ActDigest, Emitted: r.EmittedAt, Envelope: r.Envelope,
			})
		}
		return nil
	})
	if err != nil {
		return nil, shown(err)
	}
	return items, nil
}

// Decide implements approvepage.Source: it signs d with the principal's
// key and records it in the ledger (gate.Decide), refusing a request that
// the ledger does not hold (an error wrapping ledger.ErrNoRequest) or
// that is not pending any more (a *gate.DecideError underneath).
func (s *Source) Decide(ctx context.Context, d approvepage.Decision) error {
	if err := s.take(ctx); err != nil {
		return err
	}
	defer func() { <-s.turn }()
	s.listed.valid = false // whatever becomes of the decision
	var decided ledger.Request
	err := s.open(func(l *bolt.Ledger) error {
		r, ok, err := l.Request(d.Envelope)
		if err != nil {
			return err
		}
		if !ok {
			return &shownError{msg: fmt.Sprintf("no approval request %s in ledger %s", d.Envelope, diag.FileField(s.path)), err: ledger.ErrNoRequest}
		}
		if err := gate.Decide(l, &r, !d.Deny, d.Option, s.opts.Key, time.Now()); err != nil {
			return err
		}
		decided = r
		return nil
	})
	if err != nil {
		return shown(err)
	}
	if s.opts.OnDecision != nil {
		s.opts.OnDecision(&decided, !d.Deny)
	}
	return nil
}

// shown is err as the page shows it, as bbdigest's commands say it: a
// refused decision with its hint, a ledger's failure without the
// package's name (ledger.Error.Detail). The error underneath stays there
// for errors.Is and errors.As.
func shown(err error) error {
	if de, ok := errors.AsType[*gate.DecideError](err); ok {
		msg := de.Reason
		if de.Hint != "" {
			msg += " (" + de.Hint + ")"
		}
		return &shownError{msg: msg, err: err}
	}
	if le, ok := errors.AsType[*ledger.Error](err); ok {
		return &shownError{msg: le.Detail(), err: err}
	}
	return err
}

// shownError is an error with the message the page shows for it.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }
