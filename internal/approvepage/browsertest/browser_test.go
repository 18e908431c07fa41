package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/approvepage"
	"github.com/bbdigest/bbdigest/internal/approvepage/approvetest"
)

// The one browser of the test binary, started by the first test that needs
// it and stopped by TestMain.
var browser struct {
	once   sync.Once
	ctx    context.Context // a chromedp context whose browser runs
	cancel func()
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	os.Exit(code)
}

// chromium returns the path of a Chromium: $BBDIGEST_CHROMIUM, or the first
// of the usual names on PATH.
func chromium() string {
	if p := os.Getenv("BBDIGEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// tab returns a chromedp context for a new tab, in a browser context of its
// own (cookies are not shared between tests), with a deadline, and a
// function that reports the JavaScript exceptions and console errors the
// page has had so far. Without a Chromium the test skips, or fails when
// BBDIGEST_REQUIRE_CHROMIUM=1.
func tab(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	path := chromium()
	if path == "" {
		msg := "no Chromium: neither $BBDIGEST_CHROMIUM nor chromium, chromium-browser, google-chrome or headless-shell on PATH (Debian: apt-get install chromium)"
		if os.Getenv("BBDIGEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatal(msg + "; BBDIGEST_REQUIRE_CHROMIUM=1 requires the browser tests to run")
		}
		t.Skip(msg + "; the browser tests of the approval page do not run")
	}
	browser.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU)
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		browser.ctx = ctx
		browser.cancel = func() { cancelCtx(); cancelAlloc() }
		browser.err = chromedp.Do(ctx) // starts the browser
	})
	if browser.err != nil {
		t.Fatalf("starting %s: %v", path, browser.err)
	}
	ctx, cancel := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	// Every page of the tab records the Content-Security-Policy violations
	// it has, for noProblems: the page must work within its own policy.
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
		})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, 30*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(problems)
	}
}

