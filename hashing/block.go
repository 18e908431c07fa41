// This file holds the portable reference for every SHA-256 path: the round
// constants, the initial hash value, blockGeneric, and the single dispatcher
// (block) through which every entry point of the package compresses
// blocks. The per-architecture files (block_amd64.go, block_arm64.go,
// block_noasm.go) supply blockArch, which blockGeneric is the truth for.

package hashing

import (
	"encoding/binary"
	"math/bits"
)

// iv is the SHA-256 initial hash value H(0) (FIPS 180-4, section 5.3.3).
var iv = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// iv224 is the SHA-224 initial hash value H(0) (FIPS 180-4, section
// 5.3.2). SHA-224 uses the compression function of SHA-256 from it.
var iv224 = [8]uint32{
	0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
	0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4,
}

// k is the SHA-256 constant table K (FIPS 180-4, section 4.2.2).
var k = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// maxAsmSize is the most input one assembly call may process. Assembly is
// not preemptible, so long inputs are cut into chunks of at most this size,
// as crypto/internal/fips140/sha256 does.
const (
	maxAsmBlocks = 1024
	maxAsmSize   = BlockSize * maxAsmBlocks // 64 KiB
)

// blockGeneric compresses the whole 64-byte blocks of p into h, following
// FIPS 180-4, section 6.2.2, step by step. len(p) must be a multiple of
// BlockSize. It is the reference that every other block function must
// match bit for bit.
func blockGeneric(h *[8]uint32, p []byte) {
	var w [64]uint32
	h0, h1, h2, h3, h4, h5, h6, h7 := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for len(p) >= BlockSize {
		// 1. Prepare the message schedule.
		for t := 0; t < 16; t++ {
			w[t] = binary.BigEndian.Uint32(p[4*t:])
		}
		for t := 16; t < 64; t++ {
			v1 := w[t-2]
			sigma1 := bits.RotateLeft32(v1, -17) ^ bits.RotateLeft32(v1, -19) ^ (v1 >> 10)
			v2 := w[t-15]
			sigma0 := bits.RotateLeft32(v2, -7) ^ bits.RotateLeft32(v2, -18) ^ (v2 >> 3)
			w[t] = sigma1 + w[t-7] + sigma0 + w[t-16]
		}

		// 2. Initialise the working variables.
		a, b, c, d, e, f, g, hh := h0, h1, h2, h3, h4, h5, h6, h7

		// 3. Sixty-four rounds.
		for t := 0; t < 64; t++ {
			bigSigma1 := bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)
			ch := (e & f) ^ (^e & g)
			t1 := hh + bigSigma1 + ch + k[t] + w[t]
			bigSigma0 := bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)
			maj := (a & b) ^ (a & c) ^ (b & c)
			t2 := bigSigma0 + maj
			hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
		}

		// 4. Compute the intermediate hash value.
		h0 += a
		h1 += b
		h2 += c
		h3 += d
		h4 += e
		h5 += f
		h6 += g
		h7 += hh

		p = p[BlockSize:]
	}
	h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7] = h0, h1, h2, h3, h4, h5, h6, h7
}

// block compresses the whole blocks of p into h with the single-message
// path in force (see impl.go). Every entry point of the package that
// hashes one message goes through it. len(p) must be a multiple of
// BlockSize; inputs longer than maxAsmSize are handed to assembly in chunks
// so that a goroutine hashing a large buffer stays preemptible.
func block(h *[8]uint32, p []byte) {
	path := active.single
	if path == pathGeneric || path == pathStdlib {
		// pathStdlib: Sum256 and New go to crypto/sha256 directly; what
		// still comes here (a state restored under another path) is rare.
		blockGeneric(h, p)
		return
	}
	for len(p) > maxAsmSize {
		blockArch(path, h, p[:maxAsmSize])
		p = p[maxAsmSize:]
	}
	if len(p) > 0 {
		blockArch(path, h, p)
	}
}
