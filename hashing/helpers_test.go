package hashing

import (
	"flag"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/implreq"
)

var seedFlag = flag.Uint64("hashing.seed", 0, "seed for the random tests (0: from the clock)")

// requireEnv names the paths that must be available: a test run on a
// machine declared to have them fails instead of skipping them.
const requireEnv = "BBDIGEST_REQUIRE_IMPL"

func requiredImpls() []string { return implreq.Names(requireEnv) }

// forEachImpl runs f once per path, each forced with Select, as a subtest
// named impl=NAME. A path this CPU lacks is skipped, unless it is named in
// BBDIGEST_REQUIRE_IMPL, in which case the test fails.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	avail := Implementations()
	for _, name := range Paths() {
		t.Run("impl="+name, func(t *testing.T) {
			if !slices.Contains(avail, name) {
				if slices.Contains(requiredImpls(), name) {
					t.Fatalf("path %s is required by %s=%s but not available (available: %v)",
						name, requireEnv, os.Getenv(requireEnv), avail)
				}
				t.Skipf("path %s not available on this CPU/build", name)
			}
			restore, err := Select(name)
			if err != nil {
				t.Fatal(err)
			}
			defer restore()
			f(t)
		})
	}
	// The single-message kernel that hands messages to crypto/sha256 is
	// chosen only on CPUs with AVX2 and no SHA-NI; force it here so that
	// it is tested everywhere.
	t.Run("impl=stdlib-single", func(t *testing.T) {
		prev := active
		active = config{name: pathGeneric, single: pathStdlib, batch: batchSerial}
		if pathAvailable(pathAVX2) {
			// As detect chooses on AVX2 without SHA-NI.
			active.batch = batchAVX2x8
		}
		defer func() { active = prev }()
		f(t)
	})
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
