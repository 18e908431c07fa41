//go:build (!amd64 && !arm64) || purego

package hashing

// Without assembly (the purego tag, or an architecture without kernels)
// every path is blockGeneric and batches are hashed one message at a time.

func pathAvailable(p pathID) bool { return p == pathGeneric }

func detect() config { return configFor(pathGeneric) }

func configFor(pathID) config {
	return config{name: pathGeneric, single: pathGeneric, batch: batchSerial}
}

func blockArch(_ pathID, h *[8]uint32, b []byte) { blockGeneric(h, b) }

func lanesKernel(b batchID, st *laneState, n int) {
	panic("BUG: hashing: no lanes kernel for batch path " + b.String())
}
