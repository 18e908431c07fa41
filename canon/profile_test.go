package canon

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestProfileString(t *testing.T) {
	must := func(p Profile, err error) Profile {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		p    Profile
		want string
	}{
		{Strict, "strict"},
		{Profile{}, "strict"},
		{RFC8785, "rfc8785"},
		{must(RFC8785.WithMaxDepth(2000)), "rfc8785(max-depth=2000)"},
		{must(must(RFC8785.WithMaxDepth(2000)).WithMaxSize(1 << 20)), "rfc8785(max-depth=2000,max-size=1048576)"},
		{must(Strict.WithMaxSize(10)), "strict(max-size=10)"},
		{must(RFC8785.WithMaxDepth(DefaultRFC8785MaxDepth)), "rfc8785"},
		{must(Strict.WithMaxDepth(StrictMaxDepth)), "strict"},
		{must(must(Strict.WithMaxSize(10)).WithMaxSize(DefaultMaxSize)), "strict"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
		if got := fmt.Sprint(tc.p); got != tc.want {
			t.Errorf("fmt.Sprint = %q, want %q", got, tc.want)
		}
	}
	// A bound set to its default gives the predefined profile itself.
	if p := must(RFC8785.WithMaxDepth(DefaultRFC8785MaxDepth)); p != RFC8785 {
		t.Errorf("RFC8785.WithMaxDepth(default) = %#v, want RFC8785", p)
	}
	if p := must(must(Strict.WithMaxSize(10)).WithMaxSize(DefaultMaxSize)); p != Strict {
		t.Errorf("WithMaxSize(DefaultMaxSize) = %#v, want Strict", p)
	}
}

func TestProfileByName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Profile
	}{
		{"strict", Strict}, {"STRICT", Strict}, {"Strict", Strict}, {"sTrIcT", Strict},
		{"rfc8785", RFC8785}, {"RFC8785", RFC8785}, {"Rfc8785", RFC8785},
	} {
		p, err := ProfileByName(tc.name)
		if err != nil || p != tc.want {
			t.Errorf("ProfileByName(%q) = %v, %v; want %v", tc.name, p, err, tc.want)
		}
	}
	// Only ASCII case folds: U+017F (long s) and U+212A (Kelvin sign) fold
	// to s and k in Unicode, not here.
	for _, name := range []string{"", "strict ", " strict", "ſtrict", "rfc-8785", "rfc", "strictt", "RFC8785\x00", "jcs"} {
		_, err := ProfileByName(name)
		if err == nil {
			t.Errorf("ProfileByName(%q) accepted", name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "strict") || !strings.Contains(msg, "rfc8785") || !strings.Contains(msg, fmt.Sprintf("%q", name)) {
			t.Errorf("ProfileByName(%q): error %q does not name the input and both profiles", name, msg)
		}
	}
}

// TestMaxSizeLimit checks the range WithMaxSize accepts: positions are kept
// in 32 bits, so a bound above MaxSizeLimit is refused.
func TestMaxSizeLimit(t *testing.T) {
	for _, n := range []int{1, DefaultMaxSize, MaxSizeLimit} {
		if p, err := RFC8785.WithMaxSize(n); err != nil || p.MaxSize() != n {
			t.Errorf("WithMaxSize(%d) = %v, %v", n, p, err)
		}
	}
	large := []int{0, -1, MaxSizeLimit + 1}
	if strconv.IntSize == 64 {
		big := int64(1) << 32 // a variable, so that the table compiles where int has 32 bits
		large = append(large, int(big), int(big<<30-1))
	}
	for _, n := range large {
		if p, err := Strict.WithMaxSize(n); err == nil || p != Strict {
			t.Errorf("WithMaxSize(%d) = %v, %v; want an error and the receiver", n, p, err)
		}
	}
	// The output of the longest input is below 2^32 bytes: 5.25 times the
	// input at most (a lone 1e20, four bytes, is written with 21 digits).
	if out := int64(MaxSizeLimit) * 21 / 4; out >= 1<<32 {
		t.Errorf("MaxSizeLimit %d: output of up to %d bytes does not fit 32-bit positions", MaxSizeLimit, out)
	}
	out, err := Canonicalize([]byte("1e20"), RFC8785)
	if err != nil || len(out) != 21 {
		t.Errorf("1e20 = %q, %v; want 21 digits", out, err)
	}
}
