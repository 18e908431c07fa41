package canon

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// TestRankKeysAVX512 compares the vector rank kernel with rankKeysGeneric
// on random keys for every n from 1 to 16: keys drawn from a few values
// (so that some are equal) or from all 64-bit values, the extremes
// included, and junk in the lanes past n (keys below, equal to and above
// those in use), which must not count. The kernel must write rank[:n]
// only.
func TestRankKeysAVX512(t *testing.T) {
	impltest.Need(t, rankKernel, "avx512")
	r := rand.New(rand.NewPCG(61, 62))
	pick := []uint64{0, 1, 2, 1 << 63, 1<<64 - 1, 1<<64 - 2, 0x6e616d6500000000}
	for iter := range 200_000 {
		n := 1 + r.IntN(16)
		var keys [16]uint64
		few := r.IntN(2) == 0
		for i := range keys {
			switch {
			case few:
				keys[i] = pick[r.IntN(len(pick))]
			case r.IntN(8) == 0:
				keys[i] = pick[r.IntN(len(pick))]
			default:
				keys[i] = r.Uint64()
			}
		}
		if r.IntN(4) == 0 && n < 16 { // junk equal to a key in use
			keys[n+r.IntN(16-n)] = keys[r.IntN(n)]
		}
		var want, got [16]uint8
		for i := range got {
			got[i], want[i] = 0xEE, 0xEE
		}
		rankKeysGeneric(&keys, n, &want)
		rankKeysAVX512(&keys, n, &got)
		if got != want {
			t.Fatalf("iteration %d, n=%d, keys %x: AVX-512 ranks %v; generic %v", iter, n, keys, got, want)
		}
	}
}

// TestRankKeysGeneric checks the reference against its definition on
// permutations: distinct keys rank as their sorted positions, and with two
// keys made equal the ranks are no longer a permutation.
func TestRankKeysGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	for range 10_000 {
		n := 1 + r.IntN(16)
		var keys [16]uint64
		var rank [16]uint8
		perm := r.Perm(n)
		for i, p := range perm {
			keys[i] = uint64(p)<<40 | 0x5A5A // increasing in p
		}
		rankKeysGeneric(&keys, n, &rank)
		for i, p := range perm {
			if int(rank[i]) != p {
				t.Fatalf("keys %x: rank %v, want %v", keys[:n], rank[:n], perm)
			}
		}
		if n < 2 {
			continue
		}
		a := r.IntN(n)
		b := (a + 1 + r.IntN(n-1)) % n
		keys[b] = keys[a]
		rankKeysGeneric(&keys, n, &rank)
		if rank[a] != rank[b] {
			t.Fatalf("equal keys %x ranked %d and %d", keys[a], rank[a], rank[b])
		}
	}
}

// TestSortMembersPaths runs the sort tests with the insertion sort and
// the vector rank path.
func TestSortMembersPaths(t *testing.T) {
	impltest.ForEach(t, rankKernel, func(t *testing.T) {
		TestSortMembers(t)
		TestDuplicateFirstInInputOrder(t)
		TestLargeObjects(t)
	})
}

// BenchmarkSortMembers sorts objects of n members with distinct names in
// random order, by insertion and (where available) by vector rank: the
// measurement behind rankMin.
func BenchmarkSortMembers(b *testing.B) {
	for _, n := range []int{3, 6, 8, 9, 11, 16} {
		r := rand.New(rand.NewPCG(1, 2))
		const sets = 256
		var all [][]member
		for range sets {
			ms := make([]member, n)
			for i, p := range r.Perm(n) {
				ms[i].key = uint64(p+1) * 0x9E3779B97F4A7C15 >> 4
			}
			all = append(all, ms)
		}
		for _, on := range []bool{false, true} {
			name := "insertion"
			if on {
				name = "avx512"
			}
			if !rankKernel.Has(name) {
				continue
			}
			b.Run("n="+strconv.Itoa(n)+"/rank="+strconv.FormatBool(on), func(b *testing.B) {
				defer impltest.Select(b, rankKernel, name)()
				savedMin := rankMin
				rankMin = 2
				defer func() { rankMin = savedMin }()
				var c Canonicalizer
				i := 0
				for b.Loop() {
					c.members = all[i%sets]
					c.sortMembers(0, n)
					i++
				}
			})
		}
	}
}
