// Package fuzz holds differential tests that compare package canon with
// other RFC 8785 implementations: github.com/gowebpki/jcs,
// github.com/go-json-experiment/json/jsontext and, through Node.js, the npm
// package canonicalize; and the member-name fold by which package act
// refuses a spelling of a name it reads (internal/jsonread's fold) with
// go-json-experiment/json's case-insensitive matching
// (jsonname_test.go). It contains test code only, in a module of its own
// (github.com/bbdigest/bbdigest/fuzz, with the library replaced by ../), so
// the peers never enter the library's go.mod or a user's module graph.
//
// Run the cross-implementation fuzzer with
//
//	cd fuzz && go test -run '^$' -fuzz FuzzCanonicalizeVsReference -fuzztime 60s
//
// Every disagreement the tests tolerate is classified in divergence_test.go
// and described in DIVERGENCES.md.
package fuzz
