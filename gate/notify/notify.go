package notify

// This file is the Notifier: its configuration, the queue of each webhook
// and its worker, one delivery with its retries, and Close.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// The defaults of Config.
const (
	DefaultQueueSize      = 64
	DefaultAttempts       = 6
	DefaultAttemptTimeout = 10 * time.Second
	DefaultMaxElapsed     = 2 * time.Minute
	DefaultMinBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
)

// maxResponse is how much of a webhook's answer is read (and dropped), so
// that its connection can serve the next delivery.
const maxResponse = 64 << 10

// Errors of Send, for errors.Is.
var (
	// ErrClosed: Close was called; nothing more is sent.
	ErrClosed = errors.New("notifier closed")
	// ErrQueueFull: a webhook's queue was full, and the request was
	// dropped for it.
	ErrQueueFull = errors.New("notification queue full")
)

// Config configures a Notifier. URLs and Key are needed; a zero duration
// or count takes its default, and a negative one is an error.
type Config struct {
	// URLs are the webhooks, absolute http or https URLs; each new
	// request is POSTed to every one. They may hold a secret (a chat
	// service's incoming webhook does, in its path): events and errors
	// name a webhook by its index and host only.
	URLs []string
	// Key is the gate's Ed25519 private key, which signs every delivery
	// (the key of its receipts: receivers verify with its public half).
	Key ed25519.PrivateKey
	// ApproveURL, when set, is sent as approve_url: where a principal
	// decides (the page of bbdigest approve serve). New removes its
	// userinfo and its "token" query parameter: the page's secret is never
	// sent.
	ApproveURL string
	// QueueSize is how many deliveries each webhook's queue holds
	// (DefaultQueueSize).
	QueueSize int
	// Attempts bounds the attempts of one delivery (DefaultAttempts).
	Attempts int
	// AttemptTimeout bounds one attempt, from connecting to reading the
	// answer (DefaultAttemptTimeout).
	AttemptTimeout time.Duration
	// MaxElapsed bounds one delivery, all its attempts and waits
	// (DefaultMaxElapsed).
	MaxElapsed time.Duration
	// MinBackoff is the wait before the second attempt, doubled before
	// each next one up to MaxBackoff; each wait is drawn from the upper
	// half of that (DefaultMinBackoff, DefaultMaxBackoff).
	MinBackoff, MaxBackoff time.Duration
	// Client makes the requests; nil means a client over
	// http.DefaultTransport. It never follows a redirect, whatever its
	// CheckRedirect: a redirect ends the delivery, failed.
	Client *http.Client
	// Report, when set, is called with every Event, from the goroutine
	// of Send (EventDropped) or of a webhook's worker; it must not block
	// for long. Nil logs them with slog.Default(): failures and drops as
	// errors, retries as warnings, deliveries as information.
	Report func(Event)
}

// EventKind says what happened to a delivery.
type EventKind uint8

// The kinds of Event.
const (
	EventDelivered EventKind = iota + 1 // the webhook answered 2xx
	EventRetrying                       // an attempt failed; another follows after Event.Wait
	EventFailed                         // given up: a refusal, the attempts or time spent, or Close's deadline
	EventDropped                        // never queued: the webhook's queue was full
)

var eventNames = [...]string{EventDelivered: "delivered", EventRetrying: "retrying", EventFailed: "failed", EventDropped: "dropped"}

// String returns "delivered", "retrying", "failed" or "dropped".
func (k EventKind) String() string {
	if k == 0 || int(k) >= len(eventNames) {
		return "EventKind(" + strconv.Itoa(int(k)) + ")"
	}
	return eventNames[k]
}

// Event is what became of one delivery of one request to one webhook.
type Event struct {
	Kind EventKind
	// EnvelopeDigest and Tool name the request.
	EnvelopeDigest hashing.Digest
	Tool           string
	// Endpoint is the webhook's index in Config.URLs, Host its host (with
	// the port): never its path or query, which may hold a secret.
	Endpoint int
	Host     string
	// Attempt is how many attempts were made (0 for EventDropped).
	Attempt int
	// Status is the HTTP status of the last answer, 0 when there was
	// none.
	Status int
	// Wait is the wait before the next attempt (EventRetrying).
	Wait time.Duration
	// Err says why, for every kind but EventDelivered: the cause alone
	// ("attempt 2: HTTP 503 Service Unavailable; gave up after 2
	// attempts"), the fields above name the request and the webhook.
	Err error
}

