package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/demo"
)

// TestDigest runs bbdigest digest on one input and on several, where a
// rejected or missing input does not stop the others.
func TestDigest(t *testing.T) {
	runCases(t, []runCase{
		{name: "digest one", args: []string{"digest", "a.json"}, stdout: sha(aCanon) + "\n"},
		{name: "digest stdin", args: []string{"digest"}, stdin: testFiles["a.json"], stdout: sha(aCanon) + "\n"},
		{name: "digest envelope", args: []string{"digest", "env.json"}, stdout: demo.DraftEnvelopeDigest + "\n"},
		{name: "digest actions", args: []string{"digest", "act1.json", "act2.json"},
			stdout: demo.DraftAction1Digest + "  act1.json\n" + demo.DraftAction2Digest + "  act2.json\n"},
		{name: "digest several", args: []string{"digest", "a.json", "-", "b.json"}, stdin: "[]",
			stdout: sha(aCanon) + "  a.json\n" + sha("[]") + "  -\n" + sha(bCanon) + "  b.json\n"},
		{name: "digest rejected continues", args: []string{"digest", "dup.json", "a.json", "frac.json", "b.json"}, code: 1,
			stdout: sha(aCanon) + "  a.json\n" + sha(bCanon) + "  b.json\n",
			errRE:  `^bbdigest: error: dup.json: "/a": duplicate-name: .*\nbbdigest: error: frac.json: "/0": non-integer: .*\n$`},
		{name: "digest missing continues", args: []string{"digest", "nope.json", "a.json", "dup.json"}, code: 2,
			stdout: sha(aCanon) + "  a.json\n",
			errRE:  `^bbdigest: error: nope.json: open: no such file or directory\nbbdigest: error: dup.json: "/a": duplicate-name: .*\n$`},
		{name: "digest rfc8785", args: []string{"digest", "--profile", "rfc8785", "frac.json"}, stdout: sha("[0.5]") + "\n"},
		{name: "digest lines multiple", args: []string{"digest", "--lines", "a.json", "b.json"}, code: 2,
			errRE: `^bbdigest: error: digest: --lines reads one input, not 2\n`},
		{name: "digest after dashdash", args: []string{"digest", "--", "-nope"}, code: 2,
			errRE: `^bbdigest: error: -nope: open: no such file or directory\n$`},
	})
}

func TestWriteErrorStops(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"digest", "-", "-", "-"}, strings.NewReader("[]"), errWriter{}, &stderr)
	if code != exitUsage || stderr.String() != "bbdigest: error: disk full\n" {
		t.Errorf("exit code %d, stderr %q; want %d and one error", code, stderr.String(), exitUsage)
	}
}
