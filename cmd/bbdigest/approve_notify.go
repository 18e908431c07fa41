package main

// bbdigest approve notify: the watcher that tells the principals of new
// approval requests. bbdigest gate is one short process per call
// (docker/mcp-gateway's interceptor) and must not wait for a webhook, so
// the notifications come from this long-running process instead: it polls
// the ledger's pending requests every --every, and notify.Watch hands each
// one it has not sent yet to a gate/notify Notifier, which POSTs it, signed with the
// gate's key, to every --notify URL in the background.
//
// The bolt ledger admits one process at a time, and the gates need it for
// every call: each poll opens it (waiting up to --wait, as a gate does),
// reads the requests and closes it at once, and a poll that finds it
// locked past --wait is skipped with a warning. What was sent is kept for
// the run only: after a restart the requests still pending are sent
// again, which receivers drop by the Bbdigest-Envelope-Digest header.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/bbdigest/bbdigest/gate/notify"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

// The defaults and bounds of approve notify.
const (
	// defaultNotifyEvery is how often the ledger is polled (--every).
	defaultNotifyEvery = 2 * time.Second
	// notifyDrain is how long the watcher, told to stop, goes on
	// delivering what is queued: less than the 10 s that docker stop and
	// systemd leave between SIGTERM and SIGKILL.
	notifyDrain = 5 * time.Second
)

// approveNotify runs "bbdigest approve notify --ledger PATH --key KEYFILE
// --notify URL [--notify URL]... [--approve-url URL] [--every D]
// [--wait D]".
func (c *cli) approveNotify(args []string) int {
	const cmd = "approve notify"
	fs, f := c.approveFlagSet(cmd)
	keyFile := fs.String("key", "", "")
	insecureKey := fs.Bool("insecure-key-permissions", false, "")
	var urls gnuflag.Strings
	fs.Var(&urls, "notify", "")
	approveURL := fs.String("approve-url", "", "")
	every := fs.Duration("every", defaultNotifyEvery, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	given := gnuflag.Given(fs)
	switch {
	case !given["key"]:
		return c.usageError(cmd, "missing --key KEYFILE, the gate's private key ('bbdigest gate --key KEYFILE'), which signs the notifications")
	case *keyFile == "":
		return c.usageError(cmd, "empty --key KEYFILE")
	case *keyFile == "-":
		return c.usageError(cmd, "--key -: the key is a file")
	case len(urls) == 0:
		return c.usageError(cmd, "missing --notify URL, a webhook to POST each new request to")
	case *every <= 0:
		return c.usageError(cmd, "--every "+every.String()+": the interval between polls must be positive")
	}
	for i, u := range urls {
		if !httpURL(u) {
			// Not u: a webhook's URL may be its secret.
			return c.usageError(cmd, fmt.Sprintf("--notify URL number %d: not an absolute http or https URL", i+1))
		}
	}
	stripped := false
	if *approveURL != "" {
		u, err := url.Parse(*approveURL)
		if err != nil || !httpURL(*approveURL) {
			return c.usageError(cmd, "--approve-url: not an absolute http or https URL")
		}
		stripped = u.User != nil || u.Query().Has("token")
	}
	key, ok := c.privateKey(*keyFile, *insecureKey, ": --key takes the private key file that signs, KEYFILE of 'bbdigest keygen --out KEYFILE'")
	if !ok {
		return exitUsage
	}

	// The events come from the notifier's goroutines: one writer at a
	// time.
	out := &syncWriters{}
	c.stdout, c.stderr = out.wrap(c.stdout), out.wrap(c.stderr)
	n, err := notify.New(notify.Config{URLs: urls, Key: key, ApproveURL: *approveURL, Report: c.notifyEvent})
	if err != nil {
		// notify's errors name a webhook by its number, never its URL.
		c.errorf("%s: %v", cmd, err)
		return exitUsage
	}
	if stripped {
		c.hintf("%s: the notifications carry --approve-url without its token or user info: a principal opens the approval page with the token they hold", cmd)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	watched := false // the first poll read the ledger
	// The first poll is the flags' checks and the first open: a ledger
	// that is missing, corrupt or locked past --wait stops the watcher at
	// once. Each later poll opens it, reads it and closes it.
	l, code := c.openApprovals(cmd, fs, f)
	if code < 0 {
		err := notify.Watch(ctx, n, func() ([]ledger.Request, error) {
			if l == nil {
				return pendingPoll(f.ledger, f.wait)
			}
			rs, err := l.Requests()
			if cerr := l.Close(); err == nil {
				err = cerr
			}
			l, watched = nil, err == nil
			return rs, err
		}, notify.WatchOptions{Every: *every, Skip: func(err error) bool {
			if !errors.Is(err, ledger.ErrLocked) {
				return false
			}
			c.warnf("%s: %s; polling again in %v", cmd, ledgerMessage(err), *every)
			return true
		}})
		code = exitOK
		if err != nil {
			code = c.ledgerFailure(cmd, err)
		}
	}

	// Stopped (or failed): deliver what is queued, for notifyDrain at
	// most.
	stop()
	dctx, cancel := context.WithTimeout(context.Background(), notifyDrain)
	defer cancel()
	if err := n.Close(dctx); err != nil {
		c.warnf("%s: stopped before every notification was delivered (%v of draining)", cmd, notifyDrain)
	}
	if !watched {
		return code
	}
	s := n.Stats()
	io.WriteString(c.stderr, "bbdigest: summary: "+safeText(fmt.Sprintf("%s: %s sent, %s, %d failed, %d dropped",
		cmd, plural(s.Accepted, "request", "requests"), plural(s.Delivered, "delivery", "deliveries"), s.Failed, s.Dropped))+"\n")
	return code
}

// pendingPoll opens the ledger at path, waiting up to wait for the
// process that holds it, reads its requests, and closes it.
func pendingPoll(path string, wait time.Duration) ([]ledger.Request, error) {
	l, err := bolt.Open(path, ledgerOptions(wait, true))
	if err != nil {
		return nil, err
	}
	rs, err := l.Requests()
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return rs, err
}

// notifyEvent reports one event of the notifier: a delivery on stdout, a
// retry as a warning, a failure or a drop as an error.
func (c *cli) notifyEvent(e notify.Event) {
	what := "request " + e.EnvelopeDigest.String() + " (tool " + quote(e.Tool) + ")"
	where := fmt.Sprintf("webhook %d (%s)", e.Endpoint+1, e.Host)
	switch e.Kind {
	case notify.EventDelivered:
		io.WriteString(c.stdout, "notified "+safeText(what+" to "+where)+"\n")
	case notify.EventRetrying:
		c.warnf("approve notify: %s, %s: %v; retrying in %v", where, what, e.Err, e.Wait.Round(time.Millisecond))
	default:
		c.errorf("approve notify: %s, %s: %v", where, what, e.Err)
	}
}

// httpURL reports whether s is an absolute http or https URL with a host.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// syncWriters hands out writers that write one at a time.
type syncWriters struct{ mu sync.Mutex }

func (s *syncWriters) wrap(w io.Writer) io.Writer { return &syncWriter{s: s, w: w} }

type syncWriter struct {
	s *syncWriters
	w io.Writer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.w.Write(p)
}
