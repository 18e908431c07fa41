package main

import (
	"strings"
	"testing"
)

// TestCanon runs bbdigest canon on files and stdin, under both profiles,
// with every kind of rejection and usage error.
func TestCanon(t *testing.T) {
	runCases(t, []runCase{
		{name: "canon file", args: []string{"canon", "a.json"}, stdout: aCanon},
		{name: "canon stdin", args: []string{"canon"}, stdin: testFiles["b.json"], stdout: bCanon},
		{name: "canon dash", args: []string{"canon", "-"}, stdin: testFiles["b.json"], stdout: bCanon},
		{name: "canon rfc8785", args: []string{"canon", "--profile", "rfc8785", "frac.json"}, stdout: "[0.5]"},
		{name: "canon rfc8785 =", args: []string{"canon", "-profile=rfc8785", "-"}, stdin: "1E400", code: 1,
			errRE: `^bbdigest: error: -: "": number-range: number "1E400" overflows an IEEE-754 double at offset 0\n$`},
		{name: "canon strict rejects", args: []string{"canon", "frac.json"}, code: 1,
			errRE: `^bbdigest: error: frac.json: "/0": non-integer: number "5E-1" is not an integer at offset 1\n$`},
		{name: "canon dup", args: []string{"canon", "dup.json"}, code: 1,
			errRE: `^bbdigest: error: dup.json: "/a": duplicate-name: duplicate object member name "a" at offset 9\n$`},
		{name: "canon depth", args: []string{"canon"}, stdin: strings.Repeat("[", 65) + strings.Repeat("]", 65), code: 1,
			errRE: `^bbdigest: error: -: "(/0){64}": depth: array opens nesting level 65, deeper than 64 at offset 64\n$`},
		{name: "canon depth 64", args: []string{"canon"}, stdin: strings.Repeat("[ ", 64) + strings.Repeat("]", 64),
			stdout: strings.Repeat("[", 64) + strings.Repeat("]", 64)},
		{name: "canon invalid utf8", args: []string{"canon"}, stdin: "\"\xff\"", code: 1,
			errRE: `^bbdigest: error: -: "": invalid-utf8: invalid UTF-8 byte 0xff in a string at offset 1\n$`},
		{name: "canon envelope", args: []string{"canon", "env.json"}, outRE: `\A\{"findings":\[.{882}\z`},
		{name: "canon missing", args: []string{"canon", "nope.json"}, code: 2,
			errRE: `^bbdigest: error: nope.json: open: no such file or directory\n$`},
		{name: "canon two inputs", args: []string{"canon", "a.json", "b.json"}, code: 2,
			errRE: `^bbdigest: error: canon: too many inputs \(2\)\n`},
		{name: "canon unknown profile", args: []string{"canon", "--profile", "i-json", "a.json"}, code: 2,
			errRE: `^bbdigest: error: unknown profile "i-json"\nbbdigest: hint: `},
		{name: "canon flag after operand", args: []string{"canon", "a.json", "--lines"}, stdout: aCanon + "\n"},
		{name: "canon flag value after operand", args: []string{"canon", "frac.json", "--profile", "rfc8785"}, stdout: "[0.5]"},
		{name: "canon operand after dashdash", args: []string{"canon", "--", "--lines"}, code: 2,
			errRE: `^bbdigest: error: --lines: open: no such file or directory\n$`},
		{name: "canon bad flag", args: []string{"canon", "-x"}, code: 2,
			errRE: `^bbdigest: error: canon: unknown flag --x\nbbdigest: hint: run 'bbdigest help canon' for usage\n$`},
		{name: "canon -h", args: []string{"canon", "-h"}, stdout: helpText("canon")},
		{name: "canon --help", args: []string{"canon", "--help"}, stdout: helpText("canon")},
	})
}
