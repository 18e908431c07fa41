package approvepage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/approvepage"
	"github.com/bbdigest/bbdigest/internal/approvepage/approvetest"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// page is one handler behind an httptest server.
type page struct {
	src  *approvetest.Source
	h    *approvepage.Handler
	ts   *httptest.Server
	addr string
}

func newPage(t *testing.T) *page {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	p := &page{src: &approvetest.Source{}, ts: ts, addr: ts.Listener.Addr().String()}
	h, err := approvepage.New(p.src, p.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.h = h
	ts.Config.Handler = h
	ts.Start()
	t.Cleanup(ts.Close)
	return p
}

// addDraft lists the envelope of the draft's §6.4 under its true digest.
func (p *page) addDraft(t *testing.T) approvepage.Item {
	t.Helper()
	it, err := approvetest.NewItem("book_trip", demo.DraftEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	if it.EnvelopeDigest.String() != demo.DraftEnvelopeDigest {
		t.Fatalf("draft envelope digest %v, want %s", it.EnvelopeDigest, demo.DraftEnvelopeDigest)
	}
	p.src.Add(it)
	return it
}

// session is a client logged in to a page, with the page's CSRF token.
type session struct {
	c    *http.Client
	csrf string
}

var csrfMeta = regexp.MustCompile(`<meta name="bbdigest-csrf" content="([0-9a-f]{64})">`)

func (p *page) login(t *testing.T) *session {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	resp, err := c.Get(p.h.URL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" {
		t.Fatalf("GET %s: %s at %s, want 200 at / without the token", p.h.URL(), resp.Status, resp.Request.URL)
	}
	m := csrfMeta.FindSubmatch(body)
	if m == nil {
		t.Fatalf("the page has no CSRF token:\n%s", body)
	}
	return &session{c: c, csrf: string(m[1])}
}

// do sends a request to path with the given header (Host: set through
// "Host"), using c (nil: no cookies).
func (p *page) do(t *testing.T, c *http.Client, method, path string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, p.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	if c == nil {
		c = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// post sends a decision with the headers a page sends, changed by edit.
func (p *page) post(t *testing.T, s *session, body string, edit func(map[string]string)) (*http.Response, string) {
	t.Helper()
	h := map[string]string{
		"Content-Type":   "application/json",
		"X-CSRF-Token":   s.csrf,
		"Origin":         "http://" + p.addr,
		"Sec-Fetch-Site": "same-origin",
	}
	if edit != nil {
		edit(h)
	}
	return p.do(t, s.c, http.MethodPost, "/api/decide", h, body)
}

const wantCSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func checkHeaders(t *testing.T, what string, resp *http.Response) {
	t.Helper()
	for k, want := range map[string]string{
		"Content-Security-Policy": wantCSP,
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"X-Frame-Options":         "DENY",
		"Cache-Control":           "no-store",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %s: %q, want %q", what, k, got, want)
		}
	}
}

var paths = []string{"/", "/api/pending", "/app.js", "/style.css", "/wasm_exec.js", "/approve.wasm", "/no-such-page"}

func TestNoTokenIs401(t *testing.T) {
	p := newPage(t)
	p.addDraft(t)
	for _, path := range paths {
		resp, body := p.do(t, nil, http.MethodGet, path, nil, "")
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a session: %s, want 401", path, resp.Status)
		}
		if strings.Contains(body, "sha256:") || strings.Contains(body, "Go(") {
			t.Errorf("GET %s without a session gave away content: %.200s", path, body)
		}
		checkHeaders(t, "GET "+path, resp)
	}
	resp, _ := p.do(t, nil, http.MethodPost, "/api/decide", map[string]string{"Content-Type": "application/json", "Origin": "http://" + p.addr},
		`{"envelope_digest":"`+demo.DraftEnvelopeDigest+`","decision":"deny"}`)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /api/decide without a session: %s, want 401", resp.Status)
	}
	if d := p.src.Decisions(); len(d) != 0 {
		t.Errorf("decisions recorded without a session: %v", d)
	}
}

func TestWrongTokenIs403(t *testing.T) {
	p := newPage(t)
	p.addDraft(t)
	token := strings.TrimPrefix(p.h.URL(), "http://"+p.addr+"/?token=")
	if len(token) != 64 || strings.Trim(token, "0123456789abcdef") != "" {
		t.Fatalf("token %q is not 32 random bytes in hex", token)
	}
	for _, bad := range []string{"", "x", token[:63], token + "0", strings.ToUpper(token)} {
		resp, _ := p.do(t, nil, http.MethodGet, "/?token="+bad, nil, "")
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET /?token=%s: %s, want 403", bad, resp.Status)
		}
		if c := resp.Header.Get("Set-Cookie"); c != "" {
			t.Errorf("GET /?token=%s set a cookie: %s", bad, c)
		}
		checkHeaders(t, "wrong token", resp)
	}

	// A cookie of the right name that this handler did not make: forged,
	// or made by another handler (another key) at the same address.
	other, err := approvepage.New(p.src, p.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	other.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, other.URL(), nil))
	otherCookie := rec.Result().Cookies()
	if len(otherCookie) != 1 {
		t.Fatalf("the other handler set %d cookies", len(otherCookie))
	}
	name := otherCookie[0].Name
	for _, value := range []string{otherCookie[0].Value, strings.Repeat("0", 128), "zz"} {
		h := map[string]string{"Cookie": name + "=" + value}
		for _, path := range paths {
			if resp, _ := p.do(t, nil, http.MethodGet, path, h, ""); resp.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s with cookie %.20s…: %s, want 403", path, value, resp.Status)
			}
		}
		h["Content-Type"], h["Origin"] = "application/json", "http://"+p.addr
		if resp, _ := p.do(t, nil, http.MethodPost, "/api/decide", h, `{"envelope_digest":"`+demo.DraftEnvelopeDigest+`","decision":"deny"}`); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST /api/decide with cookie %.20s…: %s, want 403", value, resp.Status)
		}
	}
	// Another handler's token is not this one's.
	otherToken := strings.TrimPrefix(other.URL(), "http://"+p.addr+"/?token=")
	if resp, _ := p.do(t, nil, http.MethodGet, "/?token="+otherToken, nil, ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("another handler's token: %s, want 403", resp.Status)
	}
	if d := p.src.Decisions(); len(d) != 0 {
		t.Errorf("decisions recorded without a session: %v", d)
	}
}

