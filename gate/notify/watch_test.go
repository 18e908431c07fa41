package notify_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/gate/notify"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// delivered returns the envelope digests rc got, in order.
func delivered(rc *receiver) []hashing.Digest {
	var got []hashing.Digest
	for _, a := range rc.attempts() {
		if a.payload != nil {
			got = append(got, a.payload.EnvelopeDigest)
		}
	}
	return got
}

// TestWatch: each pending request is sent once however many polls list
// it; a request not pending is not sent; a failed poll that Skip skips
// does not end the watch; a request no longer listed pending is forgotten
// (sent again if it comes back); Watch returns nil once ctx is done, after
// the poll under way.
func TestWatch(t *testing.T) {
	pub, priv := newKey(t)
	rc := newReceiver(t, pub)
	n, err := notify.New(fast(priv, newEvents(), rc.URL))
	if err != nil {
		t.Fatal(err)
	}
	r1, r2, r3 := newRequest(t, 1), newRequest(t, 2), newRequest(t, 3)
	r2.State = ledger.RequestGranted
	errBusy := errors.New("busy")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	script := []func() ([]ledger.Request, error){
		func() ([]ledger.Request, error) { return []ledger.Request{r1, r2}, nil },
		func() ([]ledger.Request, error) { return []ledger.Request{r1, r3}, nil },
		func() ([]ledger.Request, error) { return nil, errBusy },
		func() ([]ledger.Request, error) { return []ledger.Request{r3}, nil },
		func() ([]ledger.Request, error) { cancel(); return []ledger.Request{r1, r3}, nil },
	}
	polls := 0
	var skipped []error
	err = notify.Watch(ctx, n, func() ([]ledger.Request, error) {
		if polls == len(script) {
			t.Fatal("Watch polled after its context was done")
		}
		polls++
		return script[polls-1]()
	}, notify.WatchOptions{Every: time.Millisecond, Skip: func(err error) bool {
		skipped = append(skipped, err)
		return true
	}})
	if err != nil || polls != len(script) {
		t.Fatalf("Watch = %v after %d polls, want nil after %d", err, polls, len(script))
	}
	if len(skipped) != 1 || skipped[0] != errBusy {
		t.Errorf("Skip was asked about %v, want the one failed poll", skipped)
	}
	closeNow(t, n)
	want := []hashing.Digest{r1.EnvelopeDigest, r3.EnvelopeDigest, r1.EnvelopeDigest}
	if got := delivered(rc); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v (r1, r3, then r1 again once it was forgotten)", got, want)
	}
}

// TestWatchQueueFull: a request dropped for a webhook whose queue was full
// is not counted as sent, and goes again at the next poll.
func TestWatchQueueFull(t *testing.T) {
	pub, priv := newKey(t)
	rc := newReceiver(t, pub)
	rc.hold = make(chan struct{})
	ev := newEvents()
	cfg := fast(priv, ev, rc.URL)
	cfg.QueueSize = 1
	n, err := notify.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r1, r2, r3 := newRequest(t, 1), newRequest(t, 2), newRequest(t, 3)
	all := []ledger.Request{r1, r2, r3}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := 0
	err = notify.Watch(ctx, n, func() ([]ledger.Request, error) {
		polls++
		switch polls {
		case 1:
			return all[:1], nil
		case 2:
			<-rc.arrived // the worker holds r1: the queue has room for r2 only
			return all, nil
		case 3:
			if got := ev.wait(t, notify.EventDropped); got.EnvelopeDigest != r3.EnvelopeDigest {
				t.Fatalf("dropped %s, want r3", got.EnvelopeDigest)
			}
			close(rc.hold)
			ev.wait(t, notify.EventDelivered)
			ev.wait(t, notify.EventDelivered) // r1 and r2: the queue is empty
			return all, nil
		}
		cancel()
		return all, nil
	}, notify.WatchOptions{Every: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	closeNow(t, n)
	want := []hashing.Digest{r1.EnvelopeDigest, r2.EnvelopeDigest, r3.EnvelopeDigest}
	if got := delivered(rc); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if s := n.Stats(); s.Accepted != 3 || s.Dropped != 1 || s.Delivered != 3 {
		t.Fatalf("stats %+v, want 3 accepted, 1 dropped, 3 delivered", s)
	}
}

// TestWatchEnds: the first poll's failure ends the watch whatever Skip
// says (Skip is not asked); a later failure ends it when Skip says so, or
// when there is no Skip; a context done before the first poll still gets
// that poll; a watch without a positive interval, a Notifier or a poll
// does not start.
func TestWatchEnds(t *testing.T) {
	_, priv := newKey(t)
	n, err := notify.New(fast(priv, newEvents(), "http://127.0.0.1:1/"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeNow(t, n)
	errPoll := errors.New("poll failed")
	failAt := func(at int, polls *int) func() ([]ledger.Request, error) {
		return func() ([]ledger.Request, error) {
			*polls++
			if *polls == at {
				return nil, errPoll
			}
			return nil, nil
		}
	}
	bg := context.Background()
	for _, tc := range []struct {
		name   string
		at     int
		skip   func(error) bool
		asked  bool
		polls  int
		wanted error
	}{
		{"first", 1, func(error) bool { return true }, false, 1, errPoll},
		{"later, not skipped", 3, func(error) bool { return false }, true, 3, errPoll},
		{"later, no Skip", 2, nil, false, 2, errPoll},
	} {
		polls, asked := 0, false
		skip := tc.skip
		if skip != nil {
			skip = func(err error) bool { asked = true; return tc.skip(err) }
		}
		err := notify.Watch(bg, n, failAt(tc.at, &polls), notify.WatchOptions{Every: time.Millisecond, Skip: skip})
		if err != tc.wanted || polls != tc.polls || asked != tc.asked {
			t.Errorf("%s: Watch = %v after %d polls, Skip asked %v; want %v after %d, asked %v", tc.name, err, polls, asked, tc.wanted, tc.polls, tc.asked)
		}
	}

	done, cancel := context.WithCancel(bg)
	cancel()
	polls := 0
	if err := notify.Watch(done, n, failAt(0, &polls), notify.WatchOptions{Every: time.Hour}); err != nil || polls != 1 {
		t.Errorf("Watch with a done context = %v after %d polls, want nil after 1", err, polls)
	}

	poll := func() ([]ledger.Request, error) { t.Fatal("polled"); return nil, nil }
	for _, w := range []struct {
		n    *notify.Notifier
		poll func() ([]ledger.Request, error)
		opts notify.WatchOptions
	}{{n, poll, notify.WatchOptions{}}, {n, poll, notify.WatchOptions{Every: -time.Second}}, {nil, poll, notify.WatchOptions{Every: time.Second}}, {n, nil, notify.WatchOptions{Every: time.Second}}} {
		if err := notify.Watch(bg, w.n, w.poll, w.opts); err == nil {
			t.Errorf("Watch(%v, poll %v, %+v) started", w.n, w.poll != nil, w.opts)
		}
	}
}
