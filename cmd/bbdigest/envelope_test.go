package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// An envelope with thousands of unknown members is reported with the first
// envelope.MaxProblems problems and a count of the rest, in every form.
func TestValidateProblemsCapped(t *testing.T) {
	env := demo.DraftEnvelope()
	// 2500 unknown members, and one past the cap ("and 1 more problem").
	testProblemsCapped(t, env, 2500, "and 2400 more problems, not listed")
	testProblemsCapped(t, env, envelope.MaxProblems+1, "and 1 more problem, not listed")
}

func testProblemsCapped(t *testing.T, env []byte, n int, last string) {
	t.Helper()
	var extra strings.Builder
	for i := range n {
		extra.WriteString(`"x` + strconv.Itoa(i) + `":0,`)
	}
	src := strings.Replace(string(env), `"offer":`, extra.String()+`"offer":`, 1)
	run := func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		c := &cli{stdin: strings.NewReader(src), stdout: &stdout, stderr: &stderr}
		code := c.main(args)
		return stdout.String(), stderr.String(), code
	}
	out, _, code := run("envelope", "validate", "--json")
	var v struct {
		Valid    bool
		Problems []json.RawMessage
		Omitted  int
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitRejected {
		t.Fatalf("validate --json: %v, exit %d: %s", err, code, out)
	}
	if v.Valid || len(v.Problems) != envelope.MaxProblems || v.Omitted != n-envelope.MaxProblems {
		t.Errorf("validate --json: %d problems, %d omitted", len(v.Problems), v.Omitted)
	}
	_, errOut, code := run("envelope", "validate")
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != exitRejected || len(lines) != envelope.MaxProblems+1 ||
		lines[len(lines)-1] != `bbdigest: error: -: "": `+last {
		t.Errorf("validate: exit %d, %d lines, last %q", code, len(lines), lines[len(lines)-1])
	}
}
