//go:build !purego

package hashing

//go:generate sh -c "cd _asm && go run . -out ../block_amd64.s -arm64 ../block_arm64.s"

import "github.com/bbdigest/bbdigest/internal/cpu"

// Feature bools, each combining every CPUID bit its kernel needs
// (internal/cpu, which also checks that the OS saves the YMM state before
// reporting AVX and AVX2).
var (
	hasSHANI = cpu.X86.HasSHA && cpu.X86.HasSSSE3 && cpu.X86.HasSSE41
	hasAVX2  = cpu.X86.HasAVX && cpu.X86.HasAVX2
	// hasAVX512 covers blockAVX512x16: AVX512F (VPRORD, VPTERNLOGD,
	// VSHUFI32X4, embedded broadcast) and AVX512BW (VPSHUFB on ZMM).
	// internal/cpu also checks that the OS saves the ZMM state.
	hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
	// stdlibAVX2 is when crypto/sha256 runs its own AVX2 kernel (it needs
	// BMI2 too), which beats blockGeneric for single messages.
	stdlibAVX2 = hasAVX2 && cpu.X86.HasBMI2
)

// blockSHANI works like blockGeneric. It requires the SHA extensions
// (hasSHANI).
//
//go:noescape
func blockSHANI(h *[8]uint32, p []byte)

// blockSHANIx2 compresses n blocks from st.ptr[0] into lane 0 of st.h and n
// blocks from st.ptr[1] into lane 1, each lane like blockGeneric. It
// requires hasSHANI.
//
//go:noescape
func blockSHANIx2(st *laneState, n int)

// blockAVX2x8 compresses n blocks from each of st.ptr[0..7] into lanes 0..7
// of st.h, each lane like blockGeneric. It requires hasAVX2.
//
//go:noescape
func blockAVX2x8(st *laneState, n int)

// blockAVX512x16 compresses n blocks from each of st.ptr[0..15] into lanes
// 0..15 of st.h, each lane like blockGeneric. It requires hasAVX512.
//
//go:noescape
func blockAVX512x16(st *laneState, n int)

func pathAvailable(p pathID) bool {
	switch p {
	case pathGeneric:
		return true
	case pathSHANI:
		return hasSHANI
	case pathAVX2:
		return hasAVX2
	case pathAVX512:
		return hasAVX512
	}
	return false
}

// detect returns the paths chosen when nothing is forced: the fastest
// single-message kernel, and for batches the kernel that beats serial
// hashing on this CPU. On Intel CPUs with AVX-512, sixteen AVX-512 lanes
// beat two interleaved SHA-NI streams (on Emerald Rapids). Elsewhere with
// SHA-NI, two SHA-NI streams beat eight AVX2 lanes (on AMD Zen 1, where
// AVX2 runs on 128-bit units; AVX-512 on AMD, which Zen 4 executes on
// 256-bit units, is not chosen before it is measured: it can be forced).
// BenchmarkSumMany compares the batch paths by name (impl=avx512,
// shani-x2, avx2, serial-stdlib) on the machine at hand. Without SHA-NI,
// crypto/sha256's own AVX2 kernel serves single messages (pathStdlib).
func detect() config {
	switch {
	case hasAVX512 && cpu.X86.Intel:
		return configFor(pathAVX512)
	case hasSHANI:
		return config{name: pathSHANI, single: pathSHANI, batch: batchSHANIx2}
	case hasAVX2:
		return configFor(pathAVX2)
	}
	return config{name: pathGeneric, single: pathGeneric, batch: batchSerial}
}

// configFor returns the configuration that forces path p, which must be
// available.
func configFor(p pathID) config {
	switch p {
	case pathSHANI:
		return config{name: p, single: pathSHANI, batch: batchSHANIx2}
	case pathAVX2, pathAVX512:
		single := pathGeneric
		switch {
		case hasSHANI:
			single = pathSHANI
		case stdlibAVX2:
			single = pathStdlib
		}
		b := batchAVX2x8
		if p == pathAVX512 {
			b = batchAVX512x16
		}
		return config{name: p, single: single, batch: b}
	}
	return config{name: pathGeneric, single: pathGeneric, batch: batchSerial}
}

// blockArch runs the single-message kernel p (never pathGeneric, which
// block handles) on at most maxAsmSize bytes.
func blockArch(p pathID, h *[8]uint32, b []byte) {
	switch p {
	case pathSHANI:
		blockSHANI(h, b)
	default:
		blockGeneric(h, b)
	}
}

// lanesKernel runs the multi-buffer kernel of kind b for n blocks.
func lanesKernel(b batchID, st *laneState, n int) {
	switch b {
	case batchSHANIx2:
		blockSHANIx2(st, n)
	case batchAVX2x8:
		blockAVX2x8(st, n)
	case batchAVX512x16:
		blockAVX512x16(st, n)
	default:
		panic("BUG: hashing: no lanes kernel for batch path " + b.String())
	}
}
