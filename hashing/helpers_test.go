package hashing

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

var seedFlag = flag.Uint64("hashing.seed", 0, "seed for the random tests (0: from the clock)")

// forEachImpl runs f once per path, each forced through the registry, as
// a subtest named impl=NAME (impltest.ForEach: a path this CPU lacks is
// skipped, unless BBDIGEST_REQUIRE_IMPL names it, in which case the test
// fails), then once more as impl=stdlib-single.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	impltest.ForEach(t, paths, f)
	// The single-message kernel that hands messages to crypto/sha256 is
	// chosen only on CPUs with AVX2 and no SHA-NI; force it here so that
	// it is tested everywhere.
	t.Run("impl=stdlib-single", func(t *testing.T) {
		defer forceStdlibSingle()()
		f(t)
	})
}

// mustSelect forces the named path through the registry for the rest of
// the test or benchmark, and returns the function that restores the
// previous configuration (impltest.Select: a path this CPU or build lacks
// is skipped, or fails the test where BBDIGEST_REQUIRE_IMPL names it).
func mustSelect(tb testing.TB, name string) (restore func()) {
	tb.Helper()
	return impltest.Select(tb, paths, name)
}

// forceStdlibSingle puts crypto/sha256's single-message kernel in force,
// with the batch kernel that detect chooses on AVX2 without SHA-NI, and
// returns the function that restores the configuration. It is not a path
// one can select by name.
func forceStdlibSingle() (restore func()) {
	prev := active
	active = config{name: pathGeneric, single: pathStdlib, batch: batchSerial}
	if pathAvailable(pathAVX2) {
		active.batch = batchAVX2x8
	}
	return func() { active = prev }
}

// newRand returns a seeded generator and logs the seed, so that a failure
// can be replayed with -hashing.seed.
func newRand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -hashing.seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