// Stats counts what a Notifier did. Deliveries are counted per request
// and webhook.
type Stats struct {
	// Accepted is how many requests Send queued for at least one
	// webhook.
	Accepted uint64
	// Delivered, Failed and Dropped count deliveries: answered 2xx,
	// given up, and never queued (the queue was full).
	Delivered, Failed, Dropped uint64
	// Attempts counts the POSTs made.
	Attempts uint64
}

// Notifier sends each request given to Send to every webhook, signed, in
// the background. It is safe for concurrent use. Close it when done.
type Notifier struct {
	cfg        Config
	key        ed25519.PrivateKey
	keyID      string
	approveURL string
	client     *http.Client
	report     func(Event)
	eps        []*endpoint

	// ctx ends the deliveries: Close cancels it at its deadline.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex // guards closed, and the queues' closing
	closed bool

	accepted, delivered, failed, dropped, attempts atomic.Uint64
}

// endpoint is one webhook: its URL, its queue and its worker's state.
type endpoint struct {
	idx   int
	url   string
	host  string
	queue chan *job
}

// job is one request to deliver, shared by the webhooks' queues; its body
// is made once, by the first worker that needs it.
type job struct {
	req  ledger.Request
	once sync.Once
	body []byte
	err  error
}

// New returns a Notifier for c, its workers started.
func New(c Config) (*Notifier, error) {
	if len(c.URLs) == 0 {
		return nil, errors.New("notify: no webhook URL")
	}
	if len(c.Key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("notify: a private key of %d bytes, not an Ed25519 key of %d", len(c.Key), ed25519.PrivateKeySize)
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{{"AttemptTimeout", &c.AttemptTimeout, DefaultAttemptTimeout}, {"MaxElapsed", &c.MaxElapsed, DefaultMaxElapsed},
		{"MinBackoff", &c.MinBackoff, DefaultMinBackoff}, {"MaxBackoff", &c.MaxBackoff, DefaultMaxBackoff}} {
		switch {
		case *d.v < 0:
			return nil, fmt.Errorf("notify: negative %s %v", d.name, *d.v)
		case *d.v == 0:
			*d.v = d.def
		}
	}
	if c.MaxBackoff < c.MinBackoff {
		return nil, fmt.Errorf("notify: MaxBackoff %v below MinBackoff %v", c.MaxBackoff, c.MinBackoff)
	}
	for _, n := range []struct {
		name string
		v    *int
		def  int
	}{{"QueueSize", &c.QueueSize, DefaultQueueSize}, {"Attempts", &c.Attempts, DefaultAttempts}} {
		switch {
		case *n.v < 0:
			return nil, fmt.Errorf("notify: negative %s %d", n.name, *n.v)
		case *n.v == 0:
			*n.v = n.def
		}
	}
	n := &Notifier{cfg: c, report: c.Report}
	n.key = ed25519.NewKeyFromSeed(c.Key.Seed())
	n.keyID = receipt.KeyID(n.key.Public().(ed25519.PublicKey))
	if c.ApproveURL != "" {
		u, err := approveURL(c.ApproveURL)
		if err != nil {
			return nil, err
		}
		n.approveURL = u
	}
	client := http.Client{}
	if c.Client != nil {
		client = *c.Client
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	n.client = &client
	if n.report == nil {
		n.report = logEvent
	}
	for i, s := range c.URLs {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			// Never the URL itself: it may be the secret.
			return nil, fmt.Errorf("notify: webhook %d: not an absolute http or https URL", i+1)
		}
		n.eps = append(n.eps, &endpoint{idx: i, url: s, host: u.Host, queue: make(chan *job, c.QueueSize)})
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	for _, ep := range n.eps {
		n.wg.Add(1)
		go n.work(ep)
	}
	return n, nil
}

// KeyID returns the key id of the key that signs the deliveries
// (receipt.KeyID of its public half).
func (n *Notifier) KeyID() string { return n.keyID }

// ApproveURL returns the approve_url the payloads carry: Config.ApproveURL
// without its userinfo and token, or "".
func (n *Notifier) ApproveURL() string { return n.approveURL }

// Stats returns the counts so far.
func (n *Notifier) Stats() Stats {
	return Stats{
		Accepted: n.accepted.Load(), Delivered: n.delivered.Load(), Failed: n.failed.Load(),
		Dropped: n.dropped.Load(), Attempts: n.attempts.Load(),
	}
}

// Send queues the request r for every webhook and returns at once: it
// never waits for a webhook or a queue. r is copied; the caller may reuse
// it. For each webhook whose queue is full the request is dropped, counted
// and reported (EventDropped), and Send returns an error wrapping
// ErrQueueFull, having queued it for the others. After Close it queues
// nothing and returns ErrClosed.
func (n *Notifier) Send(r *ledger.Request) error {
	if r == nil {
		return errors.New("notify: send: no request")
	}
	j := &job{req: r.Clone()}
	var full []*endpoint
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return fmt.Errorf("notify: send %s: %w", r.EnvelopeDigest, ErrClosed)
	}
	for _, ep := range n.eps {
		select {
		case ep.queue <- j:
		default:
			full = append(full, ep)
		}
	}
	n.mu.Unlock()
	if len(full) < len(n.eps) {
		n.accepted.Add(1)
	}
	if len(full) == 0 {
		return nil
	}
	var err error
	for _, ep := range full {
		n.dropped.Add(1)
		cause := fmt.Errorf("%w (%d), dropped", ErrQueueFull, n.cfg.QueueSize)
		n.report(Event{Kind: EventDropped, EnvelopeDigest: r.EnvelopeDigest, Tool: r.Tool, Endpoint: ep.idx, Host: ep.host, Err: cause})
		err = errors.Join(err, fmt.Errorf("notify: webhook %d (%s): request %s: %w", ep.idx+1, ep.host, r.EnvelopeDigest, cause))
	}
	return err
}

// Close stops taking requests and delivers those queued, retries and all,
// until ctx is done; then it cancels the attempts under way and fails the
// rest (EventFailed, counted), and returns an error wrapping ctx's. It
// returns once every worker has stopped. Calling it again returns nil.
func (n *Notifier) Close(ctx context.Context) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	for _, ep := range n.eps {
		close(ep.queue)
	}
	n.mu.Unlock()
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
		n.cancel()
		return nil
	case <-ctx.Done():
	}
	n.cancel()
	<-done
	return fmt.Errorf("notify: close: undelivered notifications abandoned: %w", context.Cause(ctx))
}

