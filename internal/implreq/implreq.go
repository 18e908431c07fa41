// Package implreq reads the environment variables with which a test machine
// declares the implementations it must have (BBDIGEST_REQUIRE_IMPL for the
// SHA-256 paths, BBDIGEST_REQUIRE_CANON for canon's), so that tests fail
// rather than skip a path that CI says is there.
package implreq

import (
	"os"
	"strings"
)

// Names returns the comma-separated names in the environment variable env,
// trimmed, empty ones dropped.
func Names(env string) []string {
	var s []string
	for _, n := range strings.Split(os.Getenv(env), ",") {
		if n = strings.TrimSpace(n); n != "" {
			s = append(s, n)
		}
	}
	return s
}
