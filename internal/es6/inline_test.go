package es6

import (
	"testing"

	"github.com/bbdigest/bbdigest/internal/inlinecheck"
)

// inlined lists the small functions that es6's formatting and parsing
// depend on being inlined (TestInline), and the exported helpers that
// canon calls on its number path, which must inline into it.
var inlined = []string{
	// Shortest digits (Schubfach): the exponent estimates and the three
	// rounded-to-odd products of every non-integer double.
	"flog10Pow2",
	"flog10ThreeQuartersPow2",
	"flog2Pow10",
	"rop",
	"divPow10",
	// Writing digits, eight at a time.
	"decimalLen",
	"digits8",
	// Reading digits, eight at a time.
	"eightDigits",
	"combine8",
	// Called by canon for each literal of at most 19 digits (its
	// TestInline checks those calls).
	"AppendDigits",
	"TrimZeros",
	"DecimalLen",
	"FromDecimal",
}

// TestInline pins the inlining decisions listed in inlined: es6's speed,
// and canon's on numbers, depends on them.
func TestInline(t *testing.T) {
	inlinecheck.Test(t, "github.com/bbdigest/bbdigest/internal/es6", inlined, nil)
}
