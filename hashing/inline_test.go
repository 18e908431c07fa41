package hashing

import (
	"testing"

	"github.com/bbdigest/bbdigest/internal/inlinecheck"
)

// inlined lists the small functions of the Go bookkeeping between two
// kernel calls of sumLanes, which runs once per lane per call: each must be
// inlinable, and inlined at every call (TestInline).
var inlined = []string{
	"batchID.lanes",
	"(*lane).blocksLeft",
	"(*lane).advance",
	"(*lane).blocks",
	"(*laneState).get",
	"(*laneState).set",
	"putDigest",
}

// TestInline pins the inlining decisions listed in inlined: SumMany's
// speed on short messages depends on them.
func TestInline(t *testing.T) {
	inlinecheck.Test(t, "github.com/bbdigest/bbdigest/hashing", inlined, nil)
}
