// This file holds the SHA-256 paths: their names, the configuration in
// force (active), how the BBDIGEST_SHA256 environment variable forces one,
// and the package's entry in the module's registry of kernels
// (internal/impl), through which tests force a path and bbdigest cpu
// reports the one in force.

package hashing

import (
	"errors"
	"os"

	"github.com/bbdigest/bbdigest/internal/impl"
)

// pathID names a SHA-256 path, the unit that tests force (through the
// registry) and that BBDIGEST_SHA256 selects.
type pathID uint8

const (
	pathGeneric pathID = iota // blockGeneric, pure Go
	pathSHANI                 // x86 SHA extensions; batches: 2 interleaved streams
	pathAVX2                  // batches: 8 AVX2 lanes
	pathAVX512                // batches: 16 AVX-512 lanes
	pathARM64                 // Armv8 SHA2 instructions
	numPaths
)

// pathStdlib is not a path one can select: it is the single-message
// kernel on CPUs where crypto/sha256 has assembly that this package lacks
// (amd64 with AVX2 but no SHA-NI). Sum256 and New then hand the message to
// crypto/sha256 itself, whose state format is ours.
const pathStdlib = numPaths

var pathNames = [numPaths]string{"generic", "shani", "avx2", "avx512", "arm64"}

func (p pathID) String() string {
	if p == pathStdlib {
		return "stdlib"
	}
	return pathNames[p]
}

// batchID names the kernel behind SumMany and Batcher.
type batchID uint8

const (
	batchSerial    batchID = iota // one message after another through block
	batchSHANIx2                  // blockSHANIx2
	batchAVX2x8                   // blockAVX2x8
	batchAVX512x16                // blockAVX512x16
)

func (b batchID) String() string {
	switch b {
	case batchSHANIx2:
		return "shani-x2"
	case batchAVX2x8:
		return "avx2-x8"
	case batchAVX512x16:
		return "avx512-x16"
	}
	return "serial"
}

// lanes returns how many messages the kernel hashes at once.
func (b batchID) lanes() int {
	switch b {
	case batchSHANIx2:
		return 2
	case batchAVX2x8:
		return 8
	case batchAVX512x16:
		return 16
	}
	return 1
}

// config is the set of kernels in force.
type config struct {
	name   pathID  // the path as named by the registry, BBDIGEST_SHA256 or detection
	single pathID  // kernel for single messages (block)
	batch  batchID // kernel for SumMany and Batcher
}

// active is read by every hash call. It is written only at init and by
// the registry's Select (tests and benchmarks), which must not run
// concurrently with hashing.
var active config

// detected is what the CPU supports best, before any forcing.
var detected config

// envVar is the environment variable that forces a path at start-up; see
// the package documentation.
const envVar = "BBDIGEST_SHA256"

// paths is the package's entry in the registry of kernels: the SHA-256
// path, forced in tests with paths.Select (impltest.ForEach).
var paths *impl.Kernel

func init() {
	detected = detect()
	active = detected
	var forced, warning string
	if v, ok := os.LookupEnv(envVar); ok && v != "" {
		forced = v
		if p, err := lookupPath(v); err != nil {
			warning = "hashing: " + envVar + "=" + v + ": " + err.Error() + "; using detected path " + detected.name.String()
		} else {
			active = configFor(p)
		}
	}
	impls := make([]impl.Impl, numPaths)
	for i, n := range pathNames {
		impls[i] = impl.Impl{Name: n, Available: pathAvailable(pathID(i))}
	}
	paths = impl.Register(&impl.Kernel{
		Package: "hashing",
		Name:    "sha256",
		Impls:   impls,
		Active:  func() string { return active.name.String() },
		Set: func(name string) func() {
			p, _ := lookupPath(name) // Select passes only available names
			prev := active
			active = configFor(p)
			return func() { active = prev }
		},
		// "shani" uses SHA-NI for single messages and two interleaved
		// SHA-NI streams for batches; "avx2" and "avx512" use eight AVX2 or
		// sixteen AVX-512 lanes for batches and the best single-message
		// kernel (shani if present, else crypto/sha256's own, reported as
		// "stdlib"); "generic" and "arm64" hash batches one message at a
		// time.
		Parts: func() []impl.Part {
			return []impl.Part{
				{Role: "single", Name: active.single.String(), Lanes: 1},
				{Role: "batch", Name: active.batch.String(), Lanes: active.batch.lanes()},
			}
		},
		Env:     envVar,
		Forced:  forced,
		Warning: warning,
	})
}

// The reasons lookupPath gives, in the warning about BBDIGEST_SHA256.
var (
	errUnknownPath     = errors.New("unknown path")
	errUnavailablePath = errors.New("path not available on this CPU or in this build")
)

// lookupPath returns the path called name, if this CPU and build can run it.
func lookupPath(name string) (pathID, error) {
	for i, n := range pathNames {
		if n == name {
			if !pathAvailable(pathID(i)) {
				return 0, errUnavailablePath
			}
			return pathID(i), nil
		}
	}
	return 0, errUnknownPath
}
