package notify_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/gate/notify"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// newKey returns a fresh Ed25519 key pair.
func newKey(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// newRequest returns a pending request for paying to amount cents, as a
// ledger.Memory stores it.
func newRequest(t *testing.T, amount int) ledger.Request {
	t.Helper()
	a, err := act.New("shop", "pay", fmt.Appendf(nil, `{"amount_cents":%d,"to":"hotel"}`, amount))
	if err != nil {
		t.Fatal(err)
	}
	r, err := gate.NewRequest(a, gate.Financial, "v1", time.Now(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	open, created, err := ledger.NewMemory().Ask(r)
	if err != nil || !created {
		t.Fatalf("Ask: %v, created %v", err, created)
	}
	return open
}

// attempt is one POST a receiver got.
type attempt struct {
	at      time.Time
	payload *notify.Payload
	header  http.Header
	err     error // Verify's
}

// receiver is an httptest server that verifies every POST against pub and
// answers each with the next of its statuses (200 once they run out).
type receiver struct {
	*httptest.Server
	t        *testing.T
	pub      ed25519.PublicKey
	mu       sync.Mutex
	statuses []int
	header   http.Header // set on every answer
	got      []attempt
	arrived  chan struct{} // one value per POST, if not nil
	hold     chan struct{} // if not nil, each POST waits for it to close (or for its request to end)
}

func newReceiver(t *testing.T, pub ed25519.PublicKey, statuses ...int) *receiver {
	rc := &receiver{t: t, pub: pub, statuses: statuses, header: http.Header{}, arrived: make(chan struct{}, 100)}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rc.t.Errorf("receiver: %v", err)
	}
	p, verr := notify.Verify(rc.pub, r.Header, body, time.Now())
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		verr = fmt.Errorf("%s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
	}
	rc.mu.Lock()
	rc.got = append(rc.got, attempt{at: time.Now(), payload: p, header: r.Header.Clone(), err: verr})
	status := http.StatusOK
	if len(rc.statuses) > 0 {
		status, rc.statuses = rc.statuses[0], rc.statuses[1:]
	}
	for k, v := range rc.header {
		w.Header()[k] = v
	}
	hold := rc.hold
	rc.mu.Unlock()
	select {
	case rc.arrived <- struct{}{}:
	default:
	}
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	w.WriteHeader(status)
}

// attempts returns what the receiver got so far, and fails the test on a
// delivery that did not verify.
func (rc *receiver) attempts() []attempt {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for i, a := range rc.got {
		if a.err != nil {
			rc.t.Errorf("attempt %d does not verify: %v", i+1, a.err)
		}
	}
	return append([]attempt(nil), rc.got...)
}

// events collects a Notifier's events, and lets a test wait for them.
type events struct {
	mu  sync.Mutex
	all []notify.Event
	ch  chan notify.Event
}

func newEvents() *events { return &events{ch: make(chan notify.Event, 1000)} }

func (e *events) report(ev notify.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	e.ch <- ev
}

// wait returns the next event of kind k (skipping others), failing the
// test after 10 s.
func (e *events) wait(t *testing.T, k notify.EventKind) notify.Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-e.ch:
			if ev.Kind == k {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %v event in 10 s", k)
		}
	}
}

