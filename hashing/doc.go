// Package hashing computes SHA-256 (FIPS 180-4) for bbdigest: a portable
// [Digest] value with a strict text form, a drop-in replacement for
// crypto/sha256, and [SumMany] and [Batcher], which hash many independent
// messages at once on SIMD lanes.
//
// # Digest
//
// A [Digest] is a [32]byte value. Its text form, used by String,
// MarshalText and MarshalJSON, is "sha256:" followed by 64 lowercase
// hexadecimal digits. [ParseDigest] accepts exactly that and nothing else:
// no other algorithm prefix, no uppercase digits, no surrounding space, no
// missing or extra digits. Every rejection is a [*DigestError] wrapping
// [ErrInvalidDigest]. [Digest.AppendTo] is the allocation-free form of
// String. In fmt, %s, %v and %q print the text form, while %x and %X print
// the 64 hex digits alone, as they do for a [32]byte (see [Digest.Format]);
// [Digest.Hex] and [Digest.Bytes] return the digits and the bytes.
//
// # Drop-in for crypto/sha256
//
// Each exported name of crypto/sha256 has a namesake here that computes
// the same: [Size], [Size224], [BlockSize], [New], [New224], [Sum256] and
// [Sum224], all through the dispatcher below. The states returned by New
// and New224 implement [hash.Hash], [hash.Cloner],
// [encoding.BinaryMarshaler], [encoding.BinaryAppender] and
// [encoding.BinaryUnmarshaler], in the standard library's state format
// ("sha\x03" for SHA-256 or "sha\x02" for SHA-224, then the eight chaining
// words, the buffered block and the length, all big-endian), so a
// half-written state can move between crypto/sha256 and this package in
// either direction. Sum256, Sum224, Sum, and Write and Sum on a reused
// state do not allocate.
//
// One difference remains: New and New224 allocate where crypto/sha256's
// constructors need not. Those are inlined and return one concrete type,
// so the compiler makes the calls on the result direct and keeps the state
// on the caller's stack. New and New224 return one of two types, chosen at
// run time from the CPU (see [New]), so the calls stay dynamic and the
// state, and any slice passed to Write or Sum, escape to the heap: inside
// a function, h := New(); h.Write(b); h.Sum(buf[:0]) with a local array
// buf makes two allocations where crypto/sha256 makes none. Sum256, Sum224,
// or one hash.Hash kept and Reset, hash without allocating.
//
// # Paths
//
// Every entry point compresses blocks through one dispatcher, which runs
// the path chosen at start-up:
//
//	generic  pure Go (blockGeneric in block.go), the reference for all others
//	shani    x86 SHA extensions; batches run two interleaved SHA-NI streams
//	avx2     batches on 8 AVX2 lanes; single messages use shani if present, else crypto/sha256
//	avx512   batches on 16 AVX-512 lanes; single messages as for avx2
//	arm64    Armv8.0 SHA2 instructions; batches are hashed one message at a time
//
// Detection uses github.com/klauspost/cpuid/v2 (through internal/cpu),
// which also checks that the OS saves the vector state. Single messages
// go to SHA-NI where the CPU has it; with AVX2 but no SHA-NI, to
// crypto/sha256 itself, whose AVX2 kernel this package does not duplicate
// (bbdigest cpu reports the single kernel as "stdlib"; New and New224 then
// return crypto/sha256.New() and New224(), whose state format is the
// same); elsewhere to generic, or arm64 where the SHA2 instructions exist.
//
// # The batch kernel
//
// SumMany and Batcher run the kernel that does the most work on CPUs of
// this kind, chosen from what the CPU does, not from its vendor: whether it
// has AVX-512 (F and BW), SHA-NI and AVX2, and how wide its vector
// datapath is, as the CPU reports it (AMD's CPUID leaf 0x8000001A: a
// datapath of at most 128 or 256 bits runs a 512-bit instruction as two
// halves or more; Intel does not report one and runs AVX-512 at full
// width). In order:
//
//	AVX-512 at full width            avx512: 16 AVX-512 lanes
//	SHA-NI                           shani: 2 interleaved SHA-NI streams
//	AVX-512 on a narrower datapath   avx512 (no such CPU without SHA-NI is known)
//	AVX2                             avx2: 8 AVX2 lanes
//	otherwise                        generic: one message after another
//
// What that gives, and why:
//
//	Intel with AVX-512 (Skylake-SP  avx512    Emerald Rapids: 16 lanes far ahead of serial
//	  to Granite Rapids)                      SHA-NI and of 2 SHA-NI streams, which gain
//	                                          little over one; before Ice Lake there is
//	                                          no SHA-NI, and 16 lanes do twice the work
//	                                          of 8 AVX2 lanes
//	AMD Zen 5 (full-width AVX-512)  avx512    EPYC (family 26 model 2): 16 lanes ahead of
//	                                          2 SHA-NI streams on every length profile
//	                                          (level where one long message bounds the
//	                                          batch), least on short messages, where the
//	                                          Go bookkeeping per message weighs most
//	AMD Zen 4 (reports FP256)       shani     AVX-512 as two 256-bit halves: on an EPYC
//	                                          (family 25 model 17), 16 lanes barely
//	                                          ahead of 2 SHA-NI streams at 1 KiB, behind
//	                                          on short and mixed lengths and on 1-2 KB
//	                                          with both cores hashing; batch.Stream on
//	                                          envelopes: no difference
//	AMD Zen 1 to 3, Hygon           shani     no AVX-512; on Zen 1 8 AVX2 lanes run on
//	                                          128-bit units, and 2 SHA-NI streams gain
//	                                          much over serial
//	Intel without AVX-512, SHA-NI   shani
//	AVX2 without SHA-NI (Haswell)   avx2
//
// Within a batch, the wide kernels (16 AVX-512 or 8 AVX2 lanes) are kept
// in step, since a kernel call runs as many blocks as the shortest lane
// has left and each call costs Go bookkeeping for every lane: messages
// start longest first by block count, window by window of a few hundred,
// so that lanes of equal block count finish in the same call, and a batch
// of mixed lengths costs about one call per round of lanes rather than one
// per message. A window whose first messages are already in that order
// (equal lengths) is taken as it is, so uniform batches pay almost nothing
// for the check. At the end of a batch, when every message has started and
// fewer than half the lanes are busy, a call of the wide kernel does less
// work than two SHA-NI streams would: where the CPU has SHA-NI, the busy
// lanes move to them (and the last to one stream), so a batch of only a
// few messages is hashed on the SHA-NI streams from the start. How many
// of the sixteen lanes two SHA-NI streams are worth depends on the
// microarchitecture (the speed of its SHA unit against its vector units);
// the switch is made at half the lanes, at or below the break-even of the
// CPUs measured, so that a CPU with a slower SHA unit loses nothing to it.
//
// hashing's BenchmarkSumMany (one core) and bench's
// BenchmarkSumManyParallel (every core at once, as batch's workers hash)
// compare the batch kernels by name on the machine at hand, and their doc
// comments keep the measurements this table rests on; and
// BBDIGEST_SHA256=avx512 (or shani, avx2) forces one. The command bbdigest
// cpu reports the features found (fp128 and fp256 among them), the paths
// this CPU and build can run, and the kernels in force.
//
// Assembly is handed at most 64 KiB per lane per call, so a goroutine
// hashing a large buffer stays preemptible.
//
// # Forcing a path
//
// For users, BBDIGEST_SHA256=generic|shani|avx2|avx512|arm64 forces a path
// when the package initialises. An unknown name, or a path this CPU or
// build cannot run, is not fatal: the package runs the detected path, as if
// the variable were unset, and bbdigest cpu prints a warning that says why.
//
// For tests and benchmarks, the paths are the kernel "sha256" of the
// module's registry of kernels (internal/impl, as the standard library's
// crypto/internal/impl): impltest.ForEach runs a test once per path, and
// Select forces one and returns the function that restores the previous
// configuration. Detection of the CPU features (internal/cpu) is shared
// with package canon.
//
// The tests read BBDIGEST_REQUIRE_IMPL, a comma-separated list of paths
// (e.g. shani,avx2): a path this machine lacks is normally skipped, but a
// required one makes the tests fail. testdata/qemu-arm64.sh runs the tests
// for linux/arm64 under qemu-user with BBDIGEST_REQUIRE_IMPL=arm64.
//
// # Build tags
//
// The purego tag builds without assembly: every path is generic and
// batches are hashed one message at a time (block_noasm.go). So do
// architectures other than amd64 and arm64. The amd64 and arm64 assembly
// is generated by the program in _asm (go generate), never edited by hand.
//
// # Concurrency
//
// Sum256, Sum, SumMany and the Digest functions are safe for concurrent
// use. A hash.Hash from New and a [Batcher] are not; give each goroutine
// its own. SumMany and Batcher use only the calling goroutine: to use
// every core, split the work across goroutines. Forcing a path in a test
// changes process-wide state and must not happen while other goroutines
// hash.
package hashing
