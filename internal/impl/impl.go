// Package impl is the registry of the module's kernels, in the manner of the
// standard library's crypto/internal/impl: for each computation that has
// alternative implementations (hashing's SHA-256 path, canon's string
// classifier, UTF-8 check, whitespace compression and rank sort), the names
// of its implementations, which ones this CPU and build can run, which one
// is in force, and how tests force one.
//
// hashing and canon register their kernels when they initialise. The
// tests (through internal/impl/impltest), the BBDIGEST_REQUIRE_IMPL and
// BBDIGEST_REQUIRE_CANON checks and the CLI's cpu command read the
// registry; no hot path does. Each package keeps the plain variables its
// kernels branch on, and [Kernel.Select] writes them through the package's
// own Set function, so the registry costs the hashing and canonicalizing
// nothing.
package impl

import (
	"errors"
	"slices"
	"strings"
)

// Impl is one implementation of a kernel.
type Impl struct {
	Name      string // "generic", "shani", "avx512", …
	Available bool   // this CPU and build can run it
}

// Kernel is one computation with alternative implementations. The
// registering package fills in every field before [Register]; after it,
// the fields do not change.
type Kernel struct {
	Package string // the package that registered it: "hashing", "canon"
	Name    string // what it computes: "sha256", "classify", "utf8", "minify", "rank"

	// Impls lists every implementation this build knows, available or not,
	// the portable one (the base, used where nothing faster runs) first.
	Impls []Impl

	// Active returns the name of the implementation in force.
	Active func() string

	// Set puts the named implementation in force and returns a function
	// that restores what was in force before. It is called only by Select,
	// with the name of an available implementation. It writes the plain
	// variables the package's kernels read, so it must not run while other
	// goroutines use the package.
	Set func(name string) (restore func())

	// Parts, if not nil, reports the kernels that the implementation in
	// force runs, where it runs more than one (a SHA-256 path runs one for
	// single messages and one for batches).
	Parts func() []Part

	// Env names the environment variable that forces an implementation
	// when the package initialises ("" if there is none). Forced is the
	// value it had ("" if unset), and Warning says why that value was not
	// used ("" if it was, or the variable was unset).
	Env, Forced, Warning string
}

// Part is one of the kernels that an implementation runs.
type Part struct {
	Role  string // what it serves: "single", "batch"
	Name  string // the kernel: "shani", "avx512-x16", …
	Lanes int    // how many inputs it processes at once
}

// registry holds the kernels in registration order. It is written only
// while packages initialise.
var registry []*Kernel

// Register adds k to the registry and returns it. It is called from the
// init function of the package that owns k, and panics if k is incomplete
// or already registered (a bug in that package).
func Register(k *Kernel) *Kernel {
	if k.Package == "" || k.Name == "" || len(k.Impls) == 0 || k.Active == nil || k.Set == nil {
		panic("BUG: impl: incomplete kernel " + k.Package + "." + k.Name)
	}
	if Lookup(k.Package, k.Name) != nil {
		panic("BUG: impl: kernel " + k.Package + "." + k.Name + " registered twice")
	}
	registry = append(registry, k)
	return k
}

// Kernels returns the kernels registered by package pkg, in registration
// order, or every kernel if pkg is "".
func Kernels(pkg string) []*Kernel {
	var ks []*Kernel
	for _, k := range registry {
		if pkg == "" || k.Package == pkg {
			ks = append(ks, k)
		}
	}
	return ks
}

// Lookup returns the kernel name of package pkg, or nil if none is
// registered (the package is not linked into this program).
func Lookup(pkg, name string) *Kernel {
	for _, k := range registry {
		if k.Package == pkg && k.Name == name {
			return k
		}
	}
	return nil
}

// Names returns the names of every implementation of k, available or not,
// the base first.
func (k *Kernel) Names() []string {
	s := make([]string, len(k.Impls))
	for i, im := range k.Impls {
		s[i] = im.Name
	}
	return s
}

// Available returns the names of the implementations of k that this CPU
// and build can run, in the order of Names.
func (k *Kernel) Available() []string {
	var s []string
	for _, im := range k.Impls {
		if im.Available {
			s = append(s, im.Name)
		}
	}
	return s
}

// Has reports whether k has an implementation called name that this CPU
// and build can run.
func (k *Kernel) Has(name string) bool {
	return slices.Contains(k.Available(), name)
}

// Select puts the named implementation of k in force, and returns a
// function that restores what was in force before the call. It is meant
// for tests and benchmarks, and must not be called while other goroutines
// use the package. On error (an unknown name, or an implementation this
// CPU or build lacks; the error is an [*Error]) nothing changes and
// restore is a no-op.
func (k *Kernel) Select(name string) (restore func(), err error) {
	switch {
	case k.Has(name):
		return k.Set(name), nil
	case slices.Contains(k.Names(), name):
		err = ErrUnavailable
	default:
		err = ErrUnknown
	}
	return func() {}, &Error{Kernel: k, Name: name, Err: err}
}

// The causes of an [*Error].
var (
	ErrUnknown     = errors.New("unknown implementation")
	ErrUnavailable = errors.New("implementation not available on this CPU or in this build")
)

// Error is returned by [Kernel.Select] for a name it cannot use.
type Error struct {
	Kernel *Kernel
	Name   string
	Err    error // ErrUnknown or ErrUnavailable
}

// Error returns a message naming the kernel, the implementation, the
// reason and the implementations that are available.
func (e *Error) Error() string {
	return e.Kernel.Package + ": " + e.Kernel.Name + ` "` + e.Name + `": ` + e.Err.Error() +
		" (available: " + strings.Join(e.Kernel.Available(), ", ") + ")"
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
