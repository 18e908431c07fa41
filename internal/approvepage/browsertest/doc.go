// Package browsertest tests the approval page (internal/approvepage) in a
// real browser: headless Chromium driven by github.com/chromedp/chromedp.
// It is a module of its own, so that chromedp stays out of the library's
// module graph, as go-internal's testscript does in cmd/bbdigest/scripttest.
//
// The tests start one browser for the test binary and give each test a tab
// in a browser context of its own. They look for $BBDIGEST_CHROMIUM, then
// chromium, chromium-browser, google-chrome and headless-shell on PATH, and
// skip when there is none; BBDIGEST_REQUIRE_CHROMIUM=1 (set by CI) makes
// that a failure. TestServeLoop (serve_test.go) runs the approval loop end
// to end with the bbdigest command, which it builds from this checkout with
// the go command: gate --ask, approve serve and receipts verify as
// processes, the page in Chromium. Run them with:
//
//	cd internal/approvepage/browsertest && go test ./...
package browsertest