func (e *events) count(k notify.EventKind) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.all {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

// fast is a Config for tests: short waits.
func fast(priv ed25519.PrivateKey, ev *events, urls ...string) notify.Config {
	return notify.Config{URLs: urls, Key: priv, Report: ev.report, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		AttemptTimeout: 5 * time.Second, MaxElapsed: 20 * time.Second}
}

func closeNow(t *testing.T, n *notify.Notifier) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// The payload and headers each webhook gets, verified with the gate's
// public key; the approve URL without its token.
func TestDelivered(t *testing.T) {
	pub, priv := newKey(t)
	a, b := newReceiver(t, pub), newReceiver(t, pub)
	ev := newEvents()
	cfg := fast(priv, ev, a.URL, b.URL+"/hook/SECRET")
	cfg.ApproveURL = "http://user:pw@127.0.0.1:8080/?token=0123456789abcdef0123456789abcdef&x=1"
	n, err := notify.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := newRequest(t, 25000)
	if err := n.Send(&r); err != nil {
		t.Fatal(err)
	}
	closeNow(t, n)
	if s := n.Stats(); s != (notify.Stats{Accepted: 1, Delivered: 2, Attempts: 2}) {
		t.Fatalf("stats %+v", s)
	}
	env, err := gate.RequestEnvelope(&r)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range []*receiver{a, b} {
		got := rc.attempts()
		if len(got) != 1 {
			t.Fatalf("%d deliveries, want 1", len(got))
		}
		p, h := got[0].payload, got[0].header
		want := notify.Payload{Version: "bbdigest-notify/v1", Event: "approval_pending", EnvelopeDigest: r.EnvelopeDigest,
			Tool: "pay", Server: "shop", Class: "FINANCIAL", ActDigest: r.ActDigest, Emitted: r.EmittedAt.UTC().Format(time.RFC3339Nano),
			Text: envelope.RenderText(env), ApproveURL: "http://127.0.0.1:8080/?x=1", Envelope: r.Envelope}
		gotJSON, _ := json.Marshal(p)
		wantJSON, _ := json.Marshal(&want)
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("payload\n%s\nwant\n%s", gotJSON, wantJSON)
		}
		if h.Get(notify.HeaderEnvelopeDigest) != r.EnvelopeDigest.String() || h.Get(notify.HeaderKeyID) != receipt.KeyID(pub) || h.Get(notify.HeaderKeyID) != n.KeyID() {
			t.Fatalf("headers %v", h)
		}
		if strings.Contains(string(gotJSON), "0123456789abcdef") || strings.Contains(string(gotJSON), "pw") {
			t.Fatalf("the payload carries the approval page's secret: %s", gotJSON)
		}
	}
	if ev.count(notify.EventDelivered) != 2 {
		t.Fatalf("events %+v", ev.all)
	}
	for _, e := range ev.all {
		if e.Host == "" || strings.Contains(e.Host, "SECRET") {
			t.Fatalf("event host %q", e.Host)
		}
	}
}

// A 500 is retried, with backoff, until the webhook answers 200.
func TestRetry500(t *testing.T) {
	pub, priv := newKey(t)
	rc := newReceiver(t, pub, 500, 503, 200)
	ev := newEvents()
	n, err := notify.New(fast(priv, ev, rc.URL))
	if err != nil {
		t.Fatal(err)
	}
	r := newRequest(t, 1)
	n.Send(&r)
	ev.wait(t, notify.EventDelivered)
	closeNow(t, n)
	got := rc.attempts()
	if len(got) != 3 {
		t.Fatalf("%d attempts, want 3", len(got))
	}
	for _, a := range got {
		if a.header.Get(notify.HeaderEnvelopeDigest) != r.EnvelopeDigest.String() {
			t.Fatalf("attempt without the envelope digest header: %v", a.header)
		}
	}
	if s := n.Stats(); s.Delivered != 1 || s.Failed != 0 || s.Attempts != 3 {
		t.Fatalf("stats %+v", s)
	}
	if c := ev.count(notify.EventRetrying); c != 2 {
		t.Fatalf("%d retrying events, want 2", c)
	}
}

