package browsertest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bbdigest/bbdigest/hashing"
)

// bbdigestBinary builds the bbdigest command from this checkout (the
// module the go.mod replace points at) into a temporary directory and
// returns its path.
func bbdigestBinary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bbdigest")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/bbdigest")
	cmd.Dir = filepath.Join("..", "..", "..") // the repository's root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/bbdigest: %v\n%s", err, out)
	}
	return path
}

// loop is a directory set up for the gate's approval loop with the
// bbdigest command: a gate key, a principal (alice) the policy names, an
// empty ledger and a FINANCIAL call.
type loop struct {
	t                 *testing.T
	bin, dir, aliceID string
}

func newLoop(t *testing.T) *loop {
	t.Helper()
	l := &loop{t: t, bin: bbdigestBinary(t), dir: t.TempDir()}
	l.run("keygen", "--out", "gate.key")
	l.aliceID = strings.TrimSpace(l.run("keygen", "--out", "alice.key"))
	l.run("ledger", "init", "ledger.db")
	pub, err := os.ReadFile(filepath.Join(l.dir, "alice.key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	policy := fmt.Sprintf(`{"policy_version":"v3","tools":{"search":"READ_ONLY","pay":"FINANCIAL"},"principals":[{"name":"alice","public_key":%q}]}`, strings.TrimSpace(string(pub)))
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","arguments":{"to":"hotel","amount_cents":25000}}}`
	for name, content := range map[string]string{"policy.json": policy, "pay.json": call} {
		if err := os.WriteFile(filepath.Join(l.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// command returns bbdigest with args, run in the loop's directory.
func (l *loop) command(args ...string) *exec.Cmd {
	cmd := exec.Command(l.bin, args...)
	cmd.Dir = l.dir
	return cmd
}

// run runs bbdigest with args, which must succeed, and returns its stdout.
func (l *loop) run(args ...string) string {
	l.t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := l.command(args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		l.t.Fatalf("bbdigest %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

var (
	reasonRE  = regexp.MustCompile(`"reason":"([a-z_]+)"`)
	pendingRE = regexp.MustCompile(`approval requested: envelope (sha256:[0-9a-f]{64})`)
)

// gate runs the gate with --ask on the loop's call and returns the
// decision's reason ("allow" when the call is allowed), the envelope an
// approval_pending answer names, and its stderr.
func (l *loop) gate() (reason, pending, stderr string) {
	l.t.Helper()
	var out, errb bytes.Buffer
	cmd := l.command("gate", "--policy", "policy.json", "--receipts", "receipts.jsonl", "--key", "gate.key",
		"--ledger", "ledger.db", "--ask", "pay.json")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		l.t.Fatalf("bbdigest gate: %v\n%s%s", err, out.String(), errb.String())
	}
	if out.Len() == 0 {
		return "allow", "", errb.String()
	}
	m := reasonRE.FindStringSubmatch(out.String())
	if m == nil {
		l.t.Fatalf("bbdigest gate: no reason in %s", out.String())
	}
	if p := pendingRE.FindStringSubmatch(out.String()); p != nil {
		pending = p[1]
	}
	return m[1], pending, errb.String()
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

// server is bbdigest approve serve running as a process.
type server struct {
	cmd    *exec.Cmd
	url    string
	lines  chan string // stdout after the URL
	stderr *lockedBuffer
	done   chan error
}

var urlRE = regexp.MustCompile(`^    (http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{64})$`)

// serve starts approve serve on the loop's ledger, deciding as alice, on a
// loopback port the system picks, and waits for the URL it prints.
func (l *loop) serve() *server {
	l.t.Helper()
	s := &server{
		cmd:   l.command("approve", "serve", "--ledger", "ledger.db", "--key", "alice.key", "--listen", "127.0.0.1:0"),
		lines: make(chan string, 100), stderr: new(lockedBuffer), done: make(chan error, 1),
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
				continue
			}
			s.lines <- sc.Text()
		}
		close(s.lines)
		s.done <- s.cmd.Wait()
	}()
	l.t.Cleanup(func() {
		s.cmd.Process.Kill()
	})
	select {
	case s.url = <-urlc:
	case <-time.After(10 * time.Second):
		l.t.Fatalf("approve serve printed no URL within 10s; stderr: %s", s.stderr)
	}
	return s
}

// decision returns the next line approve serve prints for a decision.
func (s *server) decision(t *testing.T) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("approve serve exited; stderr: %s", s.stderr)
			}
			if strings.HasPrefix(line, "granted ") || strings.HasPrefix(line, "denied ") {
				return line
			}
		case <-timeout:
			t.Fatal("approve serve printed no decision within 10s")
		}
	}
}

// stop sends SIGINT and waits for a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("approve serve after SIGINT: %v, want exit 0; stderr: %s", err, s.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("approve serve did not stop within 10s of SIGINT")
	}
}

// TestServeLoop is the approval loop end to end, through the page: the
// gate (a bbdigest process for each call) asks about a FINANCIAL call
// (approval_pending); bbdigest approve serve, a process, serves the page;
// Chromium approves the envelope on it, after computing its digest; the
// gate's identical retry is allowed on alice's signature, and the next one
// asks anew; Chromium declines that one, and the retry is approval_denied.
// The gate's processes run while the page polls the ledger, and the
// receipts verify.
func TestServeLoop(t *testing.T) {
	start := time.Now()
	l := newLoop(t) // builds bbdigest first, outside the tab's deadline
	t.Logf("bbdigest built and the loop set up in %v", time.Since(start).Round(time.Millisecond))
	ctx, problems := tab(t)

	reason, d, _ := l.gate()
	if reason != "approval_pending" || d == "" {
		t.Fatalf("gate --ask on a FINANCIAL call: %s %s, want approval_pending", reason, d)
	}
	s := l.serve()

	// Approve: the page lists the envelope, with the digest this browser
	// computed, and records alice's grant.
	env := parseDigest(t, d)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(card(env)+" pre.rendering")),
	); err != nil {
		t.Fatalf("the page does not show %s: %v; stderr: %s", d, err, s.stderr)
	}
	computed, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(card(env)+" dd.computed-digest")))
	if err != nil || computed != d {
		t.Errorf("the digest computed in the browser: %q (%v), want %s", computed, err, d)
	}
	rendering, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(card(env)+" pre.rendering")))
	if err != nil || !strings.Contains(rendering, `"Argument \"amount_cents\": 25000"`) {
		t.Errorf("the page renders %q (%v), want the call's arguments", rendering, err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(card(env)+` button.approve[data-option="0"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#decisions li.approved`)),
	); err != nil {
		t.Fatal(err)
	}
	if line := s.decision(t); !strings.HasPrefix(line, "granted "+d+`, tool "pay", as key `+l.aliceID) {
		t.Errorf("approve serve printed %q, want alice's grant of %s", line, d)
	}

	// The identical call: allowed once, on alice's signature; again: asked anew.
	reason, _, stderr := l.gate()
	if reason != "allow" || !strings.Contains(stderr, "allow (authority): principal "+l.aliceID+` ("alice")`) {
		t.Fatalf("the retry after the page's grant: %s\n%s", reason, stderr)
	}
	reason, d2, _ := l.gate()
	if reason != "approval_pending" || d2 == d || d2 == "" {
		t.Fatalf("the second retry: %s %s, want approval_pending with a new envelope", reason, d2)
	}

	// Decline the new envelope, which the page lists without a reload.
	env2 := parseDigest(t, d2)
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(card(env2)+" pre.rendering")),
		chromedp.Click(chromedp.CSS(card(env2)+" button.decline")),
		chromedp.WaitVisible(chromedp.CSS(`#decisions li.declined`)),
	); err != nil {
		t.Fatal(err)
	}
	if line := s.decision(t); !strings.HasPrefix(line, "denied "+d2+`, tool "pay", as key `+l.aliceID) {
		t.Errorf("approve serve printed %q, want alice's denial of %s", line, d2)
	}
	if reason, _, stderr := l.gate(); reason != "approval_denied" || !strings.Contains(stderr, "principal "+l.aliceID+` ("alice") denied this act`) {
		t.Errorf("the retry after the page's decline: %s\n%s", reason, stderr)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#empty"))); err != nil {
		t.Errorf("the page does not say that nothing is pending: %v", err)
	}
	noProblems(t, ctx, problems)

	if out := l.run("receipts", "verify", "--key", "gate.key.pub", "receipts.jsonl"); !strings.HasPrefix(out, "verified 4 records, seq 1 to 4,") {
		t.Errorf("receipts verify: %s", out)
	}
	s.stop(t)
	if e := s.stderr.String(); strings.Contains(e, "error") || !strings.HasPrefix(e, "bbdigest: hint: the URL carries a secret token: whoever has it can grant or deny as key "+l.aliceID) {
		t.Errorf("approve serve's stderr: %q, want the hint that the URL is a secret and no error", e)
	}
}

// parseDigest parses a digest the command printed.
func parseDigest(t *testing.T, s string) hashing.Digest {
	t.Helper()
	d, err := hashing.ParseDigest(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