func TestTokenExchange(t *testing.T) {
	p := newPage(t)
	resp, _ := p.do(t, nil, http.MethodGet, strings.TrimPrefix(p.h.URL(), "http://"+p.addr), nil, "")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("token exchange: %s to %q, want 303 to /", resp.Status, resp.Header.Get("Location"))
	}
	checkHeaders(t, "token exchange", resp)
	cs := resp.Cookies()
	if len(cs) != 1 {
		t.Fatalf("token exchange set %d cookies, want 1", len(cs))
	}
	c := cs[0]
	_, port, _ := net.SplitHostPort(p.addr)
	if c.Name != "bbdigest_approve_"+port || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie %+v: want bbdigest_approve_%s, HttpOnly, SameSite=Strict, Path=/", c, port)
	}
	if c.Value == strings.TrimPrefix(p.h.URL(), "http://"+p.addr+"/?token=") {
		t.Error("the cookie is the URL's token")
	}
	// The token is not for a POST.
	if resp, _ := p.do(t, nil, http.MethodPost, "/?token=x", nil, ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /?token=: %s, want 405", resp.Status)
	}

	s := p.login(t)
	resp, body := p.do(t, s.c, http.MethodGet, "/", nil, "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET / with a session: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	checkHeaders(t, "GET /", resp)
	for _, want := range []string{`<script src="/wasm_exec.js" defer>`, `<script src="/app.js" defer>`, `<link rel="stylesheet" href="/style.css">`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "style=") || strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("the page has inline script or style, or a link off the page:\n%s", body)
	}
	for path, ctype := range map[string]string{"/app.js": "text/javascript; charset=utf-8", "/style.css": "text/css; charset=utf-8", "/wasm_exec.js": "text/javascript; charset=utf-8", "/approve.wasm": "application/wasm"} {
		resp, body := p.do(t, s.c, http.MethodGet, path, nil, "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != ctype || len(body) == 0 {
			t.Errorf("GET %s: %s %q %d bytes, want 200 %q", path, resp.Status, resp.Header.Get("Content-Type"), len(body), ctype)
		}
	}
	if resp, _ := p.do(t, s.c, http.MethodGet, "/nothing", nil, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing: %s, want 404", resp.Status)
	}
	if resp, _ := p.do(t, s.c, http.MethodPost, "/api/pending", nil, ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/pending: %s, want 405", resp.Status)
	}
	if resp, _ := p.do(t, s.c, http.MethodGet, "/api/decide", nil, ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/decide: %s, want 405", resp.Status)
	}
}

