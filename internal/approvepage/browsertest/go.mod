module github.com/bbdigest/bbdigest/internal/approvepage/browsertest

go 1.26.0

require (
	github.com/bbdigest/bbdigest v0.0.0
	github.com/chromedp/cdproto v0.160.1
	github.com/chromedp/chromedp v0.23.1
)

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/bbdigest/bbdigest => ../../../
