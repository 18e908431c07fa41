package hashing

import (
	"errors"
	"testing"

	"github.com/bbdigest/bbdigest/internal/inlinecheck"
)

// inlined lists the small functions of the Go bookkeeping between two
// kernel calls of sumLanes, which runs once per lane per call: each must be
// inlinable, and inlined at every call (TestInline).
var inlined = []string{
	"batchID.lanes",
	"(*lane).blocksLeft",
	"(*laneState).get",
	"(*laneState).set",
	"putDigest",
}

// TestInline pins the inlining decisions listed in inlined: SumMany's
// speed on short messages depends on them.
func TestInline(t *testing.T) {
	problems, err := inlinecheck.Check("github.com/bbdigest/bbdigest/hashing", inlined, nil)
	if errors.Is(err, inlinecheck.ErrNoGo) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}
