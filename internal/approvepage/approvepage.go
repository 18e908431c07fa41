package approvepage

//go:generate go run gen.go

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
)

// Item is one pending envelope as a Source lists it.
type Item struct {
	// EnvelopeDigest is the digest the source lists the envelope under. The
	// page computes the digest of Envelope itself and refuses to decide when
	// the two differ; so does the handler.
	EnvelopeDigest hashing.Digest
	Tool           string         // the tool the call is for
	Server         string         // the server that offers the tool (may be empty)
	ActDigest      hashing.Digest // the digest of the act the envelope's option binds
	Emitted        time.Time      // when the envelope was recorded as pending
	// Envelope is the envelope's JSON text as recorded: the binding_moment
	// value (or a tool result carrying it, as envelope.Parse accepts). The
	// page is sent these bytes unchanged and hashes and renders them.
	Envelope []byte
}

// Decision is the principal's answer to one pending envelope: an option
// selected (§7.3 "option") or the envelope declined (§7.3 "declined").
type Decision struct {
	Envelope hashing.Digest // the envelope decided, as listed and as computed
	Deny     bool           // declined; Option is then 0 and means nothing
	Option   int            // the zero-based index of the selected option (slot 6)
}

// Source is where the page's pending envelopes come from and where its
// decisions go: the approval store (the ledger-backed one of
// `bbdigest approve`). Its methods are called from the handler's goroutines,
// concurrently.
type Source interface {
	// Pending lists the envelopes waiting for a decision.
	Pending(ctx context.Context) ([]Item, error)
	// Decide records d: it signs the resolution with the principal's key,
	// which stays with the source (the page never sees it), and records it.
	// The handler calls it only for an envelope that Pending lists right
	// before, whose bytes have the listed digest, and (unless Deny) with an
	// option in range. The handler does not serialize its calls: two
	// decisions on one envelope (two tabs, two clicks) can both reach
	// Decide, which must record at most one of them (the ledger's single
	// use) and fail the others. An error is shown to the principal as its
	// message.
	Decide(ctx context.Context, d Decision) error
}

// Options configures a Handler. The zero value is ready to use.
type Options struct {
	// Token is the secret the page's URL carries. Empty (the default):
	// 32 bytes from crypto/rand, in hex. A token given here must be at
	// least 32 characters from [0-9A-Za-z_-].
	Token string
	// Poll is how often the page asks for the pending list; zero means
	// one second. It must be between 100ms and one minute.
	Poll time.Duration
}

// Handler is the approval page. Make one with New; it is safe for concurrent
// use.
type Handler struct {
	src   Source
	addr  string          // host:port of the URL
	hosts map[string]bool // the Host values accepted (addr, and localhost:port for a loopback addr)
	token []byte
	key   [32]byte // the HMAC key of sessions and CSRF tokens
	poll  time.Duration
	index *template.Template
}

// The routes of the handler.
const (
	pathIndex   = "/"
	pathPending = "/api/pending"
	pathDecide  = "/api/decide"
)

// csrfHeader carries the CSRF token of a POST.
const csrfHeader = "X-CSRF-Token"

// maxDecideBody bounds the body of a POST to pathDecide.
const maxDecideBody = 4 << 10

// The Content-Security-Policy of every response: nothing but the handler's
// own script, style and WebAssembly; no inline script or style, no frames,
// no form posts elsewhere.
const contentSecurityPolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed assets
var assets embed.FS

// static are the assets served as they are, with their content type.
var static = map[string]string{
	"/app.js":       "text/javascript; charset=utf-8",
	"/style.css":    "text/css; charset=utf-8",
	"/wasm_exec.js": "text/javascript; charset=utf-8",
	"/approve.wasm": "application/wasm",
}

