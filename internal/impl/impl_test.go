package impl_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl"
	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

func TestRegistry(t *testing.T) {
	k, cur := impltest.Toy("toy", "one")
	k2, _ := impltest.Toy("toy", "two")
	k3, _ := impltest.Toy("other", "one")
	if impl.Lookup("toy", "one") != k || impl.Lookup("toy", "two") != k2 || impl.Lookup("other", "one") != k3 || impl.Lookup("toy", "three") != nil {
		t.Error("impl.Lookup does not find the kernels by package and name")
	}
	if got := impl.Kernels("toy"); !slices.Equal(got, []*impl.Kernel{k, k2}) {
		t.Errorf(`impl.Kernels("toy") = %v, want the two toy kernels in registration order`, got)
	}
	if got := impl.Kernels(""); len(got) < 3 || !slices.Contains(got, k3) {
		t.Errorf(`impl.Kernels("") = %v, want every kernel`, got)
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
	}{{"missing", impl.ErrUnavailable}, {"nope", impl.ErrUnknown}, {"", impl.ErrUnknown}, {"Fast", impl.ErrUnknown}} {
		restore, err := k.Select(tc.name)
		var e *impl.Error
		if !errors.As(err, &e) || !errors.Is(err, tc.cause) || e.Kernel != k || e.Name != tc.name {
			t.Errorf("Select(%q) = %v, want an *impl.Error for %v", tc.name, err, tc.cause)
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
	impltest.Toy("toy", "dup")
	ok := func() string { return "" }
	set := func(string) func() { return func() {} }
	for _, tc := range []struct {
		what string
		k    *impl.Kernel
	}{
		{"twice", &impl.Kernel{Package: "toy", Name: "dup", Impls: []impl.Impl{{Name: "base", Available: true}}, Active: ok, Set: set}},
		{"no package", &impl.Kernel{Name: "x", Impls: []impl.Impl{{Name: "base", Available: true}}, Active: ok, Set: set}},
		{"no impls", &impl.Kernel{Package: "toy", Name: "x", Active: ok, Set: set}},
		{"no Set", &impl.Kernel{Package: "toy", Name: "x", Impls: []impl.Impl{{Name: "base", Available: true}}, Active: ok}},
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.HasPrefix(r, "BUG: impl: ") {
					t.Errorf("impl.Register (%s): recovered %q, want a BUG panic", tc.what, r)
				}
			}()
			impl.Register(tc.k)
		}()
	}
}
