package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// TestVerifyTooLarge checks resolution verify's answer to each input past
// the size bound (lowered here): the envelope and the action are errors of
// their input, exit 2; a resolution is malformed, as the canon gate makes
// any resolution it rejects, exit 1. Each is one JSON object.
func TestVerifyTooLarge(t *testing.T) {
	env, err := canon.Canonicalize(demo.DraftEnvelope(), canon.Strict)
	if err != nil {
		t.Fatal(err)
	}
	act, err := canon.Canonicalize(demo.DraftAction1(), canon.Strict)
	if err != nil {
		t.Fatal(err)
	}
	bound := len(env) + 10
	pad := strings.Repeat(" ", bound)
	t.Chdir(t.TempDir())
	files := map[string]string{
		"env.json":     string(env),
		"big-env.json": string(env) + pad,
		"res.json":     `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","resolution":"option","option_idx":0}`,
		"big-res.json": `{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","resolution":"option","option_idx":0}` + pad,
		"act.json":     string(act),
		"big-act.json": string(act) + pad,
	}
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	tooLarge := "too-large: input longer than the " + strconv.Itoa(bound) + "-byte bound at offset " + strconv.Itoa(bound)
	for _, tt := range []struct {
		env, res, act string
		code          int
		want          map[string]any
	}{
		{"env.json", "res.json", "act.json", exitOK, map[string]any{"outcome": "authority", "single_use": false}},
		{"big-env.json", "res.json", "act.json", exitUsage, map[string]any{
			"outcome": "error", "error": "canon", "input": "envelope", "file": "big-env.json",
			"class": "too-large", "pointer": "", "offset": float64(bound), "reason": tooLarge}},
		{"env.json", "big-res.json", "act.json", exitRejected, map[string]any{
			"outcome": "malformed", "reason": "canon: " + tooLarge, "single_use": false}},
		{"env.json", "res.json", "big-act.json", exitUsage, map[string]any{
			"outcome": "error", "error": "canon", "input": "action", "file": "big-act.json",
			"class": "too-large", "pointer": "", "offset": float64(bound), "reason": tooLarge}},
	} {
		var stdout, stderr bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, maxSize: bound}
		code := c.main([]string{"resolution", "verify", "--envelope", tt.env, "--resolution", tt.res, "--action", tt.act})
		var got map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || bytes.Count(stdout.Bytes(), []byte("\n")) != 1 {
			t.Errorf("%s %s %s: stdout %q is not one JSON object: %v", tt.env, tt.res, tt.act, stdout.String(), err)
			continue
		}
		if code != tt.code {
			t.Errorf("%s %s %s: exit code %d, want %d", tt.env, tt.res, tt.act, code, tt.code)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s %s %s: %s = %#v, want %#v (stdout %s)", tt.env, tt.res, tt.act, k, got[k], v, stdout.String())
			}
		}
		if tt.code == exitUsage {
			want := "bbdigest: error: " + tt.want["file"].(string) + `: "": ` + tooLarge + "\n"
			if stderr.String() != want {
				t.Errorf("%s %s %s: stderr %q, want %q", tt.env, tt.res, tt.act, stderr.String(), want)
			}
		}
	}
}
