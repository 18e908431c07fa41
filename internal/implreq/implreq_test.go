package implreq

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want []string
	}{
		{"", nil},
		{"shani", []string{"shani"}},
		{" shani , avx2,,avx512 ", []string{"shani", "avx2", "avx512"}},
		{",", nil},
	} {
		t.Setenv("BBDIGEST_TEST_IMPLREQ", tc.val)
		if got := Names("BBDIGEST_TEST_IMPLREQ"); !slices.Equal(got, tc.want) {
			t.Errorf("Names(%q) = %q, want %q", tc.val, got, tc.want)
		}
	}
}