func TestHostCheck(t *testing.T) {
	p := newPage(t)
	p.addDraft(t)
	s := p.login(t)
	_, port, _ := net.SplitHostPort(p.addr)
	// The cookie jar files cookies under the Host header, so the session's
	// cookie is given by hand: these requests have a valid session.
	u, _ := url.Parse(p.ts.URL)
	cookie := s.c.Jar.Cookies(u)[0].String()
	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1", "127.0.0.1:1", "localhost.evil.example:" + port, "0.0.0.0:" + port} {
		for _, path := range []string{"/", "/api/pending", "/app.js", strings.TrimPrefix(p.h.URL(), "http://"+p.addr)} {
			resp, body := p.do(t, nil, http.MethodGet, path, map[string]string{"Host": host, "Cookie": cookie}, "")
			if resp.StatusCode != http.StatusForbidden || strings.Contains(body, "sha256:") {
				t.Errorf("GET %s with Host %s: %s, want 403", path, host, resp.Status)
			}
			if resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("GET %s with Host %s set a cookie", path, host)
			}
		}
		resp, _ := p.do(t, nil, http.MethodPost, "/api/decide", map[string]string{
			"Host": host, "Cookie": cookie, "Origin": "http://" + host, "X-CSRF-Token": s.csrf, "Content-Type": "application/json",
		}, `{"envelope_digest":"`+demo.DraftEnvelopeDigest+`","decision":"deny"}`)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST with Host %s: %s, want 403", host, resp.Status)
		}
	}
	if resp, _ := p.do(t, nil, http.MethodGet, "/api/pending", map[string]string{"Host": "localhost:" + port, "Cookie": cookie}, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET with Host localhost:%s on a loopback page: %s, want 200", port, resp.Status)
	}
	if resp, _ := p.do(t, nil, http.MethodGet, "/api/pending", map[string]string{"Cookie": cookie}, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET with the session's cookie by hand: %s, want 200", resp.Status)
	}
	if d := p.src.Decisions(); len(d) != 0 {
		t.Errorf("decisions recorded through a wrong Host: %v", d)
	}
}

