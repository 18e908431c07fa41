package hashing

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl"
	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// TestRequiredImplementations fails when a path named in
// BBDIGEST_REQUIRE_IMPL is unknown or not available, so that CI on a
// machine declared to have SHA-NI, AVX2 or AVX-512 cannot pass by skipping.
func TestRequiredImplementations(t *testing.T) {
	impltest.CheckRequired(t, "hashing")
}

// TestRegistry checks the package's entry in the registry of kernels: the
// names of the paths, generic first and always available, and what
// Select, Active and Parts do for each path, for unknown names and for
// paths this CPU or build lacks.
func TestRegistry(t *testing.T) {
	if k := impl.Lookup("hashing", "sha256"); k != paths {
		t.Fatalf(`impl.Lookup("hashing", "sha256") = %p, want paths (%p)`, k, paths)
	}
	if !slices.Equal(paths.Names(), pathNames[:]) {
		t.Errorf("Names() = %v, want %v", paths.Names(), pathNames)
	}
	avail := paths.Available()
	if len(avail) == 0 || avail[0] != "generic" {
		t.Fatalf("Available() = %v, want generic first", avail)
	}
	before := active
	if paths.Active() != before.name.String() {
		t.Errorf("Active() = %q, want %q", paths.Active(), before.name)
	}
	for _, name := range avail {
		restore, err := paths.Select(name)
		if err != nil {
			t.Fatalf("Select(%q): %v", name, err)
		}
		if active.name.String() != name || paths.Active() != name {
			t.Errorf("after Select(%q): active path %s, Active() %q", name, active.name, paths.Active())
		}
		p, _ := lookupPath(name)
		if active != configFor(p) {
			t.Errorf("after Select(%q): %+v, want %+v", name, active, configFor(p))
		}
		parts := paths.Parts()
		want := []impl.Part{
			{Role: "single", Name: active.single.String(), Lanes: 1},
			{Role: "batch", Name: active.batch.String(), Lanes: active.batch.lanes()},
		}
		if !slices.Equal(parts, want) {
			t.Errorf("after Select(%q): Parts() = %v, want %v", name, parts, want)
		}
		if name == "generic" && (active.single != pathGeneric || active.batch != batchSerial) {
			t.Errorf("Select(generic): single %s batch %s", active.single, active.batch)
		}
		restore()
		if active != before {
			t.Errorf("restore after %q: %+v, want %+v", name, active, before)
		}
	}
	for _, name := range []string{"", "sse", "SHANI", "avx512 ", "stdlib"} {
		restore, err := paths.Select(name)
		var ie *impl.Error
		if !errors.As(err, &ie) || !errors.Is(err, impl.ErrUnknown) {
			t.Errorf("Select(%q) = %v, want an unknown-implementation *impl.Error", name, err)
		}
		restore()
	}
	for _, name := range paths.Names() {
		if paths.Has(name) {
			continue
		}
		_, err := paths.Select(name)
		if !errors.Is(err, impl.ErrUnavailable) || !strings.Contains(err.Error(), name) {
			t.Errorf("Select(%q) = %v, want not available", name, err)
		}
	}
	if active != before {
		t.Error("failed Select changed the configuration")
	}
}

// envReport is what the child of TestEnvForce prints: the registry's view
// of the path in force and of BBDIGEST_SHA256.
type envReport struct {
	Path, Forced, Warning string
}

// TestEnvForce runs this test binary again with BBDIGEST_SHA256 set, since
// the variable is read once at init.
func TestEnvForce(t *testing.T) {
	if os.Getenv("HASHING_ENV_CHILD") != "" {
		b, _ := json.Marshal(envReport{Path: paths.Active(), Forced: paths.Forced, Warning: paths.Warning})
		os.Stdout.Write(append(append([]byte("REPORT "), b...), '\n'))
		return
	}
	run := func(value string) envReport {
		t.Helper()
		out, err := impltest.Rerun(t, "TestEnvForce", "HASHING_ENV_CHILD=1", envVar+"="+value)
		if err != nil {
			t.Fatalf("child with %s=%q: %v\n%s", envVar, value, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(line, "REPORT "); ok {
				var r envReport
				if err := json.Unmarshal([]byte(rest), &r); err != nil {
					t.Fatal(err)
				}
				return r
			}
		}
		t.Fatalf("child printed no report:\n%s", out)
		return envReport{}
	}
	detectedPath := detected.name.String()
	cases := paths.Available()
	if testing.Short() {
		cases = cases[len(cases)-1:]
	}
	for _, name := range cases {
		r := run(name)
		if r.Path != name || r.Warning != "" || r.Forced != name {
			t.Errorf("%s=%s: path %q forced %q warning %q", envVar, name, r.Path, r.Forced, r.Warning)
		}
	}
	bad := []string{"bogus"}
	for _, name := range paths.Names() {
		if !paths.Has(name) {
			bad = append(bad, name)
		}
	}
	for _, name := range bad {
		r := run(name)
		if r.Path != detectedPath || !strings.Contains(r.Warning, envVar+"="+name) || !strings.Contains(r.Warning, "using detected path "+detectedPath) {
			t.Errorf("%s=%s: path %q warning %q; want fallback to %s with a warning", envVar, name, r.Path, r.Warning, detectedPath)
		}
	}
	if paths.Warning != "" && os.Getenv(envVar) == "" {
		t.Errorf("paths.Warning = %q with %s unset", paths.Warning, envVar)
	}
}
