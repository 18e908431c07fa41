package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestArchiveGen checks archive gen end to end: the same archive for the
// same flags, every record of envelopes and mixed accepted by rehash,
// every claim verified but the --wrong ones, each of which verify finds;
// and the usage errors.
func TestArchiveGen(t *testing.T) {
	gen := func(args ...string) string {
		t.Helper()
		out, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", "gen"}, args...)...)
		if code != exitOK || stderr != "" {
			t.Fatalf("gen %q: exit code %d, stderr %q", args, code, stderr)
		}
		return out
	}
	for _, kind := range []string{"envelopes", "mixed"} {
		a := gen("--records", "300", "--kind", kind, "--seed", "5")
		if b := gen("--records", "300", "--kind", kind, "--seed", "5"); a != b || strings.Count(a, "\n") != 300 {
			t.Errorf("%s: not deterministic, or not 300 lines", kind)
		}
		_, stderr, code := archiveCall(t, 0, strings.NewReader(a), "archive", "rehash")
		if code != exitOK || stderr != "bbdigest: summary: 300 records, 300 accepted, 0 rejected\n" {
			t.Errorf("%s: rehash: exit code %d, %q", kind, code, stderr)
		}
	}
	claims := gen("--records", "500", "--kind", "claims", "--wrong", "9")
	out, stderr, code := archiveCall(t, 0, strings.NewReader(claims), "archive", "verify")
	if code != exitRejected || stderr != "bbdigest: summary: 500 records, 491 ok, 9 failed (mismatch 9)\n" {
		t.Errorf("claims: verify: exit code %d, %q", code, stderr)
	}
	if n := strings.Count(out, `"ok":false,"digest":"sha256:`); n != 9 {
		t.Errorf("claims: %d mismatches in the output, want 9", n)
	}
	if _, stderr, code := archiveCall(t, 0, strings.NewReader(gen("--records", "50", "--kind", "claims", "--canonical")), "archive", "verify"); code != exitOK {
		t.Errorf("canonical claims: verify: exit code %d, %q", code, stderr)
	}

	hint := `bbdigest: hint: run 'bbdigest help archive' for usage\n$`
	for _, tt := range []struct {
		args  []string
		errRE string
	}{
		{[]string{}, `^bbdigest: error: archive gen: --records N is required \(N >= 0\)\n`},
		{[]string{"--records", "1", "--kind", "x"}, `^bbdigest: error: archive gen: unknown --kind "x" \(envelopes, mixed or claims\)\n`},
		{[]string{"--records", "1", "--wrong", "1"}, `^bbdigest: error: archive gen: --wrong needs --kind claims\n`},
		{[]string{"--records", "1", "--kind", "claims", "--wrong", "2"}, `^bbdigest: error: archive gen: --wrong must be within 0\.\.1\n`},
		{[]string{"--records", "1", "x"}, `^bbdigest: error: archive gen: unexpected argument "x"\n`},
	} {
		out, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", "gen"}, tt.args...)...)
		if code != exitUsage || out != "" || !regexp.MustCompile(tt.errRE+hint).MatchString(stderr) {
			t.Errorf("gen %q: exit code %d, stdout %q, stderr %q", tt.args, code, out, stderr)
		}
	}
}