// New returns the approval page for src, served at addr: the host:port the
// principal's browser is pointed at (the URL's), normally the listener's
// address (Listen). Requests whose Host is not addr (or, when addr is a
// loopback address, localhost with its port) are refused. For a listener on
// every interface (0.0.0.0, with ListenOptions.AllowRemote), addr is the
// name or address and port that the browser uses, which New cannot guess:
// it refuses 0.0.0.0 and [::] as addr.
func New(src Source, addr string, opts *Options) (*Handler, error) {
	if src == nil {
		return nil, errors.New("approvepage: no Source")
	}
	if opts == nil {
		opts = &Options{}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("approvepage: address %q: %w", addr, err)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return nil, fmt.Errorf("approvepage: address %q: the port must be a number from 1 to 65535", addr)
	}
	if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
		// A listener on every interface has no address a browser is
		// pointed at, and the Host check needs that one.
		return nil, fmt.Errorf("approvepage: address %q: no host: give the address the browser is pointed at", addr)
	}
	h := &Handler{src: src, addr: net.JoinHostPort(host, port), poll: opts.Poll}
	h.hosts = map[string]bool{h.addr: true}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() || host == "localhost" {
		h.hosts[net.JoinHostPort("localhost", port)] = true
	}
	if h.poll == 0 {
		h.poll = time.Second
	}
	if h.poll < 100*time.Millisecond || h.poll > time.Minute {
		return nil, fmt.Errorf("approvepage: poll interval %v is not between 100ms and 1m", h.poll)
	}
	if opts.Token == "" {
		var b [32]byte
		rand.Read(b[:]) // never fails (crypto/rand)
		h.token = []byte(hex.EncodeToString(b[:]))
	} else {
		if len(opts.Token) < 32 || strings.Trim(opts.Token, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-") != "" {
			return nil, errors.New("approvepage: the token must be at least 32 characters from [0-9A-Za-z_-]")
		}
		h.token = []byte(opts.Token)
	}
	rand.Read(h.key[:])
	h.index, err = template.ParseFS(assets, "assets/index.html")
	if err != nil {
		return nil, fmt.Errorf("BUG: approvepage: the embedded page does not parse: %w", err)
	}
	return h, nil
}

// URL returns the page's address with its secret token, to print for the
// principal (as Jupyter does): opening it exchanges the token for a session
// cookie. Anyone who has the URL can decide; show it to the principal only.
func (h *Handler) URL() string {
	return "http://" + h.addr + "/?token=" + string(h.token)
}

// cookieName is the session cookie's name. Cookies do not keep ports apart,
// so the port is part of the name: two pages on one host keep their sessions.
func (h *Handler) cookieName() string {
	_, port, _ := net.SplitHostPort(h.addr)
	return "bbdigest_approve_" + port
}

// ServeHTTP serves the page, its assets and its two endpoints: GET
// /api/pending (the list, as JSON) and POST /api/decide (a decision). Every
// response carries the security headers; every request passes the Host check
// and then needs the token (exchanged at "/?token=") or the session cookie.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Cross-Origin-Resource-Policy", "same-origin")
	hdr.Set("Cache-Control", "no-store")

	// DNS rebinding: a page of another site whose name now resolves to
	// this address still sends its own name as Host.
	if !h.hosts[r.Host] {
		h.fail(w, r, http.StatusForbidden, fmt.Sprintf("host %q is not the address this page is served at", r.Host))
		return
	}
	if r.URL.Path == pathIndex && r.URL.Query().Has("token") {
		h.exchange(w, r)
		return
	}
	session, status, msg := h.session(r)
	if status != 0 {
		h.fail(w, r, status, msg)
		return
	}
	switch r.URL.Path {
	case pathIndex:
		if !h.method(w, r, http.MethodGet) {
			return
		}
		h.serveIndex(w, session)
	case pathPending:
		if !h.method(w, r, http.MethodGet) {
			return
		}
		h.servePending(w, r)
	case pathDecide:
		if !h.method(w, r, http.MethodPost) {
			return
		}
		h.serveDecide(w, r, session)
	default:
		ctype, ok := static[r.URL.Path]
		if !ok {
			h.fail(w, r, http.StatusNotFound, "no such page")
			return
		}
		if !h.method(w, r, http.MethodGet) {
			return
		}
		b, err := assets.ReadFile("assets" + r.URL.Path)
		if err != nil {
			h.fail(w, r, http.StatusInternalServerError, "BUG: embedded asset missing: "+err.Error())
			return
		}
		hdr.Set("Content-Type", ctype)
		w.Write(b)
	}
}

