// This file is the registry of SHA-256 paths: their names, which ones this
// CPU and build can run, the configuration in force (active), how tests
// and the BBDIGEST_SHA256 environment variable force one, and Describe.

package hashing

import (
	"errors"
	"os"
	"runtime"
	"strings"
)

// pathID names a SHA-256 path, the unit that tests force and that
// BBDIGEST_SHA256 selects.
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
	name   pathID  // the path as named by Select or detection
	single pathID  // kernel for single messages (block)
	batch  batchID // kernel for SumMany and Batcher
}

// active is read by every hash call. It is written only at init and by
// Select, which must not run concurrently with hashing.
var active config

var (
	detected      config // what the CPU supports best, before any forcing
	forcedWarning string
	forcedName    string
)

// EnvVar is the environment variable that forces a path at start-up; see
// the package documentation.
const EnvVar = "BBDIGEST_SHA256"

func init() {
	detected = detect()
	active = detected
	v, ok := os.LookupEnv(EnvVar)
	if !ok || v == "" {
		return
	}
	forcedName = v
	p, err := lookupPath(v)
	if err != nil {
		forcedWarning = "hashing: " + EnvVar + "=" + v + ": " + err.Error() + "; using detected path " + detected.name.String()
		return
	}
	active = configFor(p)
}

// errUnknownPath and errUnavailablePath are the causes Select reports.
var (
	errUnknownPath     = errors.New("unknown path")
	errUnavailablePath = errors.New("path not available on this CPU or in this build")
)

// PathError is returned by [Select] for a name it cannot use.
type PathError struct {
	Name string
	Err  error // errUnknownPath or errUnavailablePath
}

// Error returns a message naming the path, the reason and the paths that
// are available.
func (e *PathError) Error() string {
	return "hashing: path " + `"` + e.Name + `": ` + e.Err.Error() +
		" (available: " + strings.Join(Implementations(), ", ") + ")"
}

// Unwrap returns the cause.
func (e *PathError) Unwrap() error { return e.Err }

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

// Paths returns the names of every path this package knows, available or
// not: "generic", "shani", "avx2", "avx512", "arm64".
func Paths() []string {
	return append([]string(nil), pathNames[:]...)
}

// Implementations returns the names of the paths that this CPU and build
// can run, "generic" first. Each can be forced with [Select] or
// BBDIGEST_SHA256.
func Implementations() []string {
	var s []string
	for i, n := range pathNames {
		if pathAvailable(pathID(i)) {
			s = append(s, n)
		}
	}
	return s
}

// Select forces the named path for single messages and batches, and
// returns a function that restores the configuration in force before the
// call. It is meant for tests and benchmarks: it must not be called while
// other goroutines hash. On error (an unknown name, or a path this CPU or
// build lacks; the error is a [*PathError]) nothing changes and restore is
// a no-op.
//
// "shani" uses SHA-NI for single messages and two interleaved SHA-NI
// streams for batches; "avx2" and "avx512" use eight AVX2 or sixteen
// AVX-512 lanes for batches and the best single-message kernel (shani if
// present, else crypto/sha256's own, reported as "stdlib"); "generic" and
// "arm64" hash batches one message at a time.
func Select(name string) (restore func(), err error) {
	p, err := lookupPath(name)
	if err != nil {
		return func() {}, &PathError{Name: name, Err: err}
	}
	prev := active
	active = configFor(p)
	return func() { active = prev }, nil
}

// ForcedWarning returns why the path named by BBDIGEST_SHA256 was not
// used (unknown, or not available here), or "" when it was used or the
// variable was unset. In that case the package runs the detected path,
// as if the variable were unset.
func ForcedWarning() string { return forcedWarning }

// Description reports the CPU features that matter to SHA-256 and the
// paths in force. Its JSON field names are stable.
type Description struct {
	GOARCH          string   `json:"goarch"`
	CPU             string   `json:"cpu,omitempty"`
	PureGo          bool     `json:"purego"`
	Features        []string `json:"features"`        // CPU features found, lowercase
	Implementations []string `json:"implementations"` // paths available, see Implementations
	Path            string   `json:"path"`            // the path in force
	Single          string   `json:"single"`          // kernel for one message: generic, shani, arm64, stdlib
	Batch           string   `json:"batch"`           // kernel for SumMany: serial, shani-x2, avx2-x8, avx512-x16
	Lanes           int      `json:"lanes"`           // messages the batch kernel hashes at once
	Forced          string   `json:"forced,omitempty"`
	Warning         string   `json:"warning,omitempty"`
}

// Describe reports the features found, the available paths and the paths
// chosen for single messages and for batches.
func Describe() Description {
	f := archFeatures()
	if f == nil {
		f = []string{}
	}
	return Description{
		GOARCH:          runtime.GOARCH,
		CPU:             cpuName(),
		PureGo:          pureGo,
		Features:        f,
		Implementations: Implementations(),
		Path:            active.name.String(),
		Single:          active.single.String(),
		Batch:           active.batch.String(),
		Lanes:           active.batch.lanes(),
		Forced:          forcedName,
		Warning:         forcedWarning,
	}
}

// String returns the description as a few lines of text, such as
//
//	sha256 path: shani (single: shani, batch: shani-x2, 2 lanes)
//	available:   generic, shani, avx2
//	cpu:         AMD EPYC (amd64): sse4.1 ssse3 sha avx avx2 bmi2
func (d Description) String() string {
	var b strings.Builder
	b.WriteString("sha256 path: " + d.Path + " (single: " + d.Single + ", batch: " + d.Batch)
	if d.Lanes > 1 {
		b.WriteString(", " + itoa(d.Lanes) + " lanes")
	}
	b.WriteString(")\n")
	b.WriteString("available:   " + strings.Join(d.Implementations, ", ") + "\n")
	cpu := d.CPU
	if cpu == "" {
		cpu = "unknown"
	}
	b.WriteString("cpu:         " + cpu + " (" + d.GOARCH + "): " + strings.Join(d.Features, " "))
	if d.PureGo {
		b.WriteString("\nbuild:       purego (no assembly)")
	}
	if d.Forced != "" {
		b.WriteString("\n" + EnvVar + ": " + d.Forced)
	}
	if d.Warning != "" {
		b.WriteString("\nwarning:     " + d.Warning)
	}
	return b.String()
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
