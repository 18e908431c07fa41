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
// single-message kernel, and for batches the kernel that beats the others
// on CPUs of this kind (batchPath).
func detect() config {
	return configFor(batchPath(x86Caps{
		sha:    hasSHANI,
		avx2:   hasAVX2,
		avx512: hasAVX512,
		narrow: cpu.X86.HasFP128 || cpu.X86.HasFP256,
	}))
}

// x86Caps is what batchPath reads of a CPU.
type x86Caps struct {
	sha, avx2, avx512 bool // the kernels' features: hasSHANI, hasAVX2, hasAVX512
	// narrow: the CPU reports a vector datapath of at most 256 bits
	// (AMD's CPUID leaf 0x8000001A), on which a 512-bit instruction
	// runs as two halves or more.
	narrow bool
}

// batchPath returns the path whose batch kernel runs SumMany and Batcher by
// default on a CPU with capabilities c, from what the CPU does rather than
// its vendor (the table in doc.go; the measurements behind it are in the
// doc comments of BenchmarkSumMany and bench's BenchmarkSumManyParallel):
//
//   - AVX-512 at full width: sixteen AVX-512 lanes (avx512), which on
//     Intel Emerald Rapids leave serial SHA-NI, and two SHA-NI streams,
//     far behind: the SHA unit is near its limit with one stream, and the
//     sixteen lanes do not use it. On AMD Zen 5 the SHA unit is faster,
//     and the sixteen lanes lead two SHA-NI streams by less, least on
//     short messages; they lead on every length profile measured once the
//     batch is kept in step and its end, where few lanes would be busy,
//     goes to two SHA-NI streams (sumLanes, endOfBatch): the batch path is
//     then the better of the two through the whole batch, not a choice
//     between them made once.
//   - SHA-NI, with AVX-512 on a narrower datapath or none: two interleaved
//     SHA-NI streams (shani). On AMD Zen 4, which runs AVX-512 as two
//     256-bit halves, sixteen lanes are no faster for the 1-2 KB messages
//     of an archive, and slower on short and mixed lengths and with both
//     cores hashing; on Zen 1, eight AVX2 lanes on 128-bit units lose to
//     two SHA-NI streams, which gain much over serial there.
//   - AVX-512 on a narrow datapath without SHA-NI (no such CPU is known):
//     avx512, whose sixteen lanes do at least the work of eight AVX2 lanes
//     per instruction.
//   - AVX2: eight AVX2 lanes (avx2); single messages go to crypto/sha256.
//   - Otherwise serial hashing (generic).
//
// BenchmarkSumMany (one core) and bench's BenchmarkSumManyParallel (every
// core) compare the batch kernels by name on the machine at hand.
func batchPath(c x86Caps) pathID {
	switch {
	case c.avx512 && !c.narrow:
		return pathAVX512
	case c.sha:
		return pathSHANI
	case c.avx512:
		return pathAVX512
	case c.avx2:
		return pathAVX2
	}
	return pathGeneric
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
