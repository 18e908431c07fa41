package batch

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// TestWorkerPoolable holds the reason batch's workers need no pool bound
// of their own: a record short enough for a block of the default size
// (longer ones get a Canonicalizer of their own) leaves the worker's
// Canonicalizer Poolable, within the module's one bound, so a worker goes
// back into workerPool after a run of default blocks whatever its records
// hold. The shapes are those that grow a Canonicalizer most per input byte:
// an object of many short unsorted members, members whose names carry
// escapes, pretty unsorted objects in an array, and numbers that the
// rfc8785 profile rewrites.
func TestWorkerPoolable(t *testing.T) {
	fill := func(open, close string, unit func(i int) string) []byte {
		b := []byte(open)
		for i := 0; ; i++ {
			u := unit(i)
			if len(b)+len(u)+len(close)+16 > DefaultBlockSize {
				break
			}
			b = append(b, u...)
		}
		return append(b, close...)
	}
	shapes := []struct {
		name    string
		profile canon.Profile
		src     []byte
	}{
		{"short-unsorted-members", canon.Strict, fill("{", `"":0}`, func(i int) string {
			return `"` + strconv.FormatInt(1<<40-int64(i), 36) + `":0,`
		})},
		{"escaped-names", canon.Strict, fill("{", `"":0}`, func(i int) string {
			return `"\u0062` + strconv.FormatInt(1<<40-int64(i), 36) + `":0,`
		})},
		{"pretty-unsorted-array", canon.Strict, fill("[\n", "{}]", func(int) string { return `{"b": 1, "a": "x"},` + "\n" })},
		{"rewritten-numbers", canon.RFC8785, fill("[", "0]", func(int) string { return `1E2,0.50,` })},
	}
	for _, s := range shapes {
		if len(s.src) > DefaultBlockSize || len(s.src) < DefaultBlockSize-64 {
			t.Fatalf("%s: %d bytes, want just within a default block (%d)", s.name, len(s.src), DefaultBlockSize)
		}
		c := canon.New(s.profile)
		if _, err := c.View(s.src); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !c.Poolable() {
			t.Errorf("%s: a record of %d bytes leaves the worker's Canonicalizer past the pools' bound", s.name, len(s.src))
		}
	}
	// And the bound is not vacuous: a record of a few default blocks, which
	// a larger Options.BlockSize would let into a block, is dropped.
	c := canon.New(canon.Strict)
	big := bytes.Repeat([]byte(`{"b": 1, "a": "x"},`+"\n"), 4*DefaultBlockSize/20)
	if _, err := c.View(append(append([]byte("[\n"), big...), "{}]"...)); err != nil {
		t.Fatal(err)
	}
	if c.Poolable() {
		t.Errorf("a record of %d bytes leaves the Canonicalizer Poolable", len(big))
	}
}