// A 429 is retried after an exponential backoff, and after at least what
// Retry-After asks.
func TestRetry429Backoff(t *testing.T) {
	pub, priv := newKey(t)
	t.Run("backoff", func(t *testing.T) {
		rc := newReceiver(t, pub, 429, 429, 429, 200)
		ev := newEvents()
		cfg := fast(priv, ev, rc.URL)
		cfg.MinBackoff, cfg.MaxBackoff = 40*time.Millisecond, time.Second
		n, err := notify.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := newRequest(t, 2)
		n.Send(&r)
		ev.wait(t, notify.EventDelivered)
		closeNow(t, n)
		got := rc.attempts()
		if len(got) != 4 {
			t.Fatalf("%d attempts, want 4", len(got))
		}
		// Waits drawn from the upper half of 40, 80, 160 ms.
		for i, least := range []time.Duration{20, 40, 80} {
			if gap := got[i+1].at.Sub(got[i].at); gap < least*time.Millisecond {
				t.Errorf("wait %d: %v, want at least %v ms", i+1, gap, least)
			}
		}
		var waits []time.Duration
		for _, e := range ev.all {
			if e.Kind == notify.EventRetrying {
				waits = append(waits, e.Wait)
				if e.Status != 429 || !strings.Contains(e.Err.Error(), "HTTP 429 Too Many Requests") {
					t.Errorf("retrying event %+v", e)
				}
			}
		}
		if len(waits) != 3 || waits[0] > 40*time.Millisecond || waits[2] < 80*time.Millisecond || waits[2] > 160*time.Millisecond {
			t.Errorf("waits %v", waits)
		}
	})
	t.Run("Retry-After", func(t *testing.T) {
		rc := newReceiver(t, pub, 429, 200)
		rc.header.Set("Retry-After", "1")
		ev := newEvents()
		n, err := notify.New(fast(priv, ev, rc.URL))
		if err != nil {
			t.Fatal(err)
		}
		r := newRequest(t, 3)
		n.Send(&r)
		ev.wait(t, notify.EventDelivered)
		closeNow(t, n)
		got := rc.attempts()
		if len(got) != 2 {
			t.Fatalf("%d attempts, want 2", len(got))
		}
		if gap := got[1].at.Sub(got[0].at); gap < time.Second {
			t.Fatalf("retried after %v, Retry-After asked 1 s", gap)
		}
	})
	t.Run("Retry-After past MaxElapsed", func(t *testing.T) {
		rc := newReceiver(t, pub, 429, 200)
		rc.header.Set("Retry-After", "3600")
		ev := newEvents()
		n, err := notify.New(fast(priv, ev, rc.URL))
		if err != nil {
			t.Fatal(err)
		}
		r := newRequest(t, 4)
		n.Send(&r)
		e := ev.wait(t, notify.EventFailed)
		closeNow(t, n)
		if len(rc.attempts()) != 1 || !strings.Contains(e.Err.Error(), "gave up") {
			t.Fatalf("%d attempts, event %v", len(rc.attempts()), e.Err)
		}
	})
}

// A 4xx other than 429, and a redirect, end the delivery at once.
func TestNoRetry400(t *testing.T) {
	pub, priv := newKey(t)
	elsewhere := newReceiver(t, pub)
	for _, status := range []int{400, 401, 404, 302} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			rc := newReceiver(t, pub, status, 200)
			rc.header.Set("Location", elsewhere.URL)
			ev := newEvents()
			n, err := notify.New(fast(priv, ev, rc.URL))
			if err != nil {
				t.Fatal(err)
			}
			r := newRequest(t, 5)
			n.Send(&r)
			e := ev.wait(t, notify.EventFailed)
			closeNow(t, n)
			if len(rc.attempts()) != 1 {
				t.Fatalf("%d attempts, want 1", len(rc.attempts()))
			}
			if e.Status != status || e.Attempt != 1 || !strings.Contains(e.Err.Error(), "HTTP "+strconv.Itoa(status)) || !strings.Contains(e.Err.Error(), "not retried") {
				t.Fatalf("event %+v", e)
			}
			if s := n.Stats(); s.Failed != 1 || s.Delivered != 0 || s.Attempts != 1 {
				t.Fatalf("stats %+v", s)
			}
		})
	}
	if len(elsewhere.attempts()) != 0 {
		t.Fatal("a redirect was followed")
	}
}

