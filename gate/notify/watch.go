package notify

import (
	"context"
	"errors"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// WatchOptions configures Watch.
type WatchOptions struct {
	// Every is the interval between two polls; it must be positive.
	Every time.Duration
	// Skip, when set, is asked about each failed poll but the first:
	// true skips it (Watch polls again at the next tick), false ends the
	// watch with its error. Nil ends the watch at any failure. bbdigest
	// approve notify skips a ledger that another process holds past its
	// wait, and says so.
	Skip func(err error) bool
}

// Watch is the notifier of gates that cannot wait for a webhook (bbdigest
// gate, one short process per call): a long-running loop that polls the
// store they share and Sends each new pending request to n. It calls poll
// at once, then every opts.Every until ctx is done, and Sends each request
// of poll's answer that is pending and that it has not sent yet. A
// request counts as sent once n queued it for every webhook: one dropped
// for a webhook whose queue was full goes again at the next poll. A
// request no longer pending is forgotten. What was sent is kept for this
// Watch only: a Watch started again sends the requests still pending
// again, which receivers drop by their envelope digest.
//
// It returns nil once ctx is done, or the error of the poll that ended the
// watch: the first one's, or a later one's that opts.Skip does not skip.
// It does not close n: the caller drains what is queued with n.Close.
func Watch(ctx context.Context, n *Notifier, poll func() ([]ledger.Request, error), opts WatchOptions) error {
	switch {
	case n == nil || poll == nil:
		return errors.New("notify: watch: no Notifier or no poll")
	case opts.Every <= 0:
		return errors.New("notify: watch: the interval between polls must be positive, not " + opts.Every.String())
	}
	sent := map[hashing.Digest]bool{}
	t := time.NewTicker(opts.Every)
	defer t.Stop()
	for first := true; ; first = false {
		rs, err := poll()
		switch {
		case err == nil:
			sendNew(n, rs, sent)
		case first || opts.Skip == nil || !opts.Skip(err):
			return err
		}
		// A select with the context done and a tick ready picks either:
		// ask the context first, so that no poll starts once it is done.
		if ctx.Err() != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if ctx.Err() != nil {
				return nil
			}
		}
	}
}

// sendNew sends each pending request of rs that sent does not hold, and
// records it there once n queued it for every webhook; it forgets the
// requests no longer pending.
func sendNew(n *Notifier, rs []ledger.Request, sent map[hashing.Digest]bool) {
	pending := make(map[hashing.Digest]bool, len(rs))
	for i := range rs {
		r := &rs[i]
		if r.State != ledger.RequestPending {
			continue
		}
		pending[r.EnvelopeDigest] = true
		if !sent[r.EnvelopeDigest] && n.Send(r) == nil {
			sent[r.EnvelopeDigest] = true
		}
	}
	for d := range sent {
		if !pending[d] {
			delete(sent, d)
		}
	}
}
