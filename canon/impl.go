// This file holds canon's entries in the module's registry of kernels
// (internal/impl): the four kernels that have alternative
// implementations, the plain variables that choose among them on the hot
// paths, and the Set functions through which tests force one. Nothing
// user-facing forces a canon kernel: the defaults are the fastest this CPU
// and build can run, and every implementation gives the same output and
// the same errors.
//
//	classify  window bitmaps of string stops and high bytes (scan_amd64.go):
//	          generic (no window: byte by byte, without assembly), sse2, avx512
//	utf8      UTF-8 check of strings in the window: generic (utf8.Valid per
//	          string), ssse3 (the lookup method of utf8_lookup.go, four
//	          16-byte chunks per 64-byte block), avx512 (the same, one
//	          64-byte block per step)
//	minify    whitespace compression before the engine (minify.go): off (the
//	          engine drops whitespace itself), generic (the Go model), avx512
//	rank      order of objects of 9 to 16 members (rank.go): insertion (sort
//	          by insertion), avx512 (rank by vector compares)
//	escrun    runs of \" and \\ escapes in a string (escapeRun, state.go):
//	          generic (one escape per trip of scanEscaped's loop), avx512
//	          (64 bytes per step); registered in state.go, after the
//	          engine's code, so that adding it moved none of the hot
//	          functions before it (canon's rows move by up to 5% with the
//	          placement of their code alone)

package canon

import (
	"slices"

	"github.com/bbdigest/bbdigest/internal/escbits"
	"github.com/bbdigest/bbdigest/internal/impl"
)

// The kernels in force. The hot paths branch on these plain variables (no
// atomic load, no indirect call). They are written at init and by the
// registry's Select, in tests and benchmarks only, which must not run
// while a Canonicalizer does.
var (
	// useClassifyAVX512 selects classifyBlocksAVX512 for the window
	// bitmaps, else classifyBlocks (SSE2).
	useClassifyAVX512 = haveClassifyAVX512
	// useUTF8Lookup selects the window's error bitmap (utf8Blocks) for the
	// UTF-8 check of strings inside it, else one call to utf8.Valid per
	// string.
	useUTF8Lookup = haveUTF8Lookup
	// useUTF8AVX512 selects utf8BlocksAVX512 for the error bitmap (when
	// useUTF8Lookup), else utf8BlocksSSSE3; utf8Blocks (scan_amd64.s)
	// reads it.
	useUTF8AVX512 = haveUTF8AVX512
	// minifyImpl selects the whitespace compression: minifyOff, minifyGo
	// or minifyAVX512.
	minifyImpl = defaultMinifyImpl()
	// useRankAVX512 selects the vector rank sort of objects, else the
	// insertion sort.
	useRankAVX512 = haveRankAVX512
	// useQuickIndex selects the indexed fast path (index.go) for inputs
	// of at most indexMaxInput bytes, else quickRun's walk.
	useQuickIndex = haveIndexAVX512
	// useIndexAVX512 selects indexBlocksAVX512 for the indexed fast
	// path's bitmaps, else indexBlocksGeneric.
	useIndexAVX512 = haveIndexAVX512
	// useQuickAdapt lets each Canonicalizer choose between the indexed
	// pass and the walk by its last input (quickCanonical).
	useQuickAdapt = haveIndexAVX512
	// useEscRunAVX512 selects escapeRun for runs of \" and \\ escapes in
	// the engine's strings, else its loop takes one escape at a time.
	useEscRunAVX512 = escbits.HaveAVX512
)

// canon's entries in the registry, for the tests.
var classifyKernel, utf8Kernel, minifyKernel, rankKernel, escRunKernel, quickKernel *impl.Kernel

func init() {
	classifyKernel = impl.Register(&impl.Kernel{
		Package: "canon",
		Name:    "classify",
		Impls: []impl.Impl{
			{Name: "generic", Available: !haveClassifySSE2},
			{Name: "sse2", Available: haveClassifySSE2},
			{Name: "avx512", Available: haveClassifyAVX512},
		},
		Active: func() string {
			switch {
			case !haveClassifySSE2:
				return "generic"
			case useClassifyAVX512:
				return "avx512"
			}
			return "sse2"
		},
		Set: setBool(&useClassifyAVX512, "avx512"),
	})
	utf8Kernel = impl.Register(&impl.Kernel{
		Package: "canon",
		Name:    "utf8",
		Impls: []impl.Impl{
			{Name: "generic", Available: true},
			{Name: "ssse3", Available: haveUTF8Lookup},
			{Name: "avx512", Available: haveUTF8AVX512},
		},
		Active: func() string {
			switch {
			case !useUTF8Lookup:
				return "generic"
			case useUTF8AVX512:
				return "avx512"
			}
			return "ssse3"
		},
		Set: func(name string) func() {
			prevLookup, prevAVX512 := useUTF8Lookup, useUTF8AVX512
			useUTF8Lookup, useUTF8AVX512 = name != "generic", name == "avx512"
			return func() { useUTF8Lookup, useUTF8AVX512 = prevLookup, prevAVX512 }
		},
	})
	minifyKernel = impl.Register(&impl.Kernel{
		Package: "canon",
		Name:    "minify",
		Impls: []impl.Impl{
			{Name: minifyNames[minifyOff], Available: true},
			{Name: minifyNames[minifyGo], Available: true},
			{Name: minifyNames[minifyAVX512], Available: haveMinifyAVX512},
		},
		Active: func() string { return minifyNames[minifyImpl] },
		Set: func(name string) func() {
			prev := minifyImpl
			minifyImpl = int32(slices.Index(minifyNames[:], name))
			return func() { minifyImpl = prev }
		},
	})
	quickKernel = impl.Register(&impl.Kernel{
		Package: "canon",
		Name:    "quick",
		Impls: []impl.Impl{
			{Name: "walk", Available: true},
			{Name: "index-generic", Available: true},
			{Name: "index-avx512", Available: haveIndexAVX512},
			{Name: "adaptive", Available: haveIndexAVX512},
		},
		Active: func() string {
			switch {
			case !useQuickIndex:
				return "walk"
			case useQuickAdapt:
				return "adaptive"
			case useIndexAVX512:
				return "index-avx512"
			}
			return "index-generic"
		},
		Set: func(name string) func() {
			prevIndex, prevAVX512, prevAdapt := useQuickIndex, useIndexAVX512, useQuickAdapt
			useQuickIndex, useIndexAVX512, useQuickAdapt = name != "walk", name == "index-avx512" || name == "adaptive", name == "adaptive"
			return func() { useQuickIndex, useIndexAVX512, useQuickAdapt = prevIndex, prevAVX512, prevAdapt }
		},
	})
	rankKernel = impl.Register(&impl.Kernel{
		Package: "canon",
		Name:    "rank",
		Impls:   []impl.Impl{{Name: "insertion", Available: true}, {Name: "avx512", Available: haveRankAVX512}},
		Active:  boolName(&useRankAVX512, "insertion", "avx512"),
		Set:     setBool(&useRankAVX512, "avx512"),
	})
}

// boolName returns the Active function of a kernel chosen by *use: the
// name off or on.
func boolName(use *bool, off, on string) func() string {
	return func() string {
		if *use {
			return on
		}
		return off
	}
}

// setBool returns the Set function of a kernel chosen by *use: true for
// the implementation called on, false for the other.
func setBool(use *bool, on string) func(string) func() {
	return func(name string) func() {
		prev := *use
		*use = name == on
		return func() { *use = prev }
	}
}
