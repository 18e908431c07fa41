//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/archivegen"
	"github.com/bbdigest/bbdigest/internal/progress"
)

// TestArchiveProgressZeroColumns runs archive rehash --progress bar in a
// child process (the test binary run as bbdigest) whose stderr is a
// pseudo-terminal that reports 0 columns and 0 rows: the one script(1)
// (util-linux) makes when its own stdin is not a terminal. The bar must
// be drawn, at most progress.FallbackColumns wide; mpb alone draws
// nothing in 0 columns. The input comes on stdin, in two parts a second apart, so that
// the run lasts for several refreshes. Skipped without script or sh, and
// where script's terminal does report a size.
func TestArchiveProgressZeroColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a child process for a second")
	}
	for _, tool := range []string{"script", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH: it makes the pseudo-terminal", tool)
		}
	}
	dir := t.TempDir()
	in := genArchive(t, archivegen.Mixed, 4000, 2)
	half := len(in) / 2
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, in[:half], 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, in[half:], 0o666); err != nil {
		t.Fatal(err)
	}
	sq := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	shell := "stty size; { cat " + sq(a) + "; sleep 1; cat " + sq(b) + "; } | " +
		sq(os.Args[0]) + " archive rehash --progress bar --workers 1 >/dev/null"
	cmd := exec.Command("script", "-q", "-e", "-c", shell, "/dev/null")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin = nil // /dev/null: script gives its terminal no size
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != exitRejected) {
		t.Fatalf("script: %v\n%q", err, out)
	}
	first, rest, _ := strings.Cut(string(out), "\n")
	if strings.TrimSpace(first) != "0 0" {
		t.Skipf("script's terminal reports the size %q, not 0 columns", strings.TrimSpace(first))
	}
	// The lines drawn, without the cursor movements between them.
	drawn := regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]").ReplaceAllString(rest, "")
	bars := 0
	for _, line := range strings.Split(drawn, "\n") {
		line = strings.TrimRight(line, "\r")
		if !strings.Contains(line, "rec/s") {
			continue
		}
		bars++
		if w := len([]rune(line)); w > progress.FallbackColumns || !strings.Contains(line, "[") {
			t.Errorf("a bar line of %d columns (at most %d): %q", w, progress.FallbackColumns, line)
		}
	}
	if bars == 0 {
		t.Fatalf("no bar drawn on a terminal of 0 columns; the terminal got\n%q", out)
	}
	if !strings.Contains(drawn, "bbdigest: summary: ") {
		t.Errorf("no summary; the terminal got\n%q", out)
	}
}