// exchange checks the URL's token and, when it is right, sets a session
// cookie and sends the browser to the page without the token in its URL.
func (h *Handler) exchange(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		h.method(w, r, http.MethodGet)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), h.token) != 1 {
		h.fail(w, r, http.StatusForbidden, "wrong token: open the URL the command printed")
		return
	}
	var id [32]byte
	rand.Read(id[:])
	http.SetCookie(w, &http.Cookie{
		Name:     h.cookieName(),
		Value:    hex.EncodeToString(id[:]) + hex.EncodeToString(h.mac("session", id[:])),
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, pathIndex, http.StatusSeeOther)
}

// session returns the session id of r's cookie, or the status and message
// to refuse r with: 401 without a cookie, 403 with one this handler did not
// make.
func (h *Handler) session(r *http.Request) (id []byte, status int, msg string) {
	c, err := r.Cookie(h.cookieName())
	if err != nil {
		return nil, http.StatusUnauthorized, "no session: open the URL with the token that the command printed"
	}
	b, err := hex.DecodeString(c.Value)
	if err != nil || len(b) != 32+sha256.Size || !hmac.Equal(b[32:], h.mac("session", b[:32])) {
		return nil, http.StatusForbidden, "not a session of this page: open the URL with the token that the command printed"
	}
	return b[:32], 0, ""
}

// mac returns HMAC-SHA256 under the handler's key of purpose and id.
func (h *Handler) mac(purpose string, id []byte) []byte {
	m := hmac.New(sha256.New, h.key[:])
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(id)
	return m.Sum(nil)
}

// csrf returns the CSRF token of a session.
func (h *Handler) csrf(session []byte) string {
	return hex.EncodeToString(h.mac("csrf", session))
}

// method reports whether r uses method, and refuses it with 405 if not.
func (h *Handler) method(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	h.fail(w, r, http.StatusMethodNotAllowed, r.Method+" is not allowed here; use "+method)
	return false
}

// fail writes an error: as JSON {"error": msg} to the API's paths, as plain
// text elsewhere.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, "bbdigest approve: "+strconv.Itoa(status)+" "+http.StatusText(status)+": "+msg+"\n")
}

