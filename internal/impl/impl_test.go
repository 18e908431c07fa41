package impl

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// newToy registers a kernel of package pkg with the implementations base
// (available), fast (available) and missing (not available), chosen by the
// variable it returns.
func newToy(pkg, name string) (*Kernel, *string) {
	cur := "base"
	k := Register(&Kernel{
		Package: pkg,
		Name:    name,
		Impls:   []Impl{{"base", true}, {"fast", true}, {"missing", false}},
		Active:  func() string { return cur },
		Set: func(n string) func() {
			prev := cur
			cur = n
			return func() { cur = prev }
		},
	})
	return k, &cur
}

func TestRegistry(t *testing.T) {
	k, cur := newToy("toy", "one")
	k2, _ := newToy("toy", "two")
	k3, _ := newToy("other", "one")
	if Lookup("toy", "one") != k || Lookup("toy", "two") != k2 || Lookup("other", "one") != k3 || Lookup("toy", "three") != nil {
		t.Error("Lookup does not find the kernels by package and name")
	}
	if got := Kernels("toy"); !slices.Equal(got, []*Kernel{k, k2}) {
		t.Errorf(`Kernels("toy") = %v, want the two toy kernels in registration order`, got)
	}
	if got := Kernels(""); len(got) < 3 || !slices.Contains(got, k3) {
		t.Errorf(`Kernels("") = %v, want every kernel`, got)
	}
	if got := k.Names(); !slices.Equal(got, []string{"base", "fast", "missing"}) {
		t.Errorf("Names() = %v", got)
	}
	if got := k.Available(); !slices.Equal(got, []string{"base", "fast"}) {
		t.Errorf("Available() = %v", got)
	}
	if !k.Has("fast") || k.Has("missing") || k.Has("nope") {
		t.Error("Has is wrong")
	}

	restore, err := k.Select("fast")
	if err != nil || *cur != "fast" || k.Active() != "fast" {
		t.Fatalf("Select(fast): err %v, in force %q", err, *cur)
	}
	inner, err := k.Select("base")
	if err != nil || *cur != "base" {
		t.Fatalf("Select(base): err %v, in force %q", err, *cur)
	}
	inner()
	if *cur != "fast" {
		t.Errorf("inner restore: in force %q, want fast", *cur)
	}
	restore()
	if *cur != "base" {
		t.Errorf("restore: in force %q, want base", *cur)
	}

	for _, tc := range []struct {
		name  string
		cause error
	}{{"missing", ErrUnavailable}, {"nope", ErrUnknown}, {"", ErrUnknown}, {"Fast", ErrUnknown}} {
		restore, err := k.Select(tc.name)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, tc.cause) || e.Kernel != k || e.Name != tc.name {
			t.Errorf("Select(%q) = %v, want an *Error for %v", tc.name, err, tc.cause)
			continue
		}
		want := `toy: one "` + tc.name + `": ` + tc.cause.Error() + " (available: base, fast)"
		if err.Error() != want {
			t.Errorf("Select(%q): message %q, want %q", tc.name, err, want)
		}
		restore()
		if *cur != "base" {
			t.Errorf("failed Select(%q) changed the implementation to %q", tc.name, *cur)
		}
	}
}

func TestRegisterRejects(t *testing.T) {
	newToy("toy", "dup")
	ok := func() string { return "" }
	set := func(string) func() { return func() {} }
	for _, tc := range []struct {
		what string
		k    *Kernel
	}{
		{"twice", &Kernel{Package: "toy", Name: "dup", Impls: []Impl{{"base", true}}, Active: ok, Set: set}},
		{"no package", &Kernel{Name: "x", Impls: []Impl{{"base", true}}, Active: ok, Set: set}},
		{"no impls", &Kernel{Package: "toy", Name: "x", Active: ok, Set: set}},
		{"no Set", &Kernel{Package: "toy", Name: "x", Impls: []Impl{{"base", true}}, Active: ok}},
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.HasPrefix(r, "BUG: impl: ") {
					t.Errorf("Register (%s): recovered %q, want a BUG panic", tc.what, r)
				}
			}()
			Register(tc.k)
		}()
	}
}
