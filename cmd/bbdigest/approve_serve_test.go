package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/approvepage"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// approvalFixture is a directory with a gate key, a principal (alice)
// whom the policy names, an empty ledger and a FINANCIAL call, made with
// the command itself (keygen, ledger init).
type approvalFixture struct {
	dir, gateKey, aliceKey, policy, receipts, ledger, call string
	alice                                                  ed25519.PrivateKey
	aliceID                                                string
}

func newApprovalFixture(t testing.TB) *approvalFixture {
	t.Helper()
	dir := t.TempDir()
	f := &approvalFixture{
		dir:      dir,
		gateKey:  filepath.Join(dir, "gate.key"),
		aliceKey: filepath.Join(dir, "alice.key"),
		policy:   filepath.Join(dir, "policy.json"),
		receipts: filepath.Join(dir, "receipts.jsonl"),
		ledger:   filepath.Join(dir, "ledger.db"),
		call:     filepath.Join(dir, "pay.json"),
	}
	for _, args := range [][]string{{"keygen", "--out", f.gateKey}, {"keygen", "--out", f.aliceKey}, {"ledger", "init", f.ledger}} {
		if code, _, stderr := runCLI(args...); code != exitOK {
			t.Fatalf("bbdigest %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	pem, err := os.ReadFile(f.aliceKey)
	if err != nil {
		t.Fatal(err)
	}
	if f.alice, err = receipt.ParsePrivateKey(pem); err != nil {
		t.Fatal(err)
	}
	f.aliceID = receipt.KeyID(f.alice.Public().(ed25519.PublicKey))
	pub, err := os.ReadFile(f.aliceKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	policy := fmt.Sprintf(`{"policy_version":"v3","tools":{"search":"READ_ONLY","pay":"FINANCIAL"},"principals":[{"name":"alice","public_key":%q}]}`, strings.TrimSpace(string(pub)))
	if err := os.WriteFile(f.policy, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","arguments":{"to":"hotel","amount_cents":25000}}}`
	if err := os.WriteFile(f.call, []byte(call), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// runCLI runs bbdigest in this process.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// gateArgs are the arguments of the fixture's gate --ask on its call.
func (f *approvalFixture) gateArgs(wait time.Duration) []string {
	return []string{"gate", "--policy", f.policy, "--receipts", f.receipts, "--key", f.gateKey, "--ledger", f.ledger, "--ask", "--wait", wait.String(), f.call}
}

var pendingRE = regexp.MustCompile(`approval requested: envelope (sha256:[0-9a-f]{64})`)

// gate runs the fixture's gate on its call in this process and returns
// the decision's reason ("allow" for an allowed call), the envelope digest
// an approval_pending answer names, and stderr.
func (f *approvalFixture) gate(t *testing.T) (reason, pending, stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(f.gateArgs(bolt.LockTimeout)...)
	return f.gateResult(t, code, stdout, stderr)
}

func (f *approvalFixture) gateResult(t *testing.T, code int, stdout, stderr string) (reason, pending, _ string) {
	t.Helper()
	if code != exitOK {
		t.Fatalf("gate: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if stdout == "" {
		return "allow", "", stderr
	}
	m := regexp.MustCompile(`"reason":"([a-z_]+)"`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("gate: no reason in %s", stdout)
	}
	reason = m[1]
	if p := pendingRE.FindStringSubmatch(stdout); p != nil {
		pending = p[1]
	}
	return reason, pending, stderr
}

func mustDigest(t *testing.T, s string) hashing.Digest {
	t.Helper()
	d, err := hashing.ParseDigest(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// lockedBuffer is a bytes.Buffer that a process's output is copied to
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// request reads the request d from the fixture's ledger, and closes it.
func (f *approvalFixture) request(t *testing.T, d string) ledger.Request {
	t.Helper()
	l, err := bolt.Open(f.ledger, &bolt.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r, ok, err := l.Request(mustDigest(t, d))
	if err != nil || !ok {
		t.Fatalf("request %s: %v, %v", d, ok, err)
	}
	return r
}

// TestLedgerSourceDecide runs the approval page's Source (ledgerSource)
// over a real bolt ledger between gate --ask calls: it lists what the
// gate asked, records a grant that the gate's retry allows once (naming
// alice's key id) and a deny that the retry denies, refuses a second
// decision, an unknown request and an option that does not authorize the
// act, and leaves the ledger closed between its calls.
func TestLedgerSourceDecide(t *testing.T) {
	f := newApprovalFixture(t)
	ctx := context.Background()
	var log []string
	src := newLedgerSource(f.ledger, time.Second, f.alice, func(line string) { log = append(log, line) })

	if items, err := src.Pending(ctx); err != nil || len(items) != 0 {
		t.Fatalf("Pending on an empty ledger: %v, %v", items, err)
	}
	reason, d, _ := f.gate(t)
	if reason != "approval_pending" || d == "" {
		t.Fatalf("gate --ask: %s %s, want approval_pending naming an envelope", reason, d)
	}
	items, err := src.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 {
		t.Fatalf("Pending lists %d items, want 1", len(items))
	}
	it := items[0]
	r := f.request(t, d)
	if it.EnvelopeDigest.String() != d || it.Tool != "pay" || it.Server != "" || it.ActDigest != r.ActDigest ||
		!it.Emitted.Equal(r.EmittedAt) || it.Emitted.IsZero() || !bytes.Equal(it.Envelope, r.Envelope) {
		t.Errorf("Pending lists %+v, want the request %+v", it, r)
	}
	e, err := envelope.Parse(it.Envelope)
	if err != nil || e.Digest().String() != d {
		t.Errorf("the listed envelope parses to %v (%v), want digest %s", e, err, d)
	}

	// An option that does not authorize the act (Deny, as a grant), and
	// an envelope that was never asked: refused, nothing recorded.
	if err := src.Decide(ctx, approvepage.Decision{Envelope: it.EnvelopeDigest, Option: 1}); err == nil || !strings.Contains(err.Error(), "does not authorize the act") {
		t.Errorf("granting option 2 (Deny): %v, want a refusal", err)
	}
	unknown := mustDigest(t, "sha256:"+strings.Repeat("0", 64))
	if err := src.Decide(ctx, approvepage.Decision{Envelope: unknown}); err == nil || !strings.Contains(err.Error(), "no approval request sha256:000") {
		t.Errorf("deciding an unknown envelope: %v, want no approval request", err)
	}
	if r := f.request(t, d); r.State != ledger.RequestPending {
		t.Fatalf("after refused decisions the request is %v, want pending", r.State)
	}

	// The grant: recorded, signed by alice; listed no more; decided once.
	if err := src.Decide(ctx, approvepage.Decision{Envelope: it.EnvelopeDigest, Option: 0}); err != nil {
		t.Fatalf("Decide (grant): %v", err)
	}
	r = f.request(t, d)
	if r.State != ledger.RequestGranted || len(r.Decision) == 0 || r.DecidedAt.IsZero() {
		t.Errorf("after the grant the request is %v with decision %q, want granted with a signed document", r.State, r.Decision)
	}
	if !bytes.Contains(r.Decision, []byte(f.aliceID)) {
		t.Errorf("the recorded decision does not name alice's key %s: %s", f.aliceID, r.Decision)
	}
	want := fmt.Sprintf("granted %s, tool \"pay\", as key %s: the agent's retry of the identical call finds it\n", d, f.aliceID)
	if len(log) != 1 || log[0] != want {
		t.Errorf("the source logged %q, want %q", log, want)
	}
	if items, err := src.Pending(ctx); err != nil || len(items) != 0 {
		t.Errorf("Pending after the grant: %v, %v, want none", items, err)
	}
	if err := src.Decide(ctx, approvepage.Decision{Envelope: it.EnvelopeDigest, Deny: true}); err == nil || !strings.Contains(err.Error(), "is granted: a request is decided once") {
		t.Errorf("a second decision: %v, want refused", err)
	}

	// The gate's retry is allowed once, on alice's signature; the next
	// one asks anew.
	reason, _, stderr := f.gate(t)
	if reason != "allow" || !strings.Contains(stderr, "allow (authority): principal "+f.aliceID+` ("alice")`) {
		t.Fatalf("the retry: %s, %s; want allow (authority) by alice", reason, stderr)
	}
	reason, d2, _ := f.gate(t)
	if reason != "approval_pending" || d2 == d {
		t.Fatalf("the second retry: %s %s, want approval_pending with a new envelope", reason, d2)
	}

	// The deny: the retry is denied, approval_denied.
	if err := src.Decide(ctx, approvepage.Decision{Envelope: mustDigest(t, d2), Deny: true}); err != nil {
		t.Fatalf("Decide (deny): %v", err)
	}
	if r := f.request(t, d2); r.State != ledger.RequestDenied || len(r.Decision) == 0 {
		t.Errorf("after the deny the request is %v, want denied with a signed document", r.State)
	}
	if len(log) != 2 || !strings.HasPrefix(log[1], "denied "+d2+", tool \"pay\", as key "+f.aliceID) {
		t.Errorf("the source logged %q", log)
	}
	if reason, _, _ := f.gate(t); reason != "approval_denied" {
		t.Errorf("the retry after the deny: %s, want approval_denied", reason)
	}
	if code, stdout, stderr := runCLI("receipts", "verify", "--key", f.gateKey+".pub", f.receipts); code != exitOK || !strings.HasPrefix(stdout, "verified 4 records") {
		t.Errorf("receipts verify: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestLedgerSourceUnchanged: the listing of an unchanged ledger does not
// open it (so a gate holding it does not make it wait), and a commit by
// another process, a gate asking, is listed at once.
func TestLedgerSourceUnchanged(t *testing.T) {
	f := newApprovalFixture(t)
	src := newLedgerSource(f.ledger, 50*time.Millisecond, f.alice, nil)
	ctx := context.Background()
	_, d, _ := f.gate(t)
	items, err := src.Pending(ctx)
	if err != nil || len(items) != 1 || items[0].EnvelopeDigest.String() != d {
		t.Fatalf("Pending: %v, %v; want %s", items, err, d)
	}
	l, err := bolt.Open(f.ledger, nil) // as a gate deciding a call holds it
	if err != nil {
		t.Fatal(err)
	}
	again, err := src.Pending(ctx)
	if err != nil || len(again) != 1 || again[0].EnvelopeDigest != items[0].EnvelopeDigest {
		t.Errorf("Pending of the unchanged ledger while another holds it: %v, %v; want the last listing", again, err)
	}
	// Another act asked, in the same second: listed at the next call.
	r, _, err := l.Request(items[0].EnvelopeDigest)
	if err != nil {
		t.Fatal(err)
	}
	r.EnvelopeDigest = hashing.Sum([]byte("another envelope"))
	r.ActDigest = hashing.Sum([]byte("another act"))
	if _, _, err := l.Ask(&r); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if items, err := src.Pending(ctx); err != nil || len(items) != 2 || items[1].EnvelopeDigest != r.EnvelopeDigest {
		t.Errorf("Pending after a commit: %v, %v; want the new request listed", items, err)
	}
}

// TestLedgerSourceLocked: a source whose ledger another process (here,
// another open file) holds waits its --wait bound and fails with a
// message the page shows, naming the lock; it opens nothing when its
// context is done before its turn.
func TestLedgerSourceLocked(t *testing.T) {
	f := newApprovalFixture(t)
	src := newLedgerSource(f.ledger, 50*time.Millisecond, f.alice, nil)
	l, err := bolt.Open(f.ledger, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Pending(context.Background())
	l.Close()
	if !errors.Is(err, ledger.ErrLocked) || strings.HasPrefix(err.Error(), "ledger: ") || !strings.Contains(err.Error(), "locked") {
		t.Errorf("Pending on a held ledger: %v, want ErrLocked, said without the package's name", err)
	}
	src.turn <- struct{}{} // a call of the source has the ledger
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Pending(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Pending with a done context while another call has the ledger: %v, want context.Canceled", err)
	}
	<-src.turn
	if _, err := src.Pending(context.Background()); err != nil {
		t.Errorf("Pending once the ledger is free: %v", err)
	}
}

// childBBDigest returns a command that runs the test binary as bbdigest
// (see childEnv) on args.
func childBBDigest(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	return cmd
}

// servedPage is approve serve run as a process.
type servedPage struct {
	cmd    *exec.Cmd
	url    string
	stdout chan string // its lines after the URL
	stderr *lockedBuffer
}

var servedURL = regexp.MustCompile(`^    (http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{64})$`)

// startServe runs approve serve on the fixture's ledger as a process and
// waits for the URL it prints.
func (f *approvalFixture) startServe(t *testing.T) *servedPage {
	t.Helper()
	p := &servedPage{cmd: childBBDigest("approve", "serve", "--ledger", f.ledger, "--key", f.aliceKey), stdout: make(chan string, 100), stderr: new(lockedBuffer)}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	lines := bufio.NewScanner(out)
	urlc := make(chan string, 1)
	go func() {
		defer close(p.stdout)
		for lines.Scan() {
			if m := servedURL.FindStringSubmatch(lines.Text()); m != nil {
				urlc <- m[1]
				continue
			}
			p.stdout <- lines.Text()
		}
	}()
	select {
	case p.url = <-urlc:
	case <-time.After(20 * time.Second):
		t.Fatalf("approve serve printed no URL in 20s; stderr: %s", p.stderr)
	}
	return p
}

// decision returns the next line approve serve prints for a decision.
func (p *servedPage) decision(t *testing.T) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-p.stdout:
			if !ok {
				t.Fatal("approve serve exited before it printed a line for the decision")
			}
			if strings.HasPrefix(line, "granted ") || strings.HasPrefix(line, "denied ") {
				return line
			}
		case <-timeout:
			t.Fatal("approve serve printed no line for the decision")
			return ""
		}
	}
}

// TestApproveServeProcess runs approve serve as a process while gate
// --ask runs as processes (each opening the ledger) and a client polls the
// page a hundred times faster than the page does: every gate call and
// every listing succeeds, none meets a locked ledger. A grant posted as
// the page posts it is recorded, the gate's retry is allowed on it, and
// SIGINT stops the server with exit 0.
func TestApproveServeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child processes")
	}
	f := newApprovalFixture(t)
	p := f.startServe(t)

	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := client.Get(p.url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csrf := regexp.MustCompile(`<meta name="bbdigest-csrf" content="([0-9a-f]{64})">`).FindSubmatch(page)
	if resp.StatusCode != http.StatusOK || csrf == nil {
		t.Fatalf("GET the URL: %s\n%s", resp.Status, page)
	}
	origin := strings.TrimSuffix(p.url[:strings.Index(p.url, "/?token=")], "/")

	type listing struct {
		Items []struct {
			EnvelopeDigest string `json:"envelope_digest"`
			Tool           string `json:"tool"`
		} `json:"items"`
	}
	list := func() (listing, time.Duration, error) {
		start := time.Now()
		resp, err := client.Get(origin + "/api/pending")
		if err != nil {
			return listing{}, 0, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return listing{}, 0, fmt.Errorf("GET /api/pending: %s %s", resp.Status, body)
		}
		var l listing
		return l, time.Since(start), json.Unmarshal(body, &l)
	}

	// The poller: every 10ms, while the gate processes run.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var polls int
	var slowest time.Duration
	var pollErr error
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			_, d, err := list()
			if err != nil {
				pollErr = err
				return
			}
			polls++
			slowest = max(slowest, d)
		}
	})
	var pending string
	var asked []string
	for i := range 6 {
		// A call of its own each time, so that each asks anew and
		// changes the ledger, which the next listing then reads; the
		// last is the fixture's call. A short --wait: the gate must get
		// the ledger between two listings, not by waiting them out.
		args := f.gateArgs(2 * time.Second)
		if i < 5 {
			call := filepath.Join(f.dir, fmt.Sprintf("pay-%d.json", i))
			if err := os.WriteFile(call, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","arguments":{"to":"hotel","amount_cents":%d}}}`, i), 0o644); err != nil {
				t.Fatal(err)
			}
			args[len(args)-1] = call
		}
		cmd := childBBDigest(args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		reason, d, _ := f.gateResult(t, code, stdout.String(), stderr.String())
		if reason != "approval_pending" || slices.Contains(asked, d) {
			t.Fatalf("gate call %d while the page is polled: %s %s, want approval_pending for a new envelope", i, reason, d)
		}
		asked = append(asked, d)
		pending = d
	}
	close(stop)
	wg.Wait()
	if pollErr != nil {
		t.Fatalf("a listing while the gate ran: %v", pollErr)
	}
	t.Logf("%d listings while 6 gate processes ran; the slowest took %v", polls, slowest)
	if polls == 0 {
		t.Fatal("no listing ran while the gate did")
	}
	l, _, err := list()
	var listed []string
	for _, it := range l.Items {
		listed = append(listed, it.EnvelopeDigest)
	}
	if err != nil || !slices.Equal(listed, asked) {
		t.Fatalf("the page lists %v (%v), want the requests asked, oldest first: %v", listed, err, asked)
	}

	// A grant, as the page posts it.
	req, err := http.NewRequest(http.MethodPost, origin+"/api/decide", strings.NewReader(`{"envelope_digest":"`+pending+`","decision":"approve","option":0}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", string(csrf[1]))
	req.Header.Set("Origin", origin)
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/decide: %s %s", resp.Status, body)
	}
	if line := p.decision(t); !strings.HasPrefix(line, "granted "+pending+", tool \"pay\", as key "+f.aliceID) {
		t.Errorf("approve serve printed %q for the grant", line)
	}
	reason, _, stderr := f.gate(t)
	if reason != "allow" || !strings.Contains(stderr, "principal "+f.aliceID) {
		t.Errorf("the retry after the page's grant: %s %s", reason, stderr)
	}

	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("approve serve after SIGINT: %v, want exit 0; stderr: %s", err, p.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("approve serve did not stop within 10s of SIGINT")
	}
	// stderr is read once the process is done: it is a pipe of its own,
	// which stdout's URL may overtake.
	if e := p.stderr.String(); strings.Contains(e, "error") || !strings.HasPrefix(e, "bbdigest: hint: the URL carries a secret token: whoever has it can grant or deny as key "+f.aliceID) {
		t.Errorf("stderr: %q, want the hint that the URL is a secret and no error", e)
	}
}

// BenchmarkLedgerSourcePending measures one listing of the approval page,
// which it asks for every second while it is open. changed=true is a
// listing after the ledger changed: open the ledger (with every check of
// bolt.Open), read its requests, close it, while the gate's processes
// cannot open it; changed=false the listing of an unchanged ledger, which
// does not open it. The ledger holds N closed
// requests (every call the gate asked about stays in it, closed) and one
// pending, each with the envelope the gate builds for a FINANCIAL call.
func BenchmarkLedgerSourcePending(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("closed=%d", n), func(b *testing.B) {
			f := newApprovalFixture(b)
			if code, stdout, stderr := runCLI(f.gateArgs(bolt.LockTimeout)...); code != exitOK || !pendingRE.MatchString(stdout) {
				b.Fatalf("gate --ask: exit %d: %s%s", code, stdout, stderr)
			}
			l, err := bolt.Open(f.ledger, nil)
			if err != nil {
				b.Fatal(err)
			}
			rs, err := l.Requests()
			if err != nil || len(rs) != 1 {
				b.Fatal(rs, err)
			}
			for i := range n {
				r := rs[0].Clone()
				r.EnvelopeDigest = hashing.Sum(fmt.Appendf(nil, "envelope %d", i))
				r.ActDigest = hashing.Sum(fmt.Appendf(nil, "act %d", i))
				if _, _, err := l.Ask(&r); err != nil {
					b.Fatal(err)
				}
				if _, err := l.Finish(r.EnvelopeDigest, "expired"); err != nil {
					b.Fatal(err)
				}
			}
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
			st, err := os.Stat(f.ledger)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("the ledger file: %d bytes", st.Size())
			for _, changed := range []bool{true, false} {
				b.Run(fmt.Sprintf("changed=%t", changed), func(b *testing.B) {
					src := newLedgerSource(f.ledger, time.Second, f.alice, nil)
					ctx := context.Background()
					if _, err := src.Pending(ctx); err != nil { // the listing of changed=false
						b.Fatal(err)
					}
					for b.Loop() {
						if changed {
							src.listed.valid = false // as after a commit
						}
						items, err := src.Pending(ctx)
						if err != nil || len(items) != 1 {
							b.Fatal(items, err)
						}
					}
				})
			}
		})
	}
}
