package canon

// NOTE: deferred member ordering.
//
// An object whose members arrive out of order is rearranged in the output
// buffer when it closes, as long as the bytes moved that way stay within a
// budget linear in the input (c.sortBudget; the outermost object, which
// closes once, is exempt) and no record (below) lies inside it. Otherwise
// it is not rearranged: a sortRec records its content
// span and its members' spans in sorted order, all in output coordinates
// (the position each byte has in the output as written in input order; see
// state.go). When the whole value has been read, finish writes the output
// once, walking the records as a tree:
// a record's members are emitted in sorted order, and records nested in a
// member are expanded where they occur. Every byte is therefore moved a
// constant number of times whatever the depth, where rearranging at each
// close would move the content of an object once per enclosing unsorted
// object (size × depth, which crafted input could make enormous).

import (
	"cmp"
	"slices"
)

// sortRec is an object whose members must be written in another order. Its
// coordinates are output coordinates relative to c.base (the index in the
// output written in input order, which fits in 32 bits: MaxSizeLimit).
type sortRec struct {
	start, end uint32 // content span (after '{', before '}')
	spans      uint32 // its members' spans in sorted order: c.spans[spans:] up to the next record's spans (or the end)
	kids       uint32 // after linkRecords: the records nested directly in it, by start, are c.kids[kids:] up to the next record's kids
}

// span is a half-open range of output coordinates relative to c.base.
type span struct{ start, end uint32 }

// recordSort records the order of the members of the object f, whose
// content ends at output coordinate end and whose closing brace is at input
// offset pos. c.order already holds the sorted members (sortMembers).
func (c *Canonicalizer) recordSort(f *frame, pos, end int) {
	// At most one record and one span for each member open now (this
	// object's included) or still to come (four bytes of input each). The
	// objects open now are likely to be deferred too (the budget that
	// deferred this one is spent, or it is nested in them): the arrays grow
	// at once to hold them.
	most := len(c.members) + (len(c.src)-pos)/4
	if len(c.recs) == cap(c.recs) {
		c.recs = grown(c.recs, &c.growth[1], 1, pos, len(c.src), len(c.recs)+len(c.stack), len(c.recs)+most)
	}
	if cap(c.spans)-len(c.spans) < len(c.order) {
		c.spans = grown(c.spans, &c.growth[2], len(c.order), pos, len(c.src), len(c.spans)+len(c.members), len(c.spans)+most)
	}
	c.recs = append(c.recs, sortRec{start: uint32(f.contentStart - c.base), end: uint32(end - c.base), spans: uint32(len(c.spans))})
	for _, j := range c.order {
		ms, me := c.memberSpan(int(j), f.contentStart, end)
		c.spans = append(c.spans, span{uint32(ms - c.base), uint32(me - c.base)})
	}
}

// memberSpan returns the output span of member j of the innermost object,
// whose content starts at output coordinate start and ends at end: members
// are separated by exactly one comma in the output. (Member records hold
// their coordinates modulo 2^32, which the object's own start resolves.)
func (c *Canonicalizer) memberSpan(j, start, end int) (int, int) {
	if j+1 < len(c.members) {
		end = start + int(c.members[j+1].start-uint32(start)) - 1
	}
	return start + int(c.members[j].start-uint32(start)), end
}

// insertionSortMax is the member count up to which sortMembers sorts by
// insertion.
const insertionSortMax = 16

