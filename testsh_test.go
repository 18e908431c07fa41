package bbdigest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestShPreflight runs test.sh's preflight (TEST_SH_PREFLIGHT_ONLY) in
// a copy of the repository's layout that lacks what some tests need, and
// checks that it says which tests skip and the command that enables them,
// rather than letting go test skip them silently.
func TestTestShPreflight(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script, err := os.ReadFile("test.sh")
	if err != nil {
		t.Fatal(err)
	}
	fakeNode := t.TempDir()
	if err := os.WriteFile(filepath.Join(fakeNode, "node"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fakeChromium := t.TempDir()
	if err := os.WriteFile(filepath.Join(fakeChromium, "chromium"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, path string, layout func(root string)) string {
		t.Helper()
		parent := t.TempDir()
		root := filepath.Join(parent, "repo")
		if err := os.MkdirAll(filepath.Join(root, "fuzz", "node"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "test.sh"), script, 0o755); err != nil {
			t.Fatal(err)
		}
		if layout != nil {
			layout(root)
		}
		cmd := exec.Command(bash, filepath.Join(root, "test.sh"))
		cmd.Env = append(os.Environ(), "TEST_SH_PREFLIGHT_ONLY=1", "PATH="+path, "BBDIGEST_CHROMIUM=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("test.sh: %v\n%s", err, out)
		}
		return string(out)
	}
	binPath := fakeNode + string(os.PathListSeparator) + fakeChromium + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin"

	t.Run("no node_modules", func(t *testing.T) {
		out := run(t, binPath, nil)
		for _, want := range []string{"fuzz/node has no node_modules", "npm ci --prefix fuzz/node", "../shared/conformance is not beside the repository"} {
			if !strings.Contains(out, want) {
				t.Errorf("preflight output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("no node", func(t *testing.T) {
		out := run(t, "/nonexistent", nil)
		if !strings.Contains(out, "node is not on PATH") {
			t.Errorf("preflight output lacks the missing node:\n%s", out)
		}
	})
	t.Run("no chromium", func(t *testing.T) {
		out := run(t, fakeNode, nil)
		for _, want := range []string{"no Chromium on PATH", "internal/approvepage/browsertest", "apt-get install chromium"} {
			if !strings.Contains(out, want) {
				t.Errorf("preflight output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("everything there", func(t *testing.T) {
		out := run(t, binPath, func(root string) {
			for _, dir := range []string{
				filepath.Join(root, "fuzz", "node", "node_modules", "canonicalize"),
				filepath.Join(root, "..", "shared", "conformance", "rfc8785"),
			} {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(root, "fuzz", "node", "node_modules", "canonicalize", "package.json"), []byte("{}"), 0o644)
		})
		if out != "" {
			t.Errorf("preflight with everything in place printed:\n%s", out)
		}
	})
}
