package inerttest

import "testing"

// recorder is a testing.TB that counts the failures reported to it.
type recorder struct {
	testing.TB
	failed int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed++ }

// TestAssertInert: the checker passes printable text with line ends, and
// fails every Hostile string that holds a character it must refuse.
func TestAssertInert(t *testing.T) {
	for _, ok := range []string{"", "plain\n", "é€😀 \"quoted\" back\\slash\n", "colon: space\n"} {
		r := &recorder{TB: t}
		AssertInert(r, "ok", []byte(ok))
		if r.failed != 0 {
			t.Errorf("AssertInert(%q) failed; it is inert", ok)
		}
	}
	// "\n" ends lines, so a string whose only danger is a "\n" passes
	// (the callers check that each line is one record of theirs).
	inert := map[string]bool{"x\ny: fake problem\n/synopsis": true, "plain": true, "": true, `back\slash`: true, `"quoted"`: true, "colon: space": true, "é€😀": true}
	for _, h := range Hostile {
		r := &recorder{TB: t}
		AssertInert(r, "hostile", []byte(h))
		if got := r.failed != 0; got == inert[h] {
			t.Errorf("AssertInert(%q) failed=%v, want %v", h, got, !inert[h])
		}
	}
}
