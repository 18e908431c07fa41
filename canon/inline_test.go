package canon

import (
	"testing"

	"github.com/bbdigest/bbdigest/internal/inlinecheck"
)

// inlined lists the small functions that canon's hot paths call per byte
// run, per token or per member: each must be inlinable, and inlined at
// every call (TestInline).
var inlined = []string{
	// The scan loop (state.go): whitespace runs and pending-span copies
	// happen between most tokens of pretty-printed input.
	"wsEnd",
	"appendSpan",
	// Strings (scan.go, state.go, quick.go): the SWAR scanner, and the
	// escapes \uXXXX that are checked or decoded in line.
	"scanPlainGeneric",
	"specialBytes",
	"stopLanes",
	"firstSpecial",
	"(*Canonicalizer).hex4",
	"canonicalUEscape",
	// Numbers (number.go): digit runs, and the es6 steps of a literal of
	// at most 19 digits.
	"isDigit",
	"skipDigits",
	"es6.AppendDigits",
	"es6.TrimZeros",
	"es6.DecimalLen",
	"es6.FromDecimal",
	// Member order (state.go, order.go, permute.go): name comparison and
	// the moves of sortInPlace.
	"utf16Key",
	"(*Canonicalizer).offOf",
	"(*Canonicalizer).memberSpan",
}

// outOfLine lists the slow paths kept out of line so that the loop that
// calls them stays short and keeps its state in registers.
var outOfLine = []string{
	"(*Canonicalizer).escapedName",  // member names with escapes, from scan
	"(*Canonicalizer).quickEscaped", // strings with escapes, from quickCanonical
}

// TestInline pins the inlining decisions listed in inlined and outOfLine:
// canon's speed depends on them, and a change that loses one shows here
// by name rather than as a few percent in a benchmark.
func TestInline(t *testing.T) {
	inlinecheck.Test(t, "github.com/bbdigest/bbdigest/canon", inlined, outOfLine)
}
