package bbdigest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuzzRunBenignStop runs fuzz/run.sh over a repository of three fuzz
// targets with a fake go command: the first stops as Go 1.26's fuzz
// coordinator sometimes does when -fuzztime ends (golang/go#75804: exit
// 1, "context deadline exceeded", no failing input), which is not a
// failure, so the other two run as well; a target that fails for real
// stops the run before the next starts, and the run fails (targets of the
// repository's root directory included).
func TestFuzzRunBenignStop(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	script, err := os.ReadFile(filepath.Join("fuzz", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// The fake go: "go test -c ..." (run.sh's build of a package's
	// instrumented test binary) succeeds and prints nothing, or with
	// FAKE_BUILD_FAILS set fails as a compile error does; "go test -run
	// ^$ -fuzz ^NAME$ ..." prints a fuzzer's last report, and for NAME
	// FuzzA the benign stop, for FuzzAFail a failing input.
	fake := t.TempDir()
	goScript := `#!/bin/sh
for a in "$@"; do
	if [ "$a" = -c ]; then
		[ -z "$FAKE_BUILD_FAILS" ] && exit 0
		echo "p_test.go:3:1: syntax error"; exit 1
	fi
done
name=$(printf '%s\n' "$@" | sed -n 's/^\^\(Fuzz[A-Za-z]*\)\$$/\1/p')
echo "fuzz: elapsed: 1s, execs: 5000 (5000/sec), new interesting: 0 (total: 1)"
case $name in
FuzzA) printf 'FAIL\n    context deadline exceeded\n'; exit 1 ;;
FuzzAFail) printf -- "--- FAIL: FuzzAFail (0.01s)\n    Failing input written to testdata/fuzz/FuzzAFail/abc\n"; exit 1 ;;
esac
echo PASS
`
	if err := os.WriteFile(filepath.Join(fake, "go"), []byte(goScript), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, env []string, dir string, targets ...string) (string, error) {
		t.Helper()
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, "fuzz"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "fuzz", "run.sh"), script, 0o755); err != nil {
			t.Fatal(err)
		}
		var src strings.Builder
		src.WriteString("package p\n\nimport \"testing\"\n")
		for _, name := range targets {
			src.WriteString("\nfunc " + name + "(f *testing.F) {}\n")
		}
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "p_test.go"), []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(git, "-C", root, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		cmd := exec.Command(bash, filepath.Join(root, "fuzz", "run.sh"), "-t", "1s", "-m", "0", "-f", "10")
		cmd.Env = append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+t.TempDir())
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	t.Run("benign", func(t *testing.T) {
		out, err := run(t, nil, "p", "FuzzA", "FuzzB", "FuzzC")
		if err != nil {
			t.Fatalf("run.sh failed: %v\n%s", err, out)
		}
		for _, want := range []string{"p/FuzzA", "p/FuzzB", "p/FuzzC", "go.dev/issue/75804", "3 of 3 targets"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	// In the root directory too: its logs were dotfiles, which the check
	// for a failure did not see.
	t.Run("failure", func(t *testing.T) {
		out, err := run(t, nil, ".", "FuzzAFail", "FuzzB", "FuzzC")
		if err == nil {
			t.Fatalf("run.sh passed with a failing target:\n%s", out)
		}
		for _, want := range []string{"./FuzzAFail failed", "1 of 3 targets"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	// A package that does not build for fuzzing fails the run, with the
	// compiler's message, before any target fuzzes.
	t.Run("build", func(t *testing.T) {
		out, err := run(t, []string{"FAKE_BUILD_FAILS=1"}, "p", "FuzzA", "FuzzB")
		if err == nil {
			t.Fatalf("run.sh passed with a package that does not build:\n%s", out)
		}
		for _, want := range []string{"p does not build for fuzzing", "syntax error"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "fuzz: elapsed") {
			t.Errorf("a target fuzzed:\n%s", out)
		}
	})
}
