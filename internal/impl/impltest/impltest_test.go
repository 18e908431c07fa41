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

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want []string
	}{
		{"", nil},
		{"shani", []string{"shani"}},
		{" shani , avx2,,avx512 ", []string{"shani", "avx2", "avx512"}},
		{",", nil},
	} {
		t.Setenv("BBDIGEST_TEST_IMPLREQ", tc.val)
		if got := Names("BBDIGEST_TEST_IMPLREQ"); !slices.Equal(got, tc.want) {
			t.Errorf("Names(%q) = %q, want %q", tc.val, got, tc.want)
		}
	}
}

// toy registers a kernel of package pkg with implementations base and fast
// (available) and missing (not), chosen by the variable it returns.
func toy(pkg, name string) (*impl.Kernel, *string) {
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

var (
	hashingToy, _      = toy("hashing", "sha256")
	canonToy, canonCur = toy("canon", "minify")
)

func TestRequireName(t *testing.T) {
	if got := RequireName(hashingToy, "fast"); got != "fast" {
		t.Errorf("hashing: RequireName = %q, want fast", got)
	}
	if got := RequireName(canonToy, "fast"); got != "minify-fast" {
		t.Errorf("canon: RequireName = %q, want minify-fast", got)
	}
	t.Setenv("BBDIGEST_REQUIRE_CANON", "minify-fast, rank-avx512")
	t.Setenv("BBDIGEST_REQUIRE_IMPL", "base")
	if !Required(canonToy, "fast") || Required(canonToy, "base") || !Required(hashingToy, "base") || Required(hashingToy, "fast") {
		t.Error("Required does not read each package's variable with its names")
	}
}

// TestForEach checks that ForEach runs f under each available
// implementation, in force while it runs, skips the missing one, and
// restores the implementation in force before.
func TestForEach(t *testing.T) {
	var ran []string
	ForEach(t, canonToy, func(t *testing.T) {
		ran = append(ran, *canonCur)
	})
	if !slices.Equal(ran, []string{"base", "fast"}) {
		t.Errorf("ForEach ran under %v, want [base fast]", ran)
	}
	if *canonCur != "base" {
		t.Errorf("after ForEach %q is in force, want base", *canonCur)
	}
}

// TestRequiredFails runs this test binary again with implementations
// required that the toy kernels lack or do not have: ForEach and
// CheckRequired must fail there, not skip.
func TestRequiredFails(t *testing.T) {
	if os.Getenv("IMPLTEST_CHILD") != "" {
		switch os.Getenv("IMPLTEST_CHILD") {
		case "foreach":
			ForEach(t, canonToy, func(t *testing.T) {})
		case "check":
			CheckRequired(t, "canon")
		}
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		child, require string
		fail           bool
		want           string
	}{
		{"foreach", "minify-fast", false, ""},
		{"foreach", "minify-missing", true, "minify missing is required by BBDIGEST_REQUIRE_CANON=minify-missing but not available"},
		{"check", "minify-base,minify-fast", false, ""},
		{"check", "minify-missing", true, "minify-missing is required by BBDIGEST_REQUIRE_CANON but not available here"},
		{"check", "minify-avx1024", true, `BBDIGEST_REQUIRE_CANON names unknown implementation "minify-avx1024"`},
	} {
		cmd := exec.Command(exe, "-test.run=^TestRequiredFails$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "IMPLTEST_CHILD="+tc.child, "BBDIGEST_REQUIRE_CANON="+tc.require)
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.ENOEXEC) {
			t.Skipf("cannot re-execute the test binary: %v", err)
		}
		if failed := err != nil; failed != tc.fail || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s with BBDIGEST_REQUIRE_CANON=%s: failed %v (want %v), output lacks %q:\n%s",
				tc.child, tc.require, failed, tc.fail, tc.want, out)
		}
	}
}