// writeJSON writes v as JSON. encoding/json escapes <, > and & in strings,
// so no agent text is markup in the response even to a sniffing reader.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"BUG: approvepage: response not encodable"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func (h *Handler) serveIndex(w http.ResponseWriter, session []byte) {
	var b strings.Builder
	err := h.index.Execute(&b, struct {
		CSRF   string
		PollMS int64
	}{h.csrf(session), h.poll.Milliseconds()})
	if err != nil {
		http.Error(w, "BUG: approvepage: page template: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, b.String())
}

// pendingItem is one item of the list the page polls. Envelope is the
// recorded bytes in base64 (encoding/json's []byte), so that the browser
// hashes exactly them, even when they are not valid UTF-8.
type pendingItem struct {
	EnvelopeDigest hashing.Digest `json:"envelope_digest"`
	Tool           string         `json:"tool"`
	Server         string         `json:"server"`
	ActDigest      hashing.Digest `json:"act_digest"`
	Emitted        string         `json:"emitted"`
	Envelope       []byte         `json:"envelope"`
}

func (h *Handler) servePending(w http.ResponseWriter, r *http.Request) {
	items, err := h.src.Pending(r.Context())
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "cannot list the pending envelopes: " + err.Error()})
		return
	}
	list := make([]pendingItem, len(items))
	for i, it := range items {
		list[i] = pendingItem{it.EnvelopeDigest, it.Tool, it.Server, it.ActDigest, "", it.Envelope}
		if !it.Emitted.IsZero() {
			list[i].Emitted = it.Emitted.UTC().Format(time.RFC3339)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": list})
}

// decideRequest is the body of a POST to pathDecide.
type decideRequest struct {
	EnvelopeDigest hashing.Digest `json:"envelope_digest"`
	Decision       string         `json:"decision"` // "approve" or "deny"
	Option         *int           `json:"option"`   // approve only
}

func (h *Handler) serveDecide(w http.ResponseWriter, r *http.Request, session []byte) {
	// A state change needs the session's CSRF token, which only the page
	// (from its own HTML) has, and must come from the page's own origin.
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(csrfHeader)), []byte(h.csrf(session))) != 1 {
		h.fail(w, r, http.StatusForbidden, "missing or wrong CSRF token: reload the page")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "http://"+r.Host {
		h.fail(w, r, http.StatusForbidden, fmt.Sprintf("origin %q is not this page's", origin))
		return
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		h.fail(w, r, http.StatusForbidden, fmt.Sprintf("Sec-Fetch-Site %q: only the page itself may decide", site))
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		h.fail(w, r, http.StatusUnsupportedMediaType, "the body must be application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDecideBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			h.fail(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", maxDecideBody))
		} else {
			h.fail(w, r, http.StatusBadRequest, "cannot read the body: "+err.Error())
		}
		return
	}
	var req decideRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		h.fail(w, r, http.StatusBadRequest, "the body is not a decision: "+err.Error())
		return
	}
	if dec.More() {
		h.fail(w, r, http.StatusBadRequest, "the body is not one decision: data after it")
		return
	}
	d := Decision{Envelope: req.EnvelopeDigest}
	switch {
	case req.Decision == "deny" && req.Option == nil:
		d.Deny = true
	case req.Decision == "approve" && req.Option != nil:
		d.Option = *req.Option
	default:
		h.fail(w, r, http.StatusBadRequest, `the decision must be "approve" with an option or "deny" without one`)
		return
	}

	// The page has checked the digest; the server checks it again against
	// its own list, right now, whatever the page says.
	items, err := h.src.Pending(r.Context())
	if err != nil {
		h.fail(w, r, http.StatusInternalServerError, "cannot list the pending envelopes: "+err.Error())
		return
	}
	var item *Item
	for i := range items {
		if items[i].EnvelopeDigest == d.Envelope {
			item = &items[i]
			break
		}
	}
	if item == nil {
		h.fail(w, r, http.StatusConflict, "envelope "+d.Envelope.String()+" is not pending (decided already, or never listed)")
		return
	}
	env, err := envelope.Parse(item.Envelope)
	if err != nil {
		h.fail(w, r, http.StatusConflict, "envelope "+d.Envelope.String()+" as recorded is not an envelope: "+err.Error())
		return
	}
	if got := env.Digest(); got != d.Envelope {
		h.fail(w, r, http.StatusConflict, "envelope listed as "+d.Envelope.String()+" has the digest "+got.String()+": refusing to decide on it")
		return
	}
	if !d.Deny && (d.Option < 0 || d.Option >= env.NumOptions()) {
		h.fail(w, r, http.StatusBadRequest, fmt.Sprintf("option %d is out of range: the envelope has %d options (0 to %d)", d.Option, env.NumOptions(), env.NumOptions()-1))
		return
	}
	if err := h.src.Decide(r.Context(), d); err != nil {
		h.fail(w, r, http.StatusInternalServerError, "the decision was not recorded: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "envelope_digest": d.Envelope, "deny": d.Deny, "option": d.Option})
}