// serve starts the page for src on a loopback port through Listen and
// Serve, as `bbdigest approve serve` does, polling every 100ms.
func serve(t *testing.T, src approvepage.Source) *approvepage.Handler {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := approvepage.Listen(ctx, "127.0.0.1:0", approvepage.ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := approvepage.New(src, ln.Addr().String(), &approvepage.Options{Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- approvepage.Serve(ctx, ln, h) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return h
}

// base is the page's URL without its token.
func base(h *approvepage.Handler) string {
	u, _, _ := strings.Cut(h.URL(), "/?token=")
	return u
}

func newItem(t *testing.T, tool, synopsis, label string) approvepage.Item {
	t.Helper()
	env, err := approvetest.Envelope(synopsis, label)
	if err != nil {
		t.Fatal(err)
	}
	it, err := approvetest.NewItem(tool, env)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// card is the CSS selector of the section of the envelope listed under d.
func card(d hashing.Digest) string {
	return `section.envelope[data-digest="` + d.String() + `"]`
}

// waitDecisions waits until src has recorded n decisions, and returns them.
func waitDecisions(t *testing.T, ctx context.Context, src *approvetest.Source, n int) []approvepage.Decision {
	t.Helper()
	for {
		if d := src.Decisions(); len(d) >= n {
			return d
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %d decisions: %v (have %v)", n, ctx.Err(), src.Decisions())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// noProblems fails t if the page has had JavaScript exceptions, console
// errors or warnings, or Content-Security-Policy violations.
func noProblems(t *testing.T, ctx context.Context, problems func() []string) {
	t.Helper()
	if p := problems(); len(p) != 0 {
		t.Errorf("the page had errors:\n%s", strings.Join(p, "\n"))
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.cspViolations`))
	if err != nil || len(v) != 0 {
		t.Errorf("Content-Security-Policy violations: %q (%v)", v, err)
	}
}

func TestListUpdatesAndApprove(t *testing.T) {
	ctx, problems := tab(t)
	src := &approvetest.Source{}
	a := newItem(t, "pay_invoice", "Pay invoice 42 to ACME now.", "Allow this call once")
	src.Add(a)
	h := serve(t, src)

	if err := chromedp.Do(ctx,
		chromedp.Navigate(h.URL()),
		chromedp.WaitVisible(chromedp.CSS(card(a.EnvelopeDigest)+" pre.rendering")),
	); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || loc != base(h)+"/" {
		t.Errorf("the page is at %q (%v), want %s/ without the token", loc, err, base(h))
	}
	text, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(card(a.EnvelopeDigest)+" pre.rendering")))
	if err != nil {
		t.Fatal(err)
	}
	e, err := envelope.Parse(a.Envelope)
	if err != nil {
		t.Fatal(err)
	}
	if text != envelope.RenderText(e) {
		t.Errorf("the page renders\n%s\nwant envelope.RenderText:\n%s", text, envelope.RenderText(e))
	}
	computed, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(card(a.EnvelopeDigest)+" dd.computed-digest")))
	if err != nil || computed != a.EnvelopeDigest.String() {
		t.Errorf("digest computed in the browser: %q (%v), want %s", computed, err, a.EnvelopeDigest)
	}
	// The style sheet applies (the policy admits it): a matching digest
	// shows on green.
	bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('`+card(a.EnvelopeDigest)+` .check.ok')).backgroundColor`))
	if err != nil || bg != "rgb(231, 245, 231)" {
		t.Errorf("the digest check's background is %q (%v): style.css did not apply", bg, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.sameDocument = true`)); err != nil {
		t.Fatal(err)
	}
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('`+card(a.EnvelopeDigest)+` .actions button')).map(b => b.textContent + (b.disabled ? ' [disabled]' : ''))`))
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := []string{`Approve 1. "Allow this call once" (recommended)`, `Approve 2. "Allow it with a lower amount"`, "Decline"}
	if !slices.Equal(labels, wantLabels) {
		t.Errorf("buttons %q, want %q", labels, wantLabels)
	}

	// A new envelope appears without a reload.
	b := newItem(t, "delete_repo", "Delete the archived repository.", "Delete it once")
	src.Add(b)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(card(b.EnvelopeDigest)+" pre.rendering"))); err != nil {
		t.Fatal(err)
	}
	if same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.sameDocument === true`)); err != nil || !same {
		t.Errorf("the page reloaded to show the new envelope (%v)", err)
	}

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(card(a.EnvelopeDigest)+` button.approve[data-option="0"]`))); err != nil {
		t.Fatal(err)
	}
	got := waitDecisions(t, ctx, src, 1)
	if want := (approvepage.Decision{Envelope: a.EnvelopeDigest, Option: 0}); got[0] != want {
		t.Errorf("decision %+v, want %+v", got[0], want)
	}
	// Decided, so no longer listed: its card goes, the log keeps it, and
	// the other stays.
	if err := chromedp.Do(ctx,
		chromedp.WaitNotPresent(chromedp.CSS(card(a.EnvelopeDigest))),
		chromedp.WaitVisible(chromedp.CSS(card(b.EnvelopeDigest))),
	); err != nil {
		t.Fatal(err)
	}
	logText, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#decisions")))
	if err != nil || logText != "Approved option 1: "+a.EnvelopeDigest.String() {
		t.Errorf("the log says %q (%v)", logText, err)
	}
	noProblems(t, ctx, problems)
}

func TestDecline(t *testing.T) {
	ctx, problems := tab(t)
	src := &approvetest.Source{}
	a := newItem(t, "pay_invoice", "Pay invoice 42 to ACME now.", "Allow this call once")
	src.Add(a)
	h := serve(t, src)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(h.URL()),
		chromedp.Click(chromedp.CSS(card(a.EnvelopeDigest)+" button.decline")),
	); err != nil {
		t.Fatal(err)
	}
	got := waitDecisions(t, ctx, src, 1)
	if want := (approvepage.Decision{Envelope: a.EnvelopeDigest, Deny: true}); len(got) != 1 || got[0] != want {
		t.Errorf("decisions %+v, want [%+v]", got, want)
	}
	if err := chromedp.Do(ctx,
		chromedp.WaitNotPresent(chromedp.CSS(card(a.EnvelopeDigest))),
		chromedp.WaitVisible(chromedp.CSS("#empty")),
	); err != nil {
		t.Fatal(err)
	}
	noProblems(t, ctx, problems)
}

// fetchStatus runs a fetch in the page and returns the response's status.
func fetchStatus(t *testing.T, ctx context.Context, js string) int {
	t.Helper()
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](js+`.then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return status
}

func TestTokenRefused(t *testing.T) {
	ctx, _ := tab(t)
	src := &approvetest.Source{}
	a := newItem(t, "pay_invoice", "Pay invoice 42 to ACME now.", "Allow this call once")
	src.Add(a)
	h := serve(t, src)
	for _, tc := range []struct {
		path string
		want int64
	}{
		{"/", 401},
		{"/api/pending", 401},
		{"/app.js", 401},
		{"/approve.wasm", 401},
		{"/?token=0000000000000000000000000000000000000000000000000000000000000000", 403},
	} {
		resp, err := chromedp.RunResponse(ctx, chromedp.Navigate(base(h)+tc.path))
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if resp.Status != tc.want {
			t.Errorf("%s: %d, want %d", tc.path, resp.Status, tc.want)
		}
		body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.textContent`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(body, "sha256:") || strings.Contains(body, "Pay invoice") {
			t.Errorf("%s without the token shows the envelope: %s", tc.path, body)
		}
	}
	// The refused page's own fetches are refused too.
	if s := fetchStatus(t, ctx, `fetch('/api/pending')`); s != 401 {
		t.Errorf("fetch /api/pending without a session: %d, want 401", s)
	}

	// With a session but without the CSRF token, a POST is refused.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(h.URL()),
		chromedp.WaitVisible(chromedp.CSS(card(a.EnvelopeDigest))),
	); err != nil {
		t.Fatal(err)
	}
	body := `JSON.stringify({envelope_digest: '` + a.EnvelopeDigest.String() + `', decision: 'deny'})`
	if s := fetchStatus(t, ctx, `fetch('/api/decide', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: `+body+`})`); s != 403 {
		t.Errorf("POST without the CSRF token: %d, want 403", s)
	}
	if s := fetchStatus(t, ctx, `fetch('/api/decide', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': '00'}, body: `+body+`})`); s != 403 {
		t.Errorf("POST with a wrong CSRF token: %d, want 403", s)
	}
	if d := src.Decisions(); len(d) != 0 {
		t.Errorf("decisions recorded without the CSRF token: %v", d)
	}
}

func TestHostileText(t *testing.T) {
	ctx, problems := tab(t)
	const script = `</script><script>window.pwned = 1</script>`
	const img = `"><img src=x onerror="window.pwned = 2">`
	b := envelope.Builder{
		Synopsis:        script + " \u202eevil\u202c 'single' \"double\" <b>bold</b>",
		Findings:        []string{img, "line one\nline two", "\u2066isolate\u2069 and \u200bzero width"},
		Recommendations: []string{`<style>body{display:none}</style>`, `javascript:window.pwned=3`},
		Offer:           `<a href="javascript:window.pwned=4">click</a>`,
		Stem:            `Is "this" (recommended) safe?`,
		Hatches:         envelope.Hatches{FreeText: true, Dialogue: true},
	}
	b.AddOption(`</script><img src=x onerror="window.pwned=5"> (recommended)`, "\u202e"+script, []byte(`{"tool":"x"}`))
	b.AddOption("Decline in disguise \u202e", `"><svg onload="window.pwned=6">`, []byte(`{"tool":"y"}`))
	e, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	env, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	it, err := approvetest.NewItem(`<img src=x onerror="window.pwned=7">`, env)
	if err != nil {
		t.Fatal(err)
	}
	it.Server = "\u202e" + script
	src := &approvetest.Source{}
	src.Add(it)
	h := serve(t, src)
	sel := card(it.EnvelopeDigest)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(h.URL()),
		chromedp.WaitVisible(chromedp.CSS(sel+" pre.rendering")),
	); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // a few polls, and any onerror or onload
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(window.pwned)`))
	if err != nil || pwned != "undefined" {
		t.Errorf("window.pwned = %s (%v): agent text ran", pwned, err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#pending script, #pending img, #pending svg, #pending b, #pending a, #pending style').length`))
	if err != nil || n != 0 {
		t.Errorf("%d elements made from agent text (%v)", n, err)
	}
	text, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel+" pre.rendering")))
	if err != nil {
		t.Fatal(err)
	}
	if text != envelope.RenderText(e) {
		t.Errorf("the page renders\n%s\nwant envelope.RenderText:\n%s", text, envelope.RenderText(e))
	}
	for _, want := range []string{script, `\u202eevil\u202c`, `\"double\"`, `line one\nline two`, `\u2066isolate\u2069`, `(recommended)`} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendering lacks %q, shown inert", want)
		}
	}
	if c := strings.Count(text, "(recommended)"); c != 1 {
		t.Errorf("the rendering shows (recommended) %d times, want once", c)
	}
	all, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexAny(all, "\u202e\u202c\u2066\u2069\u200b"); i >= 0 {
		t.Errorf("a bidi or invisible format character reaches the page raw at %d: %q", i, all[max(0, i-40):min(len(all), i+40)])
	}
	title, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel+" h2")))
	if err != nil || title != `Tool "<img src=x onerror=\"window.pwned=7\">" on server "\u202e</script><script>window.pwned = 1</script>"` {
		t.Errorf("title %q (%v)", title, err)
	}
	// The buttons quote the labels, so the recommended mark is the page's.
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('`+sel+` .actions button')).map(b => b.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`Approve 1. "</script><img src=x onerror=\"window.pwned=5\"> (recommended)" (recommended)`, `Approve 2. "Decline in disguise \u202e"`, "Decline"}
	if !slices.Equal(labels, want) {
		t.Errorf("buttons %q, want %q", labels, want)
	}
	// The envelope is hostile but its digest is right: the principal may
	// still decide on it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel+" button.decline"))); err != nil {
		t.Fatal(err)
	}
	if got := waitDecisions(t, ctx, src, 1); got[0] != (approvepage.Decision{Envelope: it.EnvelopeDigest, Deny: true}) {
		t.Errorf("decision %+v", got[0])
	}
	noProblems(t, ctx, problems)
}

