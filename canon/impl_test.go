package canon

import (
	"slices"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl"
	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// TestRequiredImplementations fails when BBDIGEST_REQUIRE_CANON names an
// unknown implementation or one this machine lacks (minify-avx512,
// rank-avx512, classify-avx512, utf8-ssse3, utf8-avx512, …).
func TestRequiredImplementations(t *testing.T) {
	impltest.CheckRequired(t, "canon")
}

// TestRegistry checks canon's entries in the registry of kernels: their
// names, that the fastest available implementation is in force by
// default, and that selecting each implementation sets the variable its
// hot path reads, and restoring puts the default back.
func TestRegistry(t *testing.T) {
	// state returns what the hot paths read.
	state := func() [9]any {
		return [9]any{useClassifyAVX512, useUTF8Lookup, useUTF8AVX512, minifyImpl, useRankAVX512, useEscRunAVX512, useQuickIndex, useIndexAVX512, useQuickAdapt}
	}
	defaults := state()
	for _, tc := range []struct {
		k     *impl.Kernel
		names []string
		// want is the variable the hot path reads, after Select(name).
		want func(name string) any
		got  func() any
	}{
		{classifyKernel, []string{"generic", "sse2", "avx512"}, func(n string) any { return n == "avx512" }, func() any { return useClassifyAVX512 }},
		{utf8Kernel, []string{"generic", "ssse3", "avx512"}, func(n string) any { return [2]bool{n != "generic", n == "avx512"} }, func() any { return [2]bool{useUTF8Lookup, useUTF8AVX512} }},
		{minifyKernel, []string{"off", "generic", "avx512"}, func(n string) any { return int32(slices.Index(minifyNames[:], n)) }, func() any { return minifyImpl }},
		{rankKernel, []string{"insertion", "avx512"}, func(n string) any { return n == "avx512" }, func() any { return useRankAVX512 }},
		{escRunKernel, []string{"generic", "avx512"}, func(n string) any { return n == "avx512" }, func() any { return useEscRunAVX512 }},
		{quickKernel, []string{"walk", "index-generic", "index-avx512", "adaptive"}, func(n string) any {
			return [3]bool{n != "walk", n == "index-avx512" || n == "adaptive", n == "adaptive"}
		}, func() any { return [3]bool{useQuickIndex, useIndexAVX512, useQuickAdapt} }},
	} {
		k := tc.k
		if impl.Lookup("canon", k.Name) != k {
			t.Errorf("impl.Lookup(canon, %s) does not return the kernel", k.Name)
		}
		if !slices.Equal(k.Names(), tc.names) {
			t.Errorf("%s: Names() = %v, want %v", k.Name, k.Names(), tc.names)
		}
		avail := k.Available()
		if best := avail[len(avail)-1]; k.Active() != best && !(k.Name == "minify" && best == "generic" && k.Active() == "off") &&
			!(k.Name == "quick" && best == "index-generic" && k.Active() == "walk") {
			// minify's Go model is never the default: it is slower than
			// no compression at all. Nor is quick's index-generic, whose
			// bitmaps are made byte by byte: it is the model of
			// index-avx512, and runs the indexed pass where there is no
			// vector kernel, in tests.
			t.Errorf("%s: %s in force by default, want the fastest available, %s", k.Name, k.Active(), best)
		}
		for _, name := range avail {
			restore, err := k.Select(name)
			if err != nil {
				t.Fatalf("%s: Select(%q): %v", k.Name, name, err)
			}
			if k.Active() != name || tc.got() != tc.want(name) {
				t.Errorf("%s: after Select(%q): Active() %q, variable %v, want %v", k.Name, name, k.Active(), tc.got(), tc.want(name))
			}
			restore()
			if state() != defaults {
				t.Errorf("%s: restore after %q: %v, want %v", k.Name, name, state(), defaults)
			}
		}
	}
	if got := len(impl.Kernels("canon")); got != 6 {
		t.Errorf("canon registered %d kernels, want 6", got)
	}
}
