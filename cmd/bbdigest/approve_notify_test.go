package main

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/gate/notify"
	"github.com/bbdigest/bbdigest/receipt"
)

// hookReceiver is a webhook that verifies each delivery with the gate's
// public key and counts them by envelope digest.
type hookReceiver struct {
	*httptest.Server
	t    *testing.T
	pub  ed25519.PublicKey
	mu   sync.Mutex
	byID map[string]int
	bad  []string
}

func newHookReceiver(t *testing.T, pub ed25519.PublicKey) *hookReceiver {
	h := &hookReceiver{t: t, pub: pub, byID: map[string]int{}}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p, err := notify.Verify(h.pub, r.Header, body, time.Now())
		h.mu.Lock()
		defer h.mu.Unlock()
		switch {
		case err != nil:
			h.bad = append(h.bad, err.Error())
		case strings.Contains(p.ApproveURL, "token") || p.ApproveURL != "http://127.0.0.1:8080/":
			h.bad = append(h.bad, "approve_url "+p.ApproveURL)
		default:
			h.byID[p.EnvelopeDigest.String()]++
		}
	}))
	t.Cleanup(h.Close)
	return h
}

// counts returns the deliveries by envelope digest so far, failing the test
// on any that did not verify.
func (h *hookReceiver) counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range h.bad {
		h.t.Errorf("a delivery did not verify: %s", b)
	}
	h.bad = nil
	m := make(map[string]int, len(h.byID))
	for k, v := range h.byID {
		m[k] = v
	}
	return m
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting, after 30 s, for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// watcher is "bbdigest approve notify" running as a process of its own
// (the test binary in child mode), as an operator runs it beside the
// gates.
type watcher struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

func startWatcher(t *testing.T, args ...string) *watcher {
	t.Helper()
	w := &watcher{done: make(chan error, 1)}
	w.cmd = exec.Command(os.Args[0], append([]string{"approve", "notify"}, args...)...)
	w.cmd.Env = append(os.Environ(), childEnv+"=1")
	w.cmd.Stdout, w.cmd.Stderr = &w.stdout, &w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	t.Cleanup(func() { w.cmd.Process.Kill() })
	return w
}