func TestLyingDigest(t *testing.T) {
	ctx, problems := tab(t)
	src := &approvetest.Source{}
	// Listed under the digest of another envelope: the one the principal
	// would bind by deciding, while the page shows these bytes.
	liar := newItem(t, "pay_invoice", "Pay invoice 42 to ACME now.", "Allow this call once")
	other := newItem(t, "pay_invoice", "Pay invoice 43 to EVIL now.", "Allow this call once")
	liar.EnvelopeDigest = other.EnvelopeDigest
	src.Add(liar)
	// Listed under the digest of bytes that are not an envelope at all.
	broken := approvepage.Item{EnvelopeDigest: hashing.Sum([]byte("x")), Tool: "broken", Envelope: []byte(`{"synopsis": 1}`)}
	src.Add(broken)
	h := serve(t, src)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(h.URL()),
		chromedp.WaitVisible(chromedp.CSS(card(liar.EnvelopeDigest)+" .check.bad")),
		chromedp.WaitVisible(chromedp.CSS(card(broken.EnvelopeDigest)+" .check.bad")),
	); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		it       approvepage.Item
		check    string
		computed string
	}{
		{liar, "Digest mismatch", mustDigest(t, liar.Envelope)},
		{broken, "Not a well-formed envelope", "(none: "},
	} {
		sel := card(tc.it.EnvelopeDigest)
		check, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel+" .check")))
		if err != nil || !strings.HasPrefix(check, tc.check) {
			t.Errorf("%s: the page says %q (%v), want %q…", tc.it.Tool, check, err, tc.check)
		}
		computed, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel+" dd.computed-digest")))
		if err != nil || !strings.HasPrefix(computed, tc.computed) {
			t.Errorf("%s: computed digest shown as %q (%v), want %q", tc.it.Tool, computed, err, tc.computed)
		}
		listed, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel+" dd.listed-digest")))
		if err != nil || listed != tc.it.EnvelopeDigest.String() {
			t.Errorf("%s: listed digest shown as %q (%v)", tc.it.Tool, listed, err)
		}
		enabled, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.querySelectorAll('`+sel+` .actions button')).filter(b => !b.disabled).length`))
		if err != nil || enabled != 0 {
			t.Errorf("%s: %d buttons enabled (%v), want none", tc.it.Tool, enabled, err)
		}
	}
	// Clicking a disabled button does nothing; a button enabled by hand
	// still does not send, because the page checks again before sending.
	sel := card(liar.EnvelopeDigest)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		for (const b of document.querySelectorAll('`+sel+` .actions button')) { b.click(); b.disabled = false; b.click(); }
		return true; })()`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.querySelector('`+sel+` .result').textContent.startsWith('Not sent')`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("the page did not refuse to send: %v", err)
	}
	// The server refuses a decision on it too, even with the page's own
	// session and CSRF token.
	for _, body := range []string{
		`{envelope_digest: '` + liar.EnvelopeDigest.String() + `', decision: 'approve', option: 0}`,
		`{envelope_digest: '` + broken.EnvelopeDigest.String() + `', decision: 'deny'}`,
	} {
		s := fetchStatus(t, ctx, `fetch('/api/decide', {method: 'POST', headers: {'Content-Type': 'application/json',
			'X-CSRF-Token': document.querySelector('meta[name="bbdigest-csrf"]').content}, body: JSON.stringify(`+body+`)})`)
		if s != 409 {
			t.Errorf("POST %s: %d, want 409", body, s)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if d := src.Decisions(); len(d) != 0 {
		t.Errorf("decisions recorded on a lying listing: %v", d)
	}
	noProblems(t, ctx, problems)
}

func mustDigest(t *testing.T, env []byte) string {
	t.Helper()
	d, err := envelope.Digest(env)
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}
