package canon

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortMembers compares sortMembers with a stable sort by CompareUTF16
// of the names, and its duplicate with a search in input order, on random
// objects of every size around the insertion-sort limit, with names that
// share 8-byte prefixes (equal keys), differ only past the key, repeat, or
// are non-ASCII: every path of the sort (rank counting, insertion,
// slices.SortFunc) is reached.
func TestSortMembers(t *testing.T) {
	pool := []string{
		"", "a", "b", "ab", "id", "name", "z", "A", "_",
		"location", "location2", "locationA", "locations", "abcdefgh", "abcdefghi", "abcdefgi",
		"é", "東京", "😀", "\uff61", "\U0001F600x", "\ue000", "key\u00e9", "key\u00ea",
	}
	r := rand.New(rand.NewPCG(31, 32))
	var c Canonicalizer
	for iter := range 20_000 {
		n := 1 + r.IntN(insertionSortMax+4)
		distinct := r.IntN(2) == 0
		perm := r.Perm(len(pool))
		names := make([]string, n)
		for i := range names {
			if distinct && n <= len(pool) {
				names[i] = pool[perm[i]]
			} else {
				names[i] = pool[r.IntN(len(pool))]
			}
		}
		c.src, c.members = nil, c.members[:0]
		first := r.IntN(3) // members of an enclosing object before this one
		for range first {
			c.members = append(c.members, member{key: ^uint64(0)})
		}
		var src []byte
		for _, s := range names {
			start := len(src)
			src = append(src, s...)
			c.members = append(c.members, member{nameStart: start, nameEnd: len(src)})
		}
		c.src = src
		for i := first; i < len(c.members); i++ {
			m := &c.members[i]
			m.key = nameKeyAt(src, m.nameStart, m.nameEnd)
		}
		dup := c.sortMembers(first, len(c.members))

		want := make([]int32, n)
		for i := range want {
			want[i] = int32(first + i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			return CompareUTF16([]byte(names[int(a)-first]), []byte(names[int(b)-first]))
		})
		wantDup := -1
		for i := 1; i < n && wantDup < 0; i++ {
			if slices.Contains(names[:i], names[i]) {
				wantDup = first + i
			}
		}
		if dup != wantDup {
			t.Fatalf("iteration %d, names %q: duplicate %d, want %d", iter, names, dup, wantDup)
		}
		if wantDup < 0 && !slices.Equal(c.order, want) {
			t.Fatalf("iteration %d, names %q: order %v, want %v", iter, names, c.order, want)
		}
	}
	c.src = nil
}
