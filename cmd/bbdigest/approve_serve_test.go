package main

import (
	"bufio"
	"bytes"
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
	if line, want := p.decision(t), "granted "+pending+", tool \"pay\", as key "+f.aliceID+": the agent's retry of the identical call finds it"; line != want {
		t.Errorf("approve serve printed %q for the grant, want %q", line, want)
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
