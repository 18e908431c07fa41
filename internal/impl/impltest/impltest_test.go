package impltest

import (
	"os"
	"slices"
	"strings"
	"testing"
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

var (
	hashingToy, _      = Toy("hashing", "sha256")
	canonToy, canonCur = Toy("canon", "minify")
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

// TestForEachParallel checks that a parallel subtest of f, which runs only
// after f returns, still runs under the implementation of its ForEach
// subtest.
func TestForEachParallel(t *testing.T) {
	var ran []string
	ForEach(t, canonToy, func(t *testing.T) {
		want := *canonCur
		t.Run("parallel", func(t *testing.T) {
			t.Parallel()
			ran = append(ran, *canonCur)
			if *canonCur != want {
				t.Errorf("parallel subtest ran under %q, want %q", *canonCur, want)
			}
		})
	})
	if !slices.Equal(ran, []string{"base", "fast"}) {
		t.Errorf("parallel subtests ran under %v, want [base fast]", ran)
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
		out, err := Rerun(t, "TestRequiredFails", "IMPLTEST_CHILD="+tc.child, "BBDIGEST_REQUIRE_CANON="+tc.require)
		if failed := err != nil; failed != tc.fail || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s with BBDIGEST_REQUIRE_CANON=%s: failed %v (want %v), output lacks %q:\n%s",
				tc.child, tc.require, failed, tc.fail, tc.want, out)
		}
	}
}
