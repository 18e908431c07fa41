package canon

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortMembers compares sortMembers with a stable sort by CompareUTF16
// of the names, and its duplicate with a search in input order, on random
// objects of every size around the insertion-sort limit, with names that
// share 8-byte prefixes (equal keys), differ only past the key, repeat, or
// are non-ASCII, and with names given as the engine records them with and
// without escapes (so two names with equal keys are compared in the input,
// in c.names, or one in each): every path of the sort (rank counting,
// insertion, slices.SortFunc) and of compareMembers is reached.
func TestSortMembers(t *testing.T) {
	pool := []string{
		"", "a", "b", "ab", "id", "name", "z", "A", "_",
		"location", "location2", "locationA", "locations", "abcdefgh", "abcdefghi", "abcdefgi",
		"é", "東京", "😀", "\uff61", "\U0001F600x", "\ue000", "key\u00e9", "key\u00ea",
		"\x00", "a\x00", "a\x00b", "abcdefg\x00", "abcdefgh\x00", "abcdefgh\x00\x00",
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
		c.src, c.members, c.names = nil, c.members[:0], c.names[:0]
		first := r.IntN(3) // members of an enclosing object before this one
		for range first {
			c.members = append(c.members, member{key: ^uint64(0)})
		}
		// Each name is written "name" in src, or, as a name with escapes
		// is, decoded after its header in c.names (a name with a NUL byte
		// always: only an escape can write one).
		var src []byte
		for _, s := range names {
			start := len(src)
			src = append(append(append(src, '"'), s...), '"')
			m := member{name: uint32(start), key: nameKeyAt(src, start+1, start+1+len(s))}
			if strings.Contains(s, "\x00") || r.IntN(4) == 0 {
				h := len(c.names)
				c.names = binary.LittleEndian.AppendUint32(c.names, uint32(start))
				c.names = binary.LittleEndian.AppendUint32(c.names, uint32(len(s)))
				c.names = append(c.names, s...)
				m.name, m.key = uint32(h)|escBit, nameKey([]byte(s))
			}
			c.members = append(c.members, m)
		}
		c.src = src
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