func TestPending(t *testing.T) {
	p := newPage(t)
	draft := p.addDraft(t)
	hostile := draft
	hostile.Tool = `</script><script>alert(1)</script>`
	hostile.Envelope = []byte("\xff not UTF-8")
	hostile.EnvelopeDigest = hashing.Sum(hostile.Envelope)
	hostile.Emitted = time.Time{}
	p.src.Add(hostile)
	s := p.login(t)
	resp, body := p.do(t, s.c, http.MethodGet, "/api/pending", nil, "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /api/pending: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(body, "<") {
		t.Errorf("the list has a raw '<': %s", body)
	}
	var got struct {
		Items []struct {
			EnvelopeDigest string `json:"envelope_digest"`
			Tool           string `json:"tool"`
			Server         string `json:"server"`
			ActDigest      string `json:"act_digest"`
			Emitted        string `json:"emitted"`
			Envelope       []byte `json:"envelope"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 2 {
		t.Fatalf("%d items, want 2: %s", len(got.Items), body)
	}
	i0, i1 := got.Items[0], got.Items[1]
	if i0.EnvelopeDigest != demo.DraftEnvelopeDigest || i0.Tool != "book_trip" || i0.Server != "test-server" ||
		i0.ActDigest != draft.ActDigest.String() || i0.Emitted != "2026-10-13T12:00:00Z" || !bytes.Equal(i0.Envelope, demo.DraftEnvelope()) {
		t.Errorf("item 0: %+v", i0)
	}
	if i1.Tool != hostile.Tool || !bytes.Equal(i1.Envelope, hostile.Envelope) || i1.Emitted != "" {
		t.Errorf("item 1 is not the bytes and names as listed: %+v", i1)
	}
}

func TestDecideRefusals(t *testing.T) {
	p := newPage(t)
	p.addDraft(t)
	liar, err := approvetest.NewItem("liar", demo.DraftEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	liar.EnvelopeDigest = hashing.Sum([]byte("another envelope"))
	p.src.Add(liar)
	s := p.login(t)
	s2 := p.login(t)
	if s.csrf == s2.csrf {
		t.Fatal("two sessions have one CSRF token")
	}
	deny := `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"deny"}`
	for _, tc := range []struct {
		name string
		body string
		edit func(map[string]string)
		want int
	}{
		{"no CSRF token", deny, func(h map[string]string) { delete(h, "X-CSRF-Token") }, 403},
		{"wrong CSRF token", deny, func(h map[string]string) { h["X-CSRF-Token"] = strings.Repeat("0", 64) }, 403},
		{"another session's CSRF token", deny, func(h map[string]string) { h["X-CSRF-Token"] = s2.csrf }, 403},
		{"no Origin", deny, func(h map[string]string) { delete(h, "Origin") }, 403},
		{"another Origin", deny, func(h map[string]string) { h["Origin"] = "http://evil.example" }, 403},
		{"null Origin", deny, func(h map[string]string) { h["Origin"] = "null" }, 403},
		{"cross-site fetch", deny, func(h map[string]string) { h["Sec-Fetch-Site"] = "cross-site" }, 403},
		{"same-site fetch", deny, func(h map[string]string) { h["Sec-Fetch-Site"] = "same-site" }, 403},
		{"form body", deny, func(h map[string]string) { h["Content-Type"] = "application/x-www-form-urlencoded" }, 415},
		{"text body", deny, func(h map[string]string) { h["Content-Type"] = "text/plain" }, 415},
		{"not JSON", `envelope_digest=x`, nil, 400},
		{"two values", deny + deny, nil, 400},
		{"unknown member", `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"deny","answer":"x"}`, nil, 400},
		{"bad digest", `{"envelope_digest":"sha256:00","decision":"deny"}`, nil, 400},
		{"approve without option", `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"approve"}`, nil, 400},
		{"deny with option", `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"deny","option":0}`, nil, 400},
		{"other decision", `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"question"}`, nil, 400},
		{"option out of range", `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"approve","option":2}`, nil, 400},
		{"negative option", `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"approve","option":-1}`, nil, 400},
		{"too large", `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"deny"}` + strings.Repeat(" ", 5000), nil, 413},
		{"not listed", `{"envelope_digest":"` + hashing.Sum(nil).String() + `","decision":"deny"}`, nil, 409},
		{"listed under a lie", `{"envelope_digest":"` + liar.EnvelopeDigest.String() + `","decision":"approve","option":0}`, nil, 409},
		{"listed under a lie, deny", `{"envelope_digest":"` + liar.EnvelopeDigest.String() + `","decision":"deny"}`, nil, 409},
	} {
		resp, body := p.post(t, s, tc.body, tc.edit)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %s %s, want %d", tc.name, resp.Status, body, tc.want)
		}
		var e struct{ Error string }
		if json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
			t.Errorf("%s: the body is not a JSON error: %s", tc.name, body)
		}
		checkHeaders(t, tc.name, resp)
	}
	if d := p.src.Decisions(); len(d) != 0 {
		t.Fatalf("decisions recorded from refused POSTs: %v", d)
	}

	resp, body := p.post(t, s, `{"envelope_digest":"`+demo.DraftEnvelopeDigest+`","decision":"approve","option":1}`, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("approve: %s %s", resp.Status, body)
	}
	want := approvepage.Decision{Envelope: mustDigest(t, demo.DraftEnvelopeDigest), Option: 1}
	if d := p.src.Decisions(); len(d) != 1 || d[0] != want {
		t.Fatalf("decisions %v, want [%v]", d, want)
	}
	// Decided: no longer pending, so a second decision is refused.
	if resp, body := p.post(t, s, deny, nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("deny after approve: %s %s, want 409", resp.Status, body)
	}
}

func mustDigest(t *testing.T, s string) hashing.Digest {
	t.Helper()
	d, err := hashing.ParseDigest(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDecideDenyAndSourceError(t *testing.T) {
	p := newPage(t)
	p.addDraft(t)
	s := p.login(t)
	deny := `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","decision":"deny"}`
	p.src.DecideErr = errors.New("the ledger is locked by another process")
	resp, body := p.post(t, s, deny, nil)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "the ledger is locked by another process") {
		t.Errorf("deny with a failing Source: %s %s, want 500 with its message", resp.Status, body)
	}
	p.src.DecideErr = nil
	resp, body = p.post(t, s, deny, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("deny: %s %s", resp.Status, body)
	}
	want := approvepage.Decision{Envelope: mustDigest(t, demo.DraftEnvelopeDigest), Deny: true}
	if d := p.src.Decisions(); len(d) != 1 || d[0] != want {
		t.Fatalf("decisions %v, want [%v]", d, want)
	}
}

