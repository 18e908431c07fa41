// Package impltest runs tests under the implementations of a kernel of the
// registry (internal/impl), and reads the environment variables with which
// a test machine declares the implementations it must have:
// BBDIGEST_REQUIRE_IMPL for hashing's SHA-256 paths (shani,avx2,avx512)
// and BBDIGEST_REQUIRE_CANON for canon's kernels, named kernel-implementation
// (minify-avx512,rank-avx512). An implementation the machine lacks is
// skipped, unless it is required: then the test fails, so that CI on a
// machine declared to have it cannot pass by skipping it.
package impltest

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl"
)

// requirement says, per package, which variable lists the implementations
// that must be available, and whether it names them with their kernel.
var requirement = map[string]struct {
	env       string
	qualified bool
}{
	"hashing": {"BBDIGEST_REQUIRE_IMPL", false},
	"canon":   {"BBDIGEST_REQUIRE_CANON", true},
}

// Names returns the comma-separated names in the environment variable env,
// trimmed, empty ones dropped.
func Names(env string) []string {
	var s []string
	for _, n := range strings.Split(os.Getenv(env), ",") {
		if n = strings.TrimSpace(n); n != "" {
			s = append(s, n)
		}
	}
	return s
}

// RequireEnv returns the variable that lists the required implementations
// of package pkg's kernels, "" if there is none.
func RequireEnv(pkg string) string { return requirement[pkg].env }

// RequireName returns the name under which RequireEnv(k.Package) lists
// implementation name of k: "shani" for hashing, "minify-avx512" for canon.
func RequireName(k *impl.Kernel, name string) string {
	if requirement[k.Package].qualified {
		return k.Name + "-" + name
	}
	return name
}

// Required reports whether the environment requires implementation name
// of k.
func Required(k *impl.Kernel, name string) bool {
	env := RequireEnv(k.Package)
	return env != "" && slices.Contains(Names(env), RequireName(k, name))
}

// Need skips the test when this CPU or build lacks implementation name of
// k, or fails it when the environment requires that implementation.
func Need(tb testing.TB, k *impl.Kernel, name string) {
	tb.Helper()
	if k.Has(name) {
		return
	}
	if Required(k, name) {
		env := RequireEnv(k.Package)
		tb.Fatalf("%s %s is required by %s=%s but not available (available: %s)",
			k.Name, name, env, os.Getenv(env), strings.Join(k.Available(), ", "))
	}
	tb.Skipf("%s %s not available on this CPU or in this build", k.Name, name)
}

// Select puts implementation name of k in force for the rest of the test
// and returns the function that restores the previous one (call it, or
// defer it). Where name is not available the test is skipped or failed as
// by Need.
func Select(tb testing.TB, k *impl.Kernel, name string) (restore func()) {
	tb.Helper()
	Need(tb, k, name)
	restore, err := k.Select(name)
	if err != nil {
		tb.Fatal(err)
	}
	return restore
}

// ForEach runs f once per implementation of k, base first, each put in
// force by Select, as a subtest named impl=NAME. An implementation that
// this CPU or build lacks is skipped, unless the environment requires it.
// The implementation stays in force until the subtest and all of its own
// subtests have finished, parallel ones included (they run after f
// returns).
func ForEach(t *testing.T, k *impl.Kernel, f func(t *testing.T)) {
	t.Helper()
	for _, name := range k.Names() {
		t.Run("impl="+name, func(t *testing.T) {
			t.Cleanup(Select(t, k, name))
			f(t)
		})
	}
}

// ForEachB is ForEach for benchmarks: f runs as a sub-benchmark named
// impl=NAME under each implementation of k that this CPU and build have
// (the others are left out, not skipped, so that benchstat sees only
// rows that ran).
func ForEachB(b *testing.B, k *impl.Kernel, f func(b *testing.B)) {
	b.Helper()
	for _, name := range k.Available() {
		b.Run("impl="+name, func(b *testing.B) {
			defer Select(b, k, name)()
			f(b)
		})
	}
}

// CheckRequired fails the test for each name in the variable that lists
// package pkg's required implementations that names no implementation of a
// kernel of pkg, or one that is not available here.
func CheckRequired(t *testing.T, pkg string) {
	t.Helper()
	env := RequireEnv(pkg)
	if env == "" {
		t.Fatalf("impltest: no requirement variable for package %s", pkg)
	}
	var known, avail []string
	for _, k := range impl.Kernels(pkg) {
		for _, im := range k.Impls {
			known = append(known, RequireName(k, im.Name))
			if im.Available {
				avail = append(avail, RequireName(k, im.Name))
			}
		}
	}
	t.Logf("%s=%q; available: %s", env, os.Getenv(env), strings.Join(avail, ", "))
	for _, name := range Names(env) {
		switch {
		case !slices.Contains(known, name):
			t.Errorf("%s names unknown implementation %q (known: %s)", env, name, strings.Join(known, ", "))
		case !slices.Contains(avail, name):
			t.Errorf("%s is required by %s but not available here (available: %s)", name, env, strings.Join(avail, ", "))
		}
	}
}

// Toy registers a kernel for the tests of the registry and of this
// package: implementations base and fast (available) and missing (not),
// the one in force held in the string it returns a pointer to.
func Toy(pkg, name string) (*impl.Kernel, *string) {
	cur := "base"
	k := impl.Register(&impl.Kernel{
		Package: pkg,
		Name:    name,
		Impls:   []impl.Impl{{Name: "base", Available: true}, {Name: "fast", Available: true}, {Name: "missing"}},
		Active:  func() string { return cur },
		Set: func(n string) func() {
			prev := cur
			cur = n
			return func() { cur = prev }
		},
	})
	return k, &cur
}

// Rerun runs the test called name again in a new process of this test
// binary, with the variables env ("NAME=value") added to the environment,
// and returns its output and its error (an *exec.ExitError if it failed).
// It is how a test checks what a package does with an environment
// variable it reads once, at init. Where the binary cannot start itself
// (under qemu-user without binfmt_misc), the test is skipped.
func Rerun(t *testing.T, name string, env ...string) ([]byte, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot re-execute the test binary: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("cannot re-execute the test binary: %v", err)
	}
	return out, err
}
