// Package fuzz holds differential tests that compare package canon with
// other RFC 8785 implementations: github.com/gowebpki/jcs,
// github.com/go-json-experiment/json/jsontext and, through Node.js, the npm
// package canonicalize. It contains test code only, so the peers never
// enter the library's import graph.
//
// Run the cross-implementation fuzzer with
//
//	go test ./fuzz -run '^$' -fuzz FuzzCanonicalizeVsReference -fuzztime 60s
//
// Every disagreement the tests tolerate is classified in divergence_test.go
// and described in DIVERGENCES.md.
package fuzz
