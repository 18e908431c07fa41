package canon

// NOTE: sorting objects by rank.
//
// An insertion sort of an object's names makes a comparison per step whose
// outcome is as random as the input's order: about half of them are
// mispredicted branches, and the sort's cost grows with the square of the
// member count. Where the CPU has AVX-512, sortMembers instead computes
// each member's rank, the number of prefix keys below its own, with no
// branch at all (rankKeysAVX512: sixteen keys are compared with one in two
// instructions). The ranks are the order when all keys differ, which is
// exactly when they are a permutation (two equal keys get the same rank);
// otherwise (names that share their first eight bytes, or duplicates) the
// object is sorted by insertion, as on CPUs without AVX-512.

// rankMin is the member count from which sortMembers ranks by vector:
// below it insertion sorting is as fast. BenchmarkSortMembers (rank_test.go)
// times both sorts on either side of it (rank=false against rank=true). A
// variable, so that the benchmark can lower it.
var rankMin = 9

// rankMax is the most members the vector kernel ranks at once (two ZMM
// registers of 64-bit keys).
const rankMax = 16

// rankKeysGeneric sets rank[i], for i < n, to the number of keys[j] (j < n)
// below keys[i]. When all the keys differ, rank[:n] is a permutation of
// 0..n-1, each key's place in sorted order. It is the reference the
// vector kernel is tested against.
func rankKeysGeneric(keys *[rankMax]uint64, n int, rank *[rankMax]uint8) {
	for i := range n {
		r := 0
		for j := range n {
			if keys[j] < keys[i] {
				r++
			}
		}
		rank[i] = uint8(r)
	}
}

// rankSort sorts the n members ms (rankMin <= n <= rankMax, in input order,
// with indexes first..first+n-1) into o by rank, if their prefix keys all
// differ, and reports whether it did; if not, o is left as it was.
func rankSort(o []int32, ms []member, first int) bool {
	var keys [rankMax]uint64
	var rank [rankMax]uint8
	n := len(ms)
	for i := range ms {
		keys[i] = ms[i].key
	}
	rankKeysAVX512(&keys, n, &rank)
	var seen uint32
	for _, r := range rank[:n] {
		seen |= 1 << (r & 15)
	}
	if seen != 1<<n-1 {
		return false // two keys are equal
	}
	for i, r := range rank[:n] {
		o[r&15] = int32(first + i)
	}
	return true
}
