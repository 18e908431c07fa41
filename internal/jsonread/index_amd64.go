//go:build !purego

package jsonread

import "github.com/bbdigest/bbdigest/internal/cpu"

// The kernels of indexQuoteOrBackslash (index_amd64.s): SSE2, which every
// amd64 CPU has, and AVX2, 32 bytes per step, where the CPU has it (as
// bytes.IndexByte does past 32 bytes). The choice is made in the
// assembly, so that a call costs one call; tests set useIndexAVX2 to run
// each kernel on the same inputs (forceIndex), and run the generic path
// itself, which is every other platform's and purego's.
var useIndexAVX2 = cpu.X86.HasAVX2

// indexQuoteOrBackslash returns the index of the first byte of b that is
// '"' or '\\', or -1 when there is none. It jumps to the AVX2 kernel when
// useIndexAVX2 is set and b holds at least 32 bytes, else to the SSE2
// kernel. Neither reads a byte outside b: the last bytes that do not
// fill a step are read by a load that ends at b's end and overlaps bytes
// already found to hold neither, or, in a b shorter than sixteen bytes,
// one at a time.
//
//go:noescape
func indexQuoteOrBackslash(b []byte) int

// indexQuoteOrBackslashSSE2 is the SSE2 kernel, sixteen bytes per step.
//
//go:noescape
func indexQuoteOrBackslashSSE2(b []byte) int

// indexQuoteOrBackslashAVX2 is the AVX2 kernel, 32 bytes per step; b holds
// at least 32 bytes.
//
//go:noescape
func indexQuoteOrBackslashAVX2(b []byte) int
