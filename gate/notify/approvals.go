package notify

import (
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// Wrap returns the gate.Approvals a Go host gives its gate to have n
// announce every new approval request: it asks through store, unchanged,
// and when store's Ask reports the request created (stored, committed:
// ledger.Memory and ledger/bolt return only then), it Sends it to n before
// returning store's answer. The gate's decision path is store's: Send
// never blocks, and whether it queued the request (ErrQueueFull,
// ErrClosed) changes nothing the gate sees; n counts and reports it. An
// act asked again while its request is open is not sent again.
func Wrap(store gate.Approvals, n *Notifier) gate.Approvals {
	return &notifying{store: store, n: n}
}

type notifying struct {
	store gate.Approvals
	n     *Notifier
}

// Ask implements gate.Approvals.
func (a *notifying) Ask(r *ledger.Request) (ledger.Request, bool, error) {
	open, created, err := a.store.Ask(r)
	if err == nil && created {
		a.n.Send(&open) // counted and reported by n; never the gate's concern
	}
	return open, created, err
}

// Finish implements gate.Approvals.
func (a *notifying) Finish(d hashing.Digest, why string) (bool, error) {
	return a.store.Finish(d, why)
}
