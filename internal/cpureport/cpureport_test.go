package cpureport

import (
	"encoding/json"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl"
)

// TestNew checks the report against the registry it reads: the SHA-256
// path in force among those available, the kernels it runs, and each of
// canon's kernels, in registration order.
func TestNew(t *testing.T) {
	r := New()
	sha := impl.Lookup("hashing", "sha256")
	if r.GOARCH != runtime.GOARCH || r.Path != sha.Active() || !slices.Contains(r.Implementations, r.Path) || r.Implementations[0] != "generic" {
		t.Errorf("report %+v: want the path %s among the available ones, generic first", r, sha.Active())
	}
	if r.Single == "" || r.Batch == "" || r.Lanes < 1 || r.Features == nil {
		t.Errorf("report %+v: want the single and batch kernels, their lanes and a features list", r)
	}
	var names []string
	for _, k := range impl.Kernels("canon") {
		names = append(names, k.Name)
		if got := r.Canon[k.Name]; got.Impl != k.Active() || !slices.Equal(got.Available, k.Available()) {
			t.Errorf("canon %s: %+v, want %s of %q", k.Name, got, k.Active(), k.Available())
		}
	}
	if len(names) == 0 || !slices.Equal(r.canonOrder, names) || len(r.Canon) != len(names) {
		t.Errorf("canon's kernels %q in the order %q, want %q", keys(r.Canon), r.canonOrder, names)
	}
}

func keys(m map[string]Kernel) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

// TestString checks the text of a report, line by line.
func TestString(t *testing.T) {
	r := Report{GOARCH: "amd64", CPU: "AMD EPYC", Features: []string{"sse4.1", "sha"},
		Implementations: []string{"generic", "shani"}, Path: "shani", Single: "shani", Batch: "shani-x2", Lanes: 2,
		Canon:      map[string]Kernel{"classify": {Impl: "sse2"}, "utf8": {Impl: "ssse3"}},
		canonOrder: []string{"utf8", "classify"}}
	want := "sha256 path: shani (single: shani, batch: shani-x2, 2 lanes)\n" +
		"available:   generic, shani\n" +
		"canon:       utf8=ssse3 classify=sse2\n" +
		"cpu:         AMD EPYC (amd64): sse4.1 sha"
	if got := r.String(); got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
	r.CPU, r.Lanes, r.Batch, r.PureGo, r.Forced, r.Warning = "", 1, "serial", true, "bogus", "hashing: BBDIGEST_SHA256=bogus: unknown path"
	want = "sha256 path: shani (single: shani, batch: serial)\n" +
		"available:   generic, shani\n" +
		"canon:       utf8=ssse3 classify=sse2\n" +
		"cpu:         unknown (amd64): sse4.1 sha\n" +
		"build:       purego (no assembly)\n" +
		"BBDIGEST_SHA256: bogus\n" +
		"warning:     hashing: BBDIGEST_SHA256=bogus: unknown path"
	if got := r.String(); got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
}

// TestJSON checks the stable field names of the report's JSON, in order,
// and that the empty ones that may be left out are.
func TestJSON(t *testing.T) {
	b, err := json.Marshal(New())
	if err != nil {
		t.Fatal(err)
	}
	fields := regexp.MustCompile(`^\{"goarch":"[a-z0-9]+",("cpu":".*",)?"purego":(true|false),"features":\[.*\],"implementations":\["generic".*\],"path":"[a-z0-9]+","single":"[a-z0-9]+","batch":"[a-z0-9-]+","lanes":[0-9]+,("forced":"[^"]*",)?("warning":"[^"]*",)?"canon":\{.*\}\}$`)
	if !fields.Match(b) {
		t.Errorf("JSON %s: not the stable fields", b)
	}
	if os.Getenv("BBDIGEST_SHA256") == "" && strings.Contains(string(b), `"forced"`) {
		t.Errorf("JSON %s: forced with BBDIGEST_SHA256 unset", b)
	}
}
