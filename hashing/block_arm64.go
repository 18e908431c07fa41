//go:build !purego

package hashing

import "github.com/bbdigest/bbdigest/internal/cpu"

// hasSHA2 reports the Armv8.0 SHA2 instructions (HWCAP_SHA2 on Linux).
var hasSHA2 = cpu.ARM64.HasSHA2

// blockARM64 works like blockGeneric. It requires the Armv8.0 SHA2
// instructions (hasSHA2).
//
//go:noescape
func blockARM64(h *[8]uint32, p []byte)

func pathAvailable(p pathID) bool {
	switch p {
	case pathGeneric:
		return true
	case pathARM64:
		return hasSHA2
	}
	return false
}

// detect returns the paths chosen when nothing is forced. There is no
// multi-lane kernel for arm64: batches are hashed one message at a time.
func detect() config {
	if hasSHA2 {
		return configFor(pathARM64)
	}
	return configFor(pathGeneric)
}

// configFor returns the configuration that forces path p, which must be
// available.
func configFor(p pathID) config {
	if p == pathARM64 {
		return config{name: p, single: pathARM64, batch: batchSerial}
	}
	return config{name: pathGeneric, single: pathGeneric, batch: batchSerial}
}

// blockArch runs the single-message kernel p on at most maxAsmSize bytes.
func blockArch(p pathID, h *[8]uint32, b []byte) {
	if p == pathARM64 {
		blockARM64(h, b)
		return
	}
	blockGeneric(h, b)
}

func lanesKernel(b batchID, st *laneState, n int) {
	panic("BUG: hashing: no lanes kernel for batch path " + b.String())
}