// stop sends sig and waits for the watcher to exit, with code 0.
func (w *watcher) stop(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := w.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.done:
		if err != nil {
			t.Fatalf("after %v: %v; stderr:\n%s", sig, err, w.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("still running 20 s after %v; stderr:\n%s", sig, w.stderr.String())
	}
}

// The watcher end to end, over a real bolt ledger: gate --ask processes
// (run in this process) create requests while it polls every 10 ms; it
// sends each new pending request once, signed with the gate's key, to
// both webhooks; no gate call fails on the ledger it keeps opening; a
// request decided is not sent again; SIGTERM stops it after draining.
// Restarted, it sends the requests still pending again (the receivers drop
// them by digest).
func TestApproveNotifyWatcher(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	cli := func(stdin string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(stdin), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	for _, k := range []string{"gate.key", "alice.key"} {
		if code, _, stderr := cli("", "keygen", "--out", path(k)); code != exitOK {
			t.Fatalf("keygen: %s", stderr)
		}
	}
	if code, _, stderr := cli("", "ledger", "init", path("ledger.db")); code != exitOK {
		t.Fatalf("ledger init: %s", stderr)
	}
	alicePub, _ := os.ReadFile(path("alice.key.pub"))
	policy := fmt.Sprintf(`{"policy_version":"v3","tools":{"pay":"FINANCIAL"},"principals":[{"name":"alice","public_key":%q}]}`, strings.TrimSpace(string(alicePub)))
	if err := os.WriteFile(path("policy.json"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	gatePubText, _ := os.ReadFile(path("gate.key.pub"))
	gatePub, err := receipt.ParsePublicKey(gatePubText)
	if err != nil {
		t.Fatal(err)
	}
	a, b := newHookReceiver(t, gatePub), newHookReceiver(t, gatePub)
	args := []string{"--ledger", path("ledger.db"), "--key", path("gate.key"), "--notify", a.URL, "--notify", b.URL + "/hook/SECRET",
		"--approve-url", "http://127.0.0.1:8080/?token=0123456789abcdef0123456789abcdef", "--every", "10ms"}
	w := startWatcher(t, args...)

	// The gates: each call asks (approval_pending) and exits; none fails
	// on the ledger the watcher keeps opening.
	envRE := regexp.MustCompile(`approval requested: envelope (sha256:[0-9a-f]{64})`)
	ask := func(amount int) string {
		t.Helper()
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"to":"hotel","amount_cents":%d}}}`, amount)
		code, stdout, stderr := cli(call, "gate", "--policy", path("policy.json"), "--receipts", path("receipts.jsonl"), "--key", path("gate.key"), "--ledger", path("ledger.db"), "--ask")
		m := envRE.FindStringSubmatch(stdout)
		if code != exitOK || m == nil || strings.Contains(stderr, "bbdigest: error:") {
			t.Fatalf("gate: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
		return m[1]
	}
	var digests []string
	for i := range 6 {
		d := ask(100 + i%3) // three acts, each asked twice: three requests
		if i < 3 {
			digests = append(digests, d)
		} else if d != digests[i-3] {
			t.Fatalf("the same act asked again got envelope %s, not %s", d, digests[i-3])
		}
	}
	for _, h := range []*hookReceiver{a, b} {
		waitFor(t, "three requests at each webhook", func() bool { return len(h.counts()) == 3 })
	}

	// Alice grants the first: it is no longer pending, and nothing is sent
	// for it, nor for the others again, while the watcher polls on.
	if code, _, stderr := cli("", "approve", "grant", "--ledger", path("ledger.db"), "--key", path("alice.key"), digests[0]); code != exitOK {
		t.Fatalf("approve grant: %s", stderr)
	}
	fourth := ask(200)
	for _, h := range []*hookReceiver{a, b} {
		waitFor(t, "the fourth request", func() bool { return h.counts()[fourth] == 1 })
	}
	w.stop(t, syscall.SIGTERM)
	for _, h := range []*hookReceiver{a, b} {
		c := h.counts()
		if len(c) != 4 {
			t.Fatalf("deliveries %v, want four requests", c)
		}
		for d, n := range c {
			if n != 1 {
				t.Fatalf("request %s delivered %d times in one run", d, n)
			}
		}
	}
	if got := strings.Count(w.stdout.String(), "notified request sha256:"); got != 8 {
		t.Fatalf("%d lines of deliveries, want 8:\n%s", got, w.stdout.String())
	}
	if !strings.Contains(w.stdout.String(), `notified request `+fourth+` (tool "pay") to webhook 2 (`+strings.TrimPrefix(b.URL, "http://")+")\n") {
		t.Fatalf("stdout:\n%s", w.stdout.String())
	}
	wantErr := "bbdigest: hint: approve notify: the notifications carry --approve-url without its token or user info: a principal opens the approval page with the token they hold\n" +
		"bbdigest: summary: approve notify: 4 requests sent, 8 deliveries, 0 failed, 0 dropped\n"
	if w.stderr.String() != wantErr {
		t.Fatalf("stderr:\n%s\nwant:\n%s", w.stderr.String(), wantErr)
	}
	if strings.Contains(w.stdout.String()+w.stderr.String(), "SECRET") || strings.Contains(w.stdout.String()+w.stderr.String(), "0123456789abcdef") {
		t.Fatal("the watcher printed a secret")
	}

	// Restarted, it sends the requests still pending (not the granted
	// one) again: the receivers see the same envelope digests.
	w = startWatcher(t, args...)
	for _, h := range []*hookReceiver{a, b} {
		waitFor(t, "the pending requests again", func() bool {
			c := h.counts()
			return c[digests[1]] == 2 && c[digests[2]] == 2 && c[fourth] == 2
		})
	}
	w.stop(t, os.Interrupt)
	if c := a.counts(); c[digests[0]] != 1 {
		t.Fatalf("the granted request was sent again: %v", c)
	}
	if !strings.Contains(w.stderr.String(), "bbdigest: summary: approve notify: 3 requests sent, 6 deliveries, 0 failed, 0 dropped\n") {
		t.Fatalf("stderr:\n%s", w.stderr.String())
	}
}

// A webhook that refuses: the delivery is given up at once (4xx), one
// error line names it by number and host, and the watcher goes on.
func TestApproveNotifyRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	f := newGateFixture(t)
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }))
	defer refuse.Close()
	policy := fmt.Sprintf(`{"policy_version":"v3","tools":{"pay":"FINANCIAL"},"principals":[{"name":"p","public_key":%q}]}`, receipt.MarshalPublicKey(f.pub))
	if err := os.WriteFile(f.policy, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, "--ledger", f.ledger, "--key", f.key, "--notify", refuse.URL+"/x", "--every", "10ms")
	var stdout, stderr bytes.Buffer
	call := jsonrpcShape(`{"name":"pay","arguments":{"to":"x","amount_cents":1}}`)
	if code := run(f.args("--ask"), strings.NewReader(call), &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), "approval_pending") {
		t.Fatalf("gate: %d %s %s", code, stdout.String(), stderr.String())
	}
	time.Sleep(300 * time.Millisecond)
	w.stop(t, syscall.SIGTERM)
	host := strings.TrimPrefix(refuse.URL, "http://")
	re := regexp.MustCompile(`\Abbdigest: error: approve notify: webhook 1 \(` + regexp.QuoteMeta(host) + `\), request sha256:[0-9a-f]{64} \(tool "pay"\): attempt 1: HTTP 403 Forbidden, not retried\n` +
		`bbdigest: summary: approve notify: 1 request sent, 0 deliveries, 1 failed, 0 dropped\n\z`)
	if !re.MatchString(w.stderr.String()) || w.stdout.Len() != 0 {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", w.stdout.String(), w.stderr.String())
	}
}