// A webhook that never answers: each attempt ends at its timeout, the
// delivery gives up after its attempts, Send never waited, and another
// webhook is served meanwhile.
func TestHangingReceiver(t *testing.T) {
	pub, priv := newKey(t)
	hung, ok := newReceiver(t, pub), newReceiver(t, pub)
	hung.hold = make(chan struct{})
	t.Cleanup(func() { close(hung.hold) })
	ev := newEvents()
	cfg := fast(priv, ev, hung.URL, ok.URL)
	cfg.AttemptTimeout, cfg.Attempts = 200*time.Millisecond, 2
	n, err := notify.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := newRequest(t, 6)
	start := time.Now()
	for range 3 {
		if err := n.Send(&r); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("Send took %v", d)
	}
	for range 3 {
		if e := ev.wait(t, notify.EventDelivered); e.Endpoint != 1 {
			t.Fatalf("delivered to webhook %d", e.Endpoint+1)
		}
	}
	e := ev.wait(t, notify.EventFailed)
	// The other webhook got all three before the first gave up on its
	// first request.
	ev.mu.Lock()
	for _, x := range ev.all[:3] {
		if x.Kind != notify.EventDelivered {
			t.Errorf("events in order %+v: the working webhook waited for the hung one", ev.all)
		}
	}
	ev.mu.Unlock()
	if e.Endpoint != 0 || e.Attempt != 2 || !errors.Is(e.Err, context.DeadlineExceeded) {
		t.Fatalf("event %+v: %v", e, e.Err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = n.Close(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: %v", err)
	}
	if s := n.Stats(); s.Delivered != 3 || s.Failed != 3 || s.Attempts < 3+2 {
		t.Fatalf("stats %+v", s)
	}
}

// A full queue drops the request for that webhook, counted and reported,
// and Send says so without waiting.
func TestQueueFull(t *testing.T) {
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
	r1, r2, r3 := newRequest(t, 7), newRequest(t, 8), newRequest(t, 9)
	if err := n.Send(&r1); err != nil {
		t.Fatal(err)
	}
	<-rc.arrived // the worker holds r1: the queue is empty
	if err := n.Send(&r2); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = n.Send(&r3)
	if !errors.Is(err, notify.ErrQueueFull) || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("Send of a third: %v after %v", err, time.Since(start))
	}
	e := ev.wait(t, notify.EventDropped)
	if e.EnvelopeDigest != r3.EnvelopeDigest || !errors.Is(e.Err, notify.ErrQueueFull) {
		t.Fatalf("event %+v", e)
	}
	close(rc.hold)
	closeNow(t, n)
	if s := n.Stats(); s != (notify.Stats{Accepted: 2, Delivered: 2, Dropped: 1, Attempts: 2}) {
		t.Fatalf("stats %+v", s)
	}
	var got []hashing.Digest
	for _, a := range rc.attempts() {
		got = append(got, a.payload.EnvelopeDigest)
	}
	if len(got) != 2 || got[0] != r1.EnvelopeDigest || got[1] != r2.EnvelopeDigest {
		t.Fatalf("delivered %v", got)
	}
	if err := n.Send(&r3); !errors.Is(err, notify.ErrClosed) {
		t.Fatalf("Send after Close: %v", err)
	}
}

// Close delivers every queued request, retries included, before it
// returns.
func TestCloseDrains(t *testing.T) {
	pub, priv := newKey(t)
	rc := newReceiver(t, pub, 500, 500)
	ev := newEvents()
	n, err := notify.New(fast(priv, ev, rc.URL))
	if err != nil {
		t.Fatal(err)
	}
	var want []hashing.Digest
	for i := range 5 {
		r := newRequest(t, 100+i)
		want = append(want, r.EnvelopeDigest)
		if err := n.Send(&r); err != nil {
			t.Fatal(err)
		}
	}
	closeNow(t, n)
	if s := n.Stats(); s.Accepted != 5 || s.Delivered != 5 || s.Failed != 0 {
		t.Fatalf("stats %+v", s)
	}
	seen := map[hashing.Digest]bool{}
	for _, a := range rc.attempts() {
		seen[a.payload.EnvelopeDigest] = true
	}
	for _, d := range want {
		if !seen[d] {
			t.Fatalf("%s not delivered before Close returned", d)
		}
	}
	if err := n.Close(context.Background()); err != nil {
		t.Fatalf("Close again: %v", err)
	}
}

// Close's deadline: what is undelivered then is abandoned, counted as
// failed, and Close returns.
func TestCloseDeadline(t *testing.T) {
	pub, priv := newKey(t)
	rc := newReceiver(t, pub)
	rc.hold = make(chan struct{})
	t.Cleanup(func() { close(rc.hold) })
	ev := newEvents()
	cfg := fast(priv, ev, rc.URL)
	cfg.AttemptTimeout = time.Minute
	n, err := notify.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		r := newRequest(t, 200+i)
		n.Send(&r)
	}
	<-rc.arrived
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = n.Close(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("Close: %v after %v", err, time.Since(start))
	}
	if s := n.Stats(); s.Failed != 3 || s.Delivered != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// Verify refuses a delivery that was changed, signed by another key,
// signed too long ago, or whose headers disagree with its body.
func TestVerifyRefuses(t *testing.T) {
	pub, priv := newKey(t)
	other, _ := newKey(t)
	rc := newReceiver(t, pub)
	var raw []byte
	var hdr http.Header
	capture := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ = io.ReadAll(r.Body)
		hdr = r.Header.Clone()
	}))
	defer capture.Close()
	ev := newEvents()
	n, err := notify.New(fast(priv, ev, capture.URL, rc.URL))
	if err != nil {
		t.Fatal(err)
	}
	r := newRequest(t, 300)
	n.Send(&r)
	closeNow(t, n)
	now := time.Now()
	if _, err := notify.Verify(pub, hdr, raw, now); err != nil {
		t.Fatalf("the delivery as sent: %v", err)
	}
	ms, _ := strconv.ParseInt(hdr.Get(notify.HeaderTimestamp), 10, 64)
	set := func(k, v string) http.Header { h := hdr.Clone(); h.Set(k, v); return h }
	tampered := []byte(strings.Replace(string(raw), `"tool":"pay"`, `"tool":"pat"`, 1))
	for _, c := range []struct {
		name string
		pub  ed25519.PublicKey
		h    http.Header
		body []byte
		now  time.Time
		want string
	}{
		{"body changed", pub, hdr, tampered, now, "the signature does not verify"},
		{"another key", other, hdr, raw, now, "signed by key"},
		{"key id header", pub, set(notify.HeaderKeyID, receipt.KeyID(other)), raw, now, "signed by key"},
		{"replayed late", pub, hdr, raw, now.Add(6 * time.Minute), "more than 5m0s from"},
		{"from the future", pub, hdr, raw, now.Add(-6 * time.Minute), "more than 5m0s from"},
		{"timestamp changed", pub, set(notify.HeaderTimestamp, strconv.FormatInt(ms+1, 10)), raw, now, "the signature does not verify"},
		{"timestamp not a number", pub, set(notify.HeaderTimestamp, "+"+strconv.FormatInt(ms, 10)), raw, now, "not milliseconds"},
		{"signature not base64url", pub, set(notify.HeaderSignature, "!!"), raw, now, "not a base64url Ed25519 signature"},
		{"digest header", pub, set(notify.HeaderEnvelopeDigest, r.ActDigest.String()), raw, now, "is not the body's envelope_digest"},
		{"no headers", pub, http.Header{}, raw, now, "signed by key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := notify.Verify(c.pub, c.h, c.body, c.now)
			if !errors.Is(err, notify.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify: %v, want %q", err, c.want)
			}
		})
	}
	// A body signed by the key whose envelope is not its digest's: the
	// gate never sends one, and Verify refuses it.
	var p map[string]any
	json.Unmarshal(raw, &p)
	p["envelope"] = map[string]any{"x": 1}
	forged, _ := json.Marshal(p)
	if _, err := notify.Verify(pub, resign(t, priv, hdr, forged), forged, now); !errors.Is(err, notify.ErrInvalid) || !strings.Contains(err.Error(), "the body's envelope") {
		t.Fatalf("Verify of a body whose envelope is not its digest's: %v", err)
	}
}

