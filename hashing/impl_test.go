package hashing

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestRequiredImplementations fails when a path named in
// BBDIGEST_REQUIRE_IMPL is unknown or not available, so that CI on a
// machine declared to have SHA-NI, AVX2 or AVX-512 cannot pass by skipping.
func TestRequiredImplementations(t *testing.T) {
	avail := Implementations()
	t.Logf("available: %v; %s=%q", avail, requireEnv, os.Getenv(requireEnv))
	for _, name := range requiredImpls() {
		if !slices.Contains(Paths(), name) {
			t.Errorf("%s names unknown path %q (known: %v)", requireEnv, name, Paths())
		} else if !slices.Contains(avail, name) {
			t.Errorf("path %s is required by %s but not available here (available: %v)", name, requireEnv, avail)
		}
	}
}

func TestSelect(t *testing.T) {
	before := Describe()
	if !slices.Contains(Implementations(), "generic") || Implementations()[0] != "generic" {
		t.Fatalf("Implementations() = %v, want generic first", Implementations())
	}
	for _, name := range Implementations() {
		restore, err := Select(name)
		if err != nil {
			t.Fatalf("Select(%q): %v", name, err)
		}
		d := Describe()
		if d.Path != name {
			t.Errorf("after Select(%q): Describe().Path = %q", name, d.Path)
		}
		if name == "generic" && (d.Single != "generic" || d.Batch != "serial") {
			t.Errorf("Select(generic): single %s batch %s", d.Single, d.Batch)
		}
		restore()
		if got := Describe(); got.Path != before.Path || got.Single != before.Single || got.Batch != before.Batch {
			t.Errorf("restore after %q: %+v, want %+v", name, got, before)
		}
	}
	for _, name := range []string{"", "sse", "SHANI", "avx512 "} {
		restore, err := Select(name)
		var pe *PathError
		if !errors.As(err, &pe) || !errors.Is(err, errUnknownPath) {
			t.Errorf("Select(%q) = %v, want an unknown-path *PathError", name, err)
		}
		restore()
	}
	for _, name := range Paths() {
		if slices.Contains(Implementations(), name) {
			continue
		}
		_, err := Select(name)
		if !errors.Is(err, errUnavailablePath) || !strings.Contains(err.Error(), name) {
			t.Errorf("Select(%q) = %v, want not available", name, err)
		}
	}
	if Describe().Path != before.Path {
		t.Error("failed Select changed the configuration")
	}
}

func TestDescribe(t *testing.T) {
	d := Describe()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"goarch", "purego", "features", "implementations", "path", "single", "batch", "lanes"} {
		if _, ok := back[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	s := d.String()
	for _, want := range []string{"sha256 path: " + d.Path, "single: " + d.Single, "batch: " + d.Batch, "available:"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	t.Logf("\n%s\n%s", s, b)
}

// TestEnvForce runs this test binary again with BBDIGEST_SHA256 set, since
// the variable is read once at init.
func TestEnvForce(t *testing.T) {
	if os.Getenv("HASHING_ENV_CHILD") != "" {
		b, _ := json.Marshal(Describe())
		os.Stdout.Write(append(append([]byte("DESCRIBE "), b...), '\n'))
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	run := func(value string) Description {
		t.Helper()
		cmd := exec.Command(exe, "-test.run=^TestEnvForce$", "-test.count=1")
		cmd.Env = append(os.Environ(), "HASHING_ENV_CHILD=1", EnvVar+"="+value)
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.ENOEXEC) {
			// Under qemu-user without binfmt_misc the test binary cannot
			// start itself.
			t.Skipf("cannot re-execute the test binary: %v", err)
		}
		if err != nil {
			t.Fatalf("child with %s=%q: %v\n%s", EnvVar, value, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(line, "DESCRIBE "); ok {
				var d Description
				if err := json.Unmarshal([]byte(rest), &d); err != nil {
					t.Fatal(err)
				}
				return d
			}
		}
		t.Fatalf("child printed no description:\n%s", out)
		return Description{}
	}
	detectedPath := detected.name.String()
	cases := Implementations()
	if testing.Short() {
		cases = cases[len(cases)-1:]
	}
	for _, name := range cases {
		d := run(name)
		if d.Path != name || d.Warning != "" || d.Forced != name {
			t.Errorf("%s=%s: path %q forced %q warning %q", EnvVar, name, d.Path, d.Forced, d.Warning)
		}
	}
	bad := []string{"bogus"}
	for _, name := range Paths() {
		if !slices.Contains(Implementations(), name) {
			bad = append(bad, name)
		}
	}
	for _, name := range bad {
		d := run(name)
		if d.Path != detectedPath || !strings.Contains(d.Warning, EnvVar+"="+name) || !strings.Contains(d.Warning, "using detected path "+detectedPath) {
			t.Errorf("%s=%s: path %q warning %q; want fallback to %s with a warning", EnvVar, name, d.Path, d.Warning, detectedPath)
		}
	}
	if ForcedWarning() != "" && os.Getenv(EnvVar) == "" {
		t.Errorf("ForcedWarning() = %q with %s unset", ForcedWarning(), EnvVar)
	}
}
