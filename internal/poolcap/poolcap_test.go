package poolcap

import "testing"

func TestKeep(t *testing.T) {
	for _, tc := range []struct {
		n    int
		keep bool
	}{{0, true}, {Max - 1, true}, {Max, true}, {Max + 1, false}, {64 << 20, false}} {
		if got := Keep(tc.n); got != tc.keep {
			t.Errorf("Keep(%d) = %v, want %v", tc.n, got, tc.keep)
		}
	}
}