// resign returns h with a signature of body by priv, made as a Notifier
// makes one: the format the package doc states.
func resign(t *testing.T, priv ed25519.PrivateKey, h http.Header, body []byte) http.Header {
	t.Helper()
	h = h.Clone()
	ms := strconv.FormatInt(time.Now().UnixMilli(), 10)
	keyID := receipt.KeyID(priv.Public().(ed25519.PublicKey))
	msg := "bbdigest-notify/v1\n" + ms + "\n" + keyID + "\n" + string(body)
	h.Set(notify.HeaderTimestamp, ms)
	h.Set(notify.HeaderKeyID, keyID)
	h.Set(notify.HeaderSignature, base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, []byte(msg))))
	return h
}

// The signed bytes are the ones the package doc states: a signature made
// independently from that description verifies.
func TestSignedBytesAsDocumented(t *testing.T) {
	pub, priv := newKey(t)
	r := newRequest(t, 400)
	p, err := notify.NewPayload(&r, "")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(p)
	h := resign(t, priv, http.Header{notify.HeaderEnvelopeDigest: {r.EnvelopeDigest.String()}}, body)
	if _, err := notify.Verify(pub, h, body, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// New refuses a Config it cannot work with, and never quotes a webhook's
// URL, which may be its secret.
func TestNewRefuses(t *testing.T) {
	_, priv := newKey(t)
	for _, c := range []struct {
		name string
		cfg  notify.Config
		want string
	}{
		{"no URL", notify.Config{Key: priv}, "no webhook URL"},
		{"no key", notify.Config{URLs: []string{"http://x/"}}, "not an Ed25519 key"},
		{"relative URL", notify.Config{URLs: []string{"/hook/SECRET"}, Key: priv}, "webhook 1: not an absolute http or https URL"},
		{"ftp URL", notify.Config{URLs: []string{"http://x/", "ftp://x/SECRET"}, Key: priv}, "webhook 2: not an absolute"},
		{"negative timeout", notify.Config{URLs: []string{"http://x/"}, Key: priv, AttemptTimeout: -1}, "negative AttemptTimeout"},
		{"negative queue", notify.Config{URLs: []string{"http://x/"}, Key: priv, QueueSize: -1}, "negative QueueSize"},
		{"backoff", notify.Config{URLs: []string{"http://x/"}, Key: priv, MinBackoff: time.Second, MaxBackoff: time.Millisecond}, "MaxBackoff 1ms below MinBackoff 1s"},
		{"approve URL", notify.Config{URLs: []string{"http://x/"}, Key: priv, ApproveURL: "127.0.0.1:8080/?token=SECRET"}, "notify: approve URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := notify.New(c.cfg)
			if err == nil {
				n.Close(context.Background())
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "SECRET") {
				t.Fatalf("New: %v, want %q", err, c.want)
			}
		})
	}
}

// failingStore is a gate.Approvals whose Ask fails.
type failingStore struct{ gate.Approvals }

func (failingStore) Ask(*ledger.Request) (ledger.Request, bool, error) {
	return ledger.Request{}, false, errors.New("disk full")
}

// Wrap sends what the store created, once, and passes the store's answers
// through unchanged.
func TestWrap(t *testing.T) {
	pub, priv := newKey(t)
	rc := newReceiver(t, pub)
	ev := newEvents()
	n, err := notify.New(fast(priv, ev, rc.URL))
	if err != nil {
		t.Fatal(err)
	}
	store := ledger.NewMemory()
	w := notify.Wrap(store, n)
	a, err := act.New("", "pay", []byte(`{"amount_cents":5}`))
	if err != nil {
		t.Fatal(err)
	}
	var first ledger.Request
	for i := range 3 {
		r, err := gate.NewRequest(a, gate.Financial, "v1", time.Now(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		open, created, err := w.Ask(r)
		if err != nil || created != (i == 0) {
			t.Fatalf("Ask %d: %v, created %v", i, err, created)
		}
		if i == 0 {
			first = open
		} else if open.EnvelopeDigest != first.EnvelopeDigest {
			t.Fatalf("Ask %d: another request", i)
		}
	}
	if ok, err := w.Finish(first.EnvelopeDigest, "authority"); !ok || err != nil {
		t.Fatalf("Finish: %v %v", ok, err)
	}
	if r, _, _ := store.Request(first.EnvelopeDigest); r.State != ledger.RequestClosed {
		t.Fatalf("the store's request is %v after Finish", r.State)
	}
	if _, _, err := notify.Wrap(failingStore{}, n).Ask(&first); err == nil || err.Error() != "disk full" {
		t.Fatalf("the store's error: %v", err)
	}
	closeNow(t, n)
	got := rc.attempts()
	if len(got) != 1 || got[0].payload.EnvelopeDigest != first.EnvelopeDigest {
		t.Fatalf("%d deliveries, want the first request's only", len(got))
	}
	// Closed, the notifier takes nothing, and the gate's Ask still works.
	r, _ := gate.NewRequest(a, gate.Financial, "v1", time.Now(), rand.Reader)
	if _, created, err := w.Ask(r); err != nil || !created {
		t.Fatalf("Ask with the notifier closed: %v, created %v", err, created)
	}
}
