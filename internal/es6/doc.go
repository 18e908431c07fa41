// Package es6 is the number layer of the RFC 8785 (JSON Canonicalization
// Scheme) canonicalizer.
//
// It converts in both directions between JSON number literals and IEEE-754
// binary64 values, exactly as RFC 8785 §3.2.2.3 requires:
//
//   - [AppendFloat] renders a finite float64 the way ECMAScript's
//     Number.prototype.toString does (ECMA-262, Number::toString): the
//     shortest decimal that rounds back to the same double, with ties between
//     equally short decimals broken towards the closer one (then the even
//     one), laid out in plain or exponential notation by the ECMA-262 rules.
//     The shortest digits come from a Schubfach-style algorithm (R. Giulietti,
//     "The Schubfach way to render doubles") on 128-bit powers of ten, and
//     integers below 2^53 are printed directly.
//   - [ParseFloat] converts a validated JSON number literal to the correctly
//     rounded (round-half-even) double. Most literals take Clinger's exact
//     fast path or the Eisel–Lemire algorithm on the digits read straight
//     from the byte slice. The rare literals those two cannot decide go to an
//     exact arbitrary-precision decimal conversion that runs in a fixed-size
//     buffer on the stack.
//   - [AppendFloatSlow] is the test oracle for AppendFloat. It is built on
//     strconv.FormatFloat and the ECMA-262 layout rules, written as directly
//     as possible.
//
// AppendFloat and ParseFloat do not allocate (AppendFloat allocates only when
// dst has to grow), so the canonicalizer can call them on its hot path.
package es6