// work delivers the requests of ep's queue, one at a time, until it is
// closed.
func (n *Notifier) work(ep *endpoint) {
	defer n.wg.Done()
	for j := range ep.queue {
		n.deliver(ep, j)
	}
}

// build makes the body of j, once.
func (j *job) build(approveURL string) ([]byte, error) {
	j.once.Do(func() {
		p, err := NewPayload(&j.req, approveURL)
		if err != nil {
			j.err = err
			return
		}
		j.body, j.err = json.Marshal(p)
	})
	return j.body, j.err
}

// deliver delivers j to ep, retrying as the package doc says, and counts
// and reports the outcome.
func (n *Notifier) deliver(ep *endpoint, j *job) {
	ev := Event{EnvelopeDigest: j.req.EnvelopeDigest, Tool: j.req.Tool, Endpoint: ep.idx, Host: ep.host}
	fail := func(err error) {
		n.failed.Add(1)
		ev.Kind, ev.Err = EventFailed, err
		n.report(ev)
	}
	body, err := j.build(n.approveURL)
	if err != nil {
		fail(err)
		return
	}
	deadline := time.Now().Add(n.cfg.MaxElapsed)
	for {
		if n.ctx.Err() != nil {
			fail(errors.New("closed before it was delivered"))
			return
		}
		ev.Attempt++
		status, retryAfter, err := n.post(ep, body, j.req.EnvelopeDigest, deadline)
		ev.Status = status
		if err == nil {
			n.delivered.Add(1)
			ev.Kind, ev.Err = EventDelivered, nil
			n.report(ev)
			return
		}
		retry := status == 0 || status >= 500 || status == http.StatusTooManyRequests
		switch {
		case n.ctx.Err() != nil:
			fail(fmt.Errorf("attempt %d: %w; closed before it was delivered", ev.Attempt, err))
			return
		case !retry:
			fail(fmt.Errorf("attempt %d: %w, not retried", ev.Attempt, err))
			return
		case ev.Attempt >= n.cfg.Attempts:
			fail(fmt.Errorf("attempt %d: %w; gave up after %d attempts", ev.Attempt, err, ev.Attempt))
			return
		}
		wait := max(n.backoff(ev.Attempt), retryAfter)
		if time.Now().Add(wait).After(deadline) {
			fail(fmt.Errorf("attempt %d: %w; gave up: the next attempt, in %v, would end past the %v a delivery may take", ev.Attempt, err, wait, n.cfg.MaxElapsed))
			return
		}
		ev.Kind, ev.Wait, ev.Err = EventRetrying, wait, fmt.Errorf("attempt %d: %w", ev.Attempt, err)
		n.report(ev)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-n.ctx.Done():
			t.Stop()
		}
		ev.Wait = 0
	}
}

