package es6

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// vectorSeeds returns the vectors of the shared es6numbers files, or none
// when they are missing outside CI (the seeds are a bonus; the vector tests
// report the missing files).
func vectorSeeds(f *testing.F) []vector {
	if _, err := os.Stat(conformanceDir); err != nil && !inCI() {
		return nil
	}
	var vs []vector
	for _, name := range []string{"es6testfile-first1000.txt", "appendix-b.txt"} {
		vs = append(vs, readVectors(f, name)...)
	}
	return vs
}

// FuzzAppendFloat compares AppendFloat with AppendFloatSlow for any bit
// pattern, and checks that finite outputs parse back to the same double
// with ParseFloat and with strconv.
func FuzzAppendFloat(f *testing.F) {
	for _, v := range vectorSeeds(f) {
		f.Add(v.bits)
	}
	for _, b := range []uint64{0, 1, 0x7FEFFFFFFFFFFFFF, 0x0010000000000000, 0x444B1AE4D6E2EF50,
		0x3EB0C6F7A0B5ED8D, 0x4340000000000000, 0x7FF8000000000000} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		got := AppendFloat(nil, x)
		want := AppendFloatSlow(nil, x)
		if string(got) != string(want) {
			t.Fatalf("AppendFloat(%#016x) = %q, AppendFloatSlow = %q", bits, got, want)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		if !validLiteral(got) {
			t.Fatalf("AppendFloat(%#016x) = %q is not a JSON number", bits, got)
		}
		p, ok := ParseFloat(got)
		if !ok || p != x || x != 0 && math.Float64bits(p) != bits {
			t.Fatalf("ParseFloat(AppendFloat(%#016x) = %q) = %v, %v", bits, got, p, ok)
		}
		if s, err := strconv.ParseFloat(string(got), 64); err != nil || s != x {
			t.Fatalf("strconv.ParseFloat(%q) = %v, %v; want %v", got, s, err, x)
		}
	})
}

// FuzzParseFloat compares ParseFloat with the reference conversion on
// valid literals, and checks that it does not panic on anything else.
func FuzzParseFloat(f *testing.F) {
	for _, v := range vectorSeeds(f) {
		if v.expected != "error" {
			f.Add([]byte(v.expected))
		}
	}
	for _, s := range []string{"0", "-0", "1e400", "-1e-400", "1.7976931348623158e308",
		"1.7976931348623159e308", "4503599627370496.5", "9007199254740993",
		"2.4703282292062327e-324", "2.4703282292062328e-324", "0.1e1", "1E+2",
		"123456789012345678901234567890e-10", "1" + strings.Repeat("0", 900) + "e-900",
		"-", "", "1e", "1.", ".5", "--1", "1e+", "0x10", "1.2.3", "1ee5", "\xff"} {
		f.Add([]byte(s))
	}
	if dir := filepath.Join(conformanceDir, "input"); inCI() || dirExists(dir) {
		// Numbers in the canonicalization inputs, roughly cut out.
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, name := range files {
			data, _ := os.ReadFile(name)
			for _, tok := range strings.FieldsFunc(string(data), func(r rune) bool {
				return !strings.ContainsRune("-+.0123456789eE", r)
			}) {
				f.Add([]byte(tok))
			}
		}
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		got, ok := ParseFloat(lit)
		if !validLiteral(lit) || !refAvailable(lit) {
			return
		}
		want := refParse(lit)
		if math.Float64bits(got) != math.Float64bits(want) || ok == math.IsInf(want, 0) {
			t.Fatalf("ParseFloat(%s) = %v, %v; want %v", abbrev(lit), got, ok, want)
		}
	})
}

func dirExists(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}
