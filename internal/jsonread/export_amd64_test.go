//go:build !purego

package jsonread

import (
	"testing"

	"github.com/bbdigest/bbdigest/internal/cpu"
)

// indexKernels are the kernels of indexQuoteOrBackslash this CPU can run.
func indexKernels() []string {
	if cpu.X86.HasAVX2 {
		return []string{"sse2", "avx2"}
	}
	return []string{"sse2"}
}

// forceIndex makes indexQuoteOrBackslash run kernel (sse2 or avx2) until
// t ends.
func forceIndex(t *testing.T, kernel string) {
	a := useIndexAVX2
	t.Cleanup(func() { useIndexAVX2 = a })
	switch kernel {
	case "sse2":
		useIndexAVX2 = false
	case "avx2":
		if !cpu.X86.HasAVX2 {
			t.Fatal("no AVX2 on this CPU")
		}
		useIndexAVX2 = true
	default:
		t.Fatalf("no kernel %q", kernel)
	}
}