// sortMembers sets c.order to the indexes first..end-1 of c.members (one
// object's members, in input order) sorted by name, and returns the
// duplicate to report, or -1: of the members whose name an earlier member
// has, the first in input order. Equal names end up next to each other, in
// input order (the sort is stable), so each but the first of a run is such
// a member.
func (c *Canonicalizer) sortMembers(first, end int) (dup int) {
	// Filled through a local slice: appending to c.order itself would
	// store its length to memory and load it back for every member.
	o := slices.Grow(c.order[:0], end-first)[:end-first]
	for k := range o {
		o[k] = int32(first + k)
	}
	c.order = o
	dup = -1
	ms := c.members
	if useRankAVX512 && len(o) >= rankMin && len(o) <= rankMax && rankSort(o, ms[first:end], first) {
		return -1 // all prefix keys differ: no duplicate (rank.go)
	}
	if len(o) <= insertionSortMax {
		// Insertion sort: no indirect calls, and most objects are small.
		// The prefix keys decide almost every comparison inline.
		for i := 1; i < len(o); i++ {
			m := o[i]
			km := ms[m].key
			j := i
			for ; j > 0; j-- {
				p := o[j-1]
				kp := ms[p].key
				if kp < km {
					break
				}
				if kp == km {
					r := c.compareMembers(&ms[p], &ms[m])
					if r < 0 {
						break
					}
					if r == 0 {
						// m follows its equal, earlier p. Members are
						// inserted in input order, so the first such m
						// is the one to report.
						if dup < 0 {
							dup = int(m)
						}
						break
					}
				}
				o[j] = p
			}
			o[j] = m
		}
		return dup
	}
	slices.SortFunc(o, func(a, b int32) int {
		if r := c.compareMembers(&ms[a], &ms[b]); r != 0 {
			return r
		}
		return int(a - b) // stable: equal names in input order
	})
	for i := 1; i < len(o); i++ {
		if ms[o[i-1]].key == ms[o[i]].key && c.compareMembers(&ms[o[i-1]], &ms[o[i]]) == 0 && (dup < 0 || int(o[i]) < dup) {
			dup = int(o[i])
		}
	}
	return dup
}

// finish completes the output after a successful run: it copies the pending
// span and applies the recorded member orders. It reports whether the output
// is src itself (nothing dropped, rewritten or reordered); then, and only
// then, it has written nothing if verbatimOK.
func (c *Canonicalizer) finish(verbatimOK bool) (verbatim bool) {
	if len(c.recs) == 0 {
		if c.pend == 0 && verbatimOK {
			return true
		}
		c.flush(len(c.src))
		return false
	}
	c.linkRecords()
	// The output before the first record is in place already (or, if
	// nothing was rewritten, is the input's): only the rest is staged.
	from := int(c.recs[c.kids[c.topKids]].start)
	var stage []byte // the output in input order from coordinate from on
	if c.pend == 0 {
		stage = c.src[from:] // nothing was rewritten: the input is the staging copy
		c.dst = append(growBytes(c.dst, len(c.src)), c.src[:from]...)
	} else {
		c.flush(len(c.src))
		c.scratch = append(c.scratch[:0], c.dst[c.base+from:]...)
		stage = c.scratch
		c.dst = c.dst[:c.base+from]
	}
	c.dst = c.emit(c.dst, stage, from)
	return false
}

// linkRecords lists every record's children (the records whose content it
// contains directly), and the top-level records (c.kids[c.topKids:]), in
// order of start.
func (c *Canonicalizer) linkRecords() {
	recs := c.recs
	// Records were appended as objects closed (children first); their
	// starts give document order.
	c.recOrder = slices.Grow(c.recOrder[:0], len(recs))
	for i := range recs {
		c.recOrder = append(c.recOrder, int32(i))
	}
	slices.SortFunc(c.recOrder, func(a, b int32) int { return cmp.Compare(recs[a].start, recs[b].start) })
	// Count each record's children into its kids field, then turn the
	// counts into the starts of contiguous lists, then fill the lists in
	// start order (each start advancing to the next record's), which
	// walks the nesting a second time.
	for i := range recs {
		recs[i].kids = 0
	}
	top := 0
	c.walkNesting(func(i, parent int32) {
		if parent >= 0 {
			recs[parent].kids++
		} else {
			top++
		}
	})
	off := uint32(0)
	for i := range recs {
		n := recs[i].kids
		recs[i].kids = off
		off += n
	}
	c.topKids = int(off)
	c.kids = slices.Grow(c.kids[:0], int(off)+top)[:int(off)+top]
	t := int(off)
	c.walkNesting(func(i, parent int32) {
		if parent >= 0 {
			c.kids[recs[parent].kids] = i
			recs[parent].kids++
		} else {
			c.kids[t] = i
			t++
		}
	})
	// Each list start has advanced to the next one's: shift them back.
	prev := uint32(0)
	for i := range recs {
		recs[i].kids, prev = prev, recs[i].kids
	}
}