// backoff returns the wait after the failed attempt number attempt (from
// 1): MinBackoff doubled attempt-1 times, at most MaxBackoff, then drawn
// uniformly from its upper half.
func (n *Notifier) backoff(attempt int) time.Duration {
	d := n.cfg.MinBackoff
	for i := 1; i < attempt && d < n.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, n.cfg.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// statusError is a webhook's answer other than 2xx.
type statusError struct {
	status int
	text   string
}

func (e *statusError) Error() string {
	return "HTTP " + strconv.Itoa(e.status) + " " + e.text
}

// post makes one attempt to deliver body to ep, signed now, within the
// attempt's timeout and the delivery's deadline. It returns the answer's
// status (0 when there was none), the wait its Retry-After asks for, and
// an error unless the status is 2xx.
func (n *Notifier) post(ep *endpoint, body []byte, d hashing.Digest, deadline time.Time) (int, time.Duration, error) {
	n.attempts.Add(1)
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.AttemptTimeout)
	defer cancel()
	ctx, cancel2 := context.WithDeadline(ctx, deadline)
	defer cancel2()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, errors.New("the request could not be made")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", Version)
	req.Header.Set(HeaderEnvelopeDigest, d.String())
	sign(req.Header, n.key, n.keyID, body, time.Now())
	resp, err := n.client.Do(req)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // without the URL, which may be the secret
		}
		return 0, 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, 0, nil
	}
	var retryAfter time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		retryAfter = time.Duration(min(s, int(n.cfg.MaxElapsed/time.Second)+1)) * time.Second
	} else if t, err := http.ParseTime(resp.Header.Get("Retry-After")); err == nil {
		retryAfter = max(time.Until(t), 0)
	}
	return resp.StatusCode, retryAfter, &statusError{status: resp.StatusCode, text: http.StatusText(resp.StatusCode)}
}

// logEvent logs e with slog.Default(), for a Config without Report.
func logEvent(e Event) {
	attrs := []any{"envelope_digest", e.EnvelopeDigest.String(), "tool", e.Tool, "webhook", e.Endpoint + 1, "host", e.Host, "attempt", e.Attempt}
	switch e.Kind {
	case EventDelivered:
		slog.Info("notify: delivered", attrs...)
	case EventRetrying:
		slog.Warn("notify: retrying", append(attrs, "wait", e.Wait, "err", e.Err)...)
	default:
		slog.Error("notify: "+e.Kind.String(), append(attrs, "err", e.Err)...)
	}
}