func TestNew(t *testing.T) {
	src := &approvetest.Source{}
	for _, tc := range []struct {
		name string
		src  approvepage.Source
		addr string
		opts *approvepage.Options
	}{
		{"no source", nil, "127.0.0.1:8080", nil},
		{"no port", src, "127.0.0.1", nil},
		{"port 0", src, "127.0.0.1:0", nil},
		{"port not a number", src, "127.0.0.1:http", nil},
		{"no host", src, ":8080", nil},
		{"every interface", src, "0.0.0.0:8080", nil},
		{"every interface, IPv6", src, "[::]:8080", nil},
		{"short token", src, "127.0.0.1:8080", &approvepage.Options{Token: "secret"}},
		{"token with other characters", src, "127.0.0.1:8080", &approvepage.Options{Token: strings.Repeat("a", 40) + "&x=1"}},
		{"poll too fast", src, "127.0.0.1:8080", &approvepage.Options{Poll: time.Millisecond}},
		{"poll too slow", src, "127.0.0.1:8080", &approvepage.Options{Poll: time.Hour}},
	} {
		if h, err := approvepage.New(tc.src, tc.addr, tc.opts); err == nil || !strings.HasPrefix(err.Error(), "approvepage: ") {
			t.Errorf("%s: New = %v, %v; want an approvepage error", tc.name, h, err)
		}
	}
	token := strings.Repeat("Ab-_9", 8)
	h, err := approvepage.New(src, "[::1]:8080", &approvepage.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h.URL(), "http://[::1]:8080/?token="+token; got != want {
		t.Errorf("URL %s, want %s", got, want)
	}
	h1, _ := approvepage.New(src, "127.0.0.1:8080", nil)
	h2, _ := approvepage.New(src, "127.0.0.1:8080", nil)
	if h1.URL() == h2.URL() {
		t.Error("two handlers drew the same token")
	}
}

func TestListen(t *testing.T) {
	ctx := t.Context()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "8.8.8.8:0"} {
		ln, err := approvepage.Listen(ctx, addr, approvepage.ListenOptions{})
		if err == nil {
			ln.Close()
			t.Errorf("Listen(%s) opened %s, want a refusal", addr, ln.Addr())
		} else if !strings.Contains(err.Error(), "loopback") {
			t.Errorf("Listen(%s): %v, want a refusal naming loopback", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := approvepage.Listen(ctx, addr, approvepage.ListenOptions{})
		if err != nil {
			t.Errorf("Listen(%s): %v", addr, err)
			continue
		}
		ln.Close()
	}
	ln, err := approvepage.Listen(ctx, "0.0.0.0:0", approvepage.ListenOptions{AllowRemote: true})
	if err != nil {
		t.Errorf("Listen(0.0.0.0:0) with AllowRemote: %v", err)
	} else {
		ln.Close()
	}
	if _, err := approvepage.Listen(ctx, "127.0.0.1", approvepage.ListenOptions{}); err == nil {
		t.Error("Listen without a port succeeded")
	}
}

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	ln, err := approvepage.Listen(ctx, "127.0.0.1:0", approvepage.ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := approvepage.New(&approvetest.Source{}, ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- approvepage.Serve(ctx, ln, h) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/api/pending")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET without a session: %s, want 401", resp.Status)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/"); err == nil {
		t.Error("the listener still answers after Serve returned")
	}
}

// TestAssetsUpToDate runs gen.go into a temporary directory and compares
// what it makes with the committed assets: approve.wasm must be the build
// of ./wasm (and so of the envelope, canon and hashing packages as they are
// now) by the Go that approve.wasm.version names, and wasm_exec.js that
// Go's loader. After a change to any of them, run go generate in
// internal/approvepage.
func TestAssetsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the WebAssembly module (several seconds); not in -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to rebuild approve.wasm with")
	}
	want, err := os.ReadFile("assets/approve.wasm.version")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gobin, "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	if have := strings.TrimSpace(string(out)); have != strings.TrimSpace(string(want)) {
		t.Skipf("assets/approve.wasm was made by %s and this is %s: another Go makes other bytes, so there is nothing to compare", strings.TrimSpace(string(want)), have)
	}
	dir := t.TempDir()
	cmd := exec.Command(gobin, "run", "gen.go", "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, out)
	}
	for _, name := range []string{"approve.wasm", "wasm_exec.js", "approve.wasm.version"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(filepath.Join("assets", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, committed) {
			t.Errorf("assets/%s is not what gen.go makes now (%d bytes, committed %d): run go generate in internal/approvepage", name, len(got), len(committed))
		}
	}
}
