package main

import (
	"strings"
	"testing"
)

func TestRatiosPerRound(t *testing.T) {
	// Two rounds: the machine is twice as slow in the second, but the
	// peer is three times slower than the base in both.
	in := `goos: linux
BenchmarkX/input=a/lib=bbdigest-2   100  1000 ns/op  0 B/op
BenchmarkX/input=a/lib=peer-2       100  3000 ns/op
BenchmarkX/input=a/lib=bbdigest-2   100  2000 ns/op
BenchmarkX/input=a/lib=peer-2       100  6000 ns/op
BenchmarkX/input=b/lib=peer-2       100  5 ns/op
PASS
`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out, "bbdigest", "lib"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines:\n%s", len(lines), out.String())
	}
	want := []struct{ prefix, has string }{
		{"BenchmarkX/input=a", "1.500 µs"},
		{"BenchmarkX/input=a", "3.00x"},
		{"BenchmarkX/input=b", "5.0 ns"},
	}
	for i, w := range want {
		l := lines[i+1]
		if !strings.HasPrefix(l, w.prefix) || !strings.Contains(l, w.has) {
			t.Errorf("line %d = %q, want prefix %q containing %q", i+1, l, w.prefix, w.has)
		}
	}
	if strings.Contains(lines[3], "x") && strings.Contains(lines[3], "÷") {
		t.Errorf("input b has no base, but a ratio: %q", lines[3])
	}
}