// walkNesting calls f for each record, in order of start, with the record
// whose content directly contains it (-1: none).
func (c *Canonicalizer) walkNesting(f func(i, parent int32)) {
	recs := c.recs
	st := c.recStack[:0]
	for _, i := range c.recOrder {
		r := &recs[i]
		for len(st) > 0 && recs[st[len(st)-1]].end <= r.start {
			st = st[:len(st)-1]
		}
		parent := int32(-1)
		if len(st) > 0 {
			parent = st[len(st)-1]
		}
		f(i, parent)
		st = append(st, i)
	}
	c.recStack = st[:0]
}

// recSpans and recKids return record k's member spans and children.
func (c *Canonicalizer) recSpans(k int32) []span {
	end := len(c.spans)
	if int(k)+1 < len(c.recs) {
		end = int(c.recs[k+1].spans)
	}
	return c.spans[c.recs[k].spans:end]
}

func (c *Canonicalizer) recKids(k int32) []int32 {
	end := c.topKids
	if int(k)+1 < len(c.recs) {
		end = int(c.recs[k+1].kids)
	}
	return c.kids[c.recs[k].kids:end]
}

// emitFrame is one step of emit's explicit stack: a range of output
// coordinates to copy with the records in it expanded (rec < 0), or a record
// whose member spans are being written (rec >= 0).
type emitFrame struct {
	rec   int32
	si    int     // record frames: next member span
	p, hi int     // range frames: cursor and end
	kids  []int32 // range frames: records starting in [p, hi), by start
}

// emit appends the final output from output coordinate from on (relative to
// c.base) to dst. stage[i] holds the byte of coordinate from+i in input
// order.
func (c *Canonicalizer) emit(dst, stage []byte, from int) []byte {
	st := append(c.emitStack[:0], emitFrame{rec: -1, p: from, hi: from + len(stage), kids: c.kids[c.topKids:]})
	for len(st) > 0 {
		fr := &st[len(st)-1]
		if fr.rec < 0 {
			if len(fr.kids) == 0 {
				dst = append(dst, stage[fr.p-from:fr.hi-from]...)
				st = st[:len(st)-1]
				continue
			}
			k := fr.kids[0]
			fr.kids = fr.kids[1:]
			r := &c.recs[k]
			dst = append(dst, stage[fr.p-from:int(r.start)-from]...)
			fr.p = int(r.end)
			st = append(st, emitFrame{rec: k})
			continue
		}
		spans := c.recSpans(fr.rec)
		if fr.si == len(spans) {
			st = st[:len(st)-1]
			continue
		}
		if fr.si > 0 {
			dst = append(dst, ',')
		}
		sp := spans[fr.si]
		fr.si++
		// The children of the record that lie in this member, by binary
		// search.
		kids := c.recKids(fr.rec)
		lo, _ := slices.BinarySearchFunc(kids, sp.start, func(k int32, x uint32) int { return cmp.Compare(c.recs[k].start, x) })
		hi := lo
		for hi < len(kids) && c.recs[kids[hi]].start < sp.end {
			hi++
		}
		st = append(st, emitFrame{rec: -1, p: int(sp.start), hi: int(sp.end), kids: kids[lo:hi]})
	}
	c.emitStack = st[:0]
	return dst
}
