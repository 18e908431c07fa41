package main

import (
	"strconv"
	"testing"

	"github.com/bbdigest/bbdigest/internal/demo"
)

// TestDemo runs bbdigest demo without the throughput measurement.
func TestDemo(t *testing.T) {
	runCases(t, []runCase{
		{name: "demo", args: []string{"demo", "--duration=0"},
			outRE: `(?m)^envelope-draft-6.4 +` + strconv.Itoa(demo.DraftCanonicalLen) + `  ` + demo.DraftEnvelopeDigest + `  matches draft 6.4$`},
		{name: "demo arg", args: []string{"demo", "x"}, code: 2, errRE: `^bbdigest: error: demo: unexpected argument "x"\n`},
		{name: "demo negative", args: []string{"demo", "--duration", "-1ms"}, code: 2, errRE: `^bbdigest: error: demo: negative --duration -1ms\n`},
	})
}
