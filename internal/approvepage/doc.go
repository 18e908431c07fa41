// Package approvepage is the approval page of `bbdigest approve serve`: a
// local web page on which a principal sees the envelopes waiting for a
// decision (issue 27, "The approval page") and approves an option or
// declines, without reloading the page.
//
// The page knows nothing of the ledger: New takes a Source, which lists the
// pending envelopes (Item) and records a Decision, signing it with the
// principal's key. The key stays with the Source, on the server's side, and
// never reaches the browser. Listen opens a loopback listener, New makes the
// http.Handler for its address, Handler.URL is the address to print, and
// Serve runs it until its context ends:
//
//	ln, err := approvepage.Listen(ctx, "127.0.0.1:0", approvepage.ListenOptions{})
//	h, err := approvepage.New(store, ln.Addr().String(), nil)
//	fmt.Println(h.URL()) // http://127.0.0.1:PORT/?token=...
//	err = approvepage.Serve(ctx, ln, h)
//
// # What the page shows
//
// Each pending envelope is shown with its tool, server, act digest and the
// time it was emitted (as the Source lists them), the envelope digest the
// Source lists beside the one the browser computed, the envelope rendered as
// envelope.RenderText renders it (all of §9.1: the four briefing slots, the
// options with their reasoning, the recommended one marked, the decline and
// the hatches), one Approve button per option and a Decline button. The page
// polls GET /api/pending every Options.Poll and adds and removes envelopes as
// the list changes. The page records an option or a decline only; the
// hatches of slot 8 are listed and the page says to decline and tell the
// agent for them.
//
// # What each defence proves, and what it does not
//
// The envelope's text is the attacker's (the agent's, or whoever steers it),
// and the page's address is on a machine where other local programs and every
// web page the principal opens can send it requests.
//
//   - The token. New draws 32 bytes from crypto/rand (hex in the URL, as
//     Jupyter's). GET /?token=T, with T compared in constant time, sets an
//     HttpOnly, SameSite=Strict session cookie (an id with its HMAC under a
//     key drawn at New) and redirects to "/", dropping the token from the
//     address bar. Every path, assets included, answers 401 without a cookie
//     and 403 with a token or cookie that is not this handler's. It proves
//     the request comes from someone who was shown the URL (or copied the
//     cookie): it does not prove who that is, and anyone with the URL can
//     decide. The URL is a secret: print it to the principal only.
//   - The Host check. A request whose Host is not the listen address (or
//     localhost:PORT for a loopback one) gets 403 before anything else. It
//     defeats DNS rebinding: a web page whose name is made to resolve to
//     127.0.0.1 still sends its own name as Host, and its requests carry no
//     cookie for this address.
//   - Loopback. Listen refuses an address that is not loopback unless
//     ListenOptions.AllowRemote says otherwise; other hosts cannot connect.
//     It proves nothing about other users of the same machine, who can
//     connect but lack the token.
//   - CSRF. State changes only by POST /api/decide, with the session's CSRF
//     token (an HMAC of the session id, put in the page's HTML, which another
//     origin cannot read) in the X-CSRF-Token header, an Origin header equal
//     to the page's own, a Sec-Fetch-Site (when sent) of same-origin and a
//     JSON body. A page of another site, which cannot read the token and
//     whose Origin differs, cannot make the principal's browser decide.
//   - The Content-Security-Policy (default-src 'none'; script-src 'self'
//     'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; img-src
//     'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'),
//     with X-Content-Type-Options nosniff, Referrer-Policy no-referrer and
//     X-Frame-Options DENY on every response: only the handler's own
//     embedded script, style and WebAssembly run; no inline script, no
//     frame of the page elsewhere (clickjacking), no third-party asset.
//     Every asset is embedded (go:embed) and served by the handler, so the
//     page needs no network beyond its own address, and `approve serve` no
//     Go toolchain.
//   - Escaping. The page is an html/template; the script puts every string
//     from the server into the document with textContent, never innerHTML;
//     the envelope is shown as RenderText renders it (quotes, controls,
//     bidi overrides and other format characters escaped, so nothing the
//     agent wrote can forge a line or a recommended mark, §12.1) and the
//     tool and server names and labels as diag.Quote quotes them. The CSP
//     stops a script that escaping missed.
//   - The in-browser digest. The list carries each envelope's bytes as
//     recorded; the browser hashes them with bbdigest's own envelope parser,
//     canon (strict profile) and hashing, compiled to WebAssembly
//     (assets/approve.wasm, from ./wasm by gen.go), renders the same bytes,
//     and shows the computed digest beside the listed one. When they differ,
//     or the bytes are not a well-formed envelope, the buttons are disabled
//     with a warning, and the script checks again before it sends. The
//     handler checks too, whatever the page says: a POST is refused (409)
//     unless its digest is one that Pending lists at that moment and the
//     listed bytes parse to an envelope with that digest, and (400) unless
//     its option is in range. This proves that what the principal reads is
//     the envelope the decision names: it guards against a bug in the store
//     or the server, or a tampered listing (a ledger whose entry says one
//     digest and holds other bytes). It does not guard against a compromised
//     server binary (which serves the WebAssembly too) nor a compromised
//     browser, which can show one thing and send another; and it checks what
//     the server says the envelope is against what the server says its
//     digest is, not that the agent emitted it.
//
// # Testing
//
// The handler's checks are tested with httptest (approvepage_test.go). The
// page is tested in headless Chromium driven by chromedp, in the module
// ./browsertest (its own go.mod, so chromedp stays out of the library's
// module graph): listing and live updates, approve, decline, the token's
// 401 and 403, an envelope of hostile text, and a Source that lies about a
// digest. Those tests skip without a Chromium; BBDIGEST_REQUIRE_CHROMIUM=1
// turns the skip into a failure. TestAssetsUpToDate rebuilds approve.wasm
// and compares it with the committed one.
package approvepage
