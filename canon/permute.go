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

import "slices"

// sortRec is an object whose members must be written in another order.
type sortRec struct {
	start, end    int // content span (after '{', before '}'), output coordinates
	spans, nspans int // its members' spans in sorted order: c.spans[spans:spans+nspans]
	kids, nkids   int // records nested directly in it, by start: c.kids[kids:kids+nkids]
	parent        int32
}

// span is a half-open range of output coordinates.
type span struct{ start, end int }

// recordSort sorts the members of the object f, whose content ends at output
// coordinate end, and records their order.
// c.order already holds the sorted members (sortMembers).
func (c *Canonicalizer) recordSort(f *frame, end int) {
	r := sortRec{start: f.contentStart, end: end, spans: len(c.spans), nspans: len(c.order)}
	for _, j := range c.order {
		ms, me := c.memberSpan(int(j), end)
		c.spans = append(c.spans, span{ms, me})
	}
	c.recs = append(c.recs, r)
}

// memberSpan returns the output span of member j of the innermost object,
// whose content ends at output coordinate end: members are separated by
// exactly one comma in the output.
func (c *Canonicalizer) memberSpan(j, end int) (int, int) {
	if j+1 < len(c.members) {
		end = c.members[j+1].start - 1
	}
	return c.members[j].start, end
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
func (c *Canonicalizer) finish(base int, verbatimOK bool) (verbatim bool) {
	if len(c.recs) == 0 {
		if c.pend == 0 && verbatimOK {
			return true
		}
		c.flush(len(c.src))
		return false
	}
	var stage []byte // the output in input order, indexed from base
	if c.pend == 0 {
		stage = c.src // nothing was rewritten: the input is the staging copy
	} else {
		c.flush(len(c.src))
		c.scratch = append(c.scratch[:0], c.dst[base:]...)
		stage = c.scratch
		c.dst = c.dst[:base]
	}
	c.linkRecords()
	c.dst = c.emit(c.dst, stage, base)
	return false
}

// linkRecords finds each record's parent (the nearest record whose content
// contains it) and lists every record's children, and the top-level records
// (c.kids[c.topKids:]), in order of start.
func (c *Canonicalizer) linkRecords() {
	recs := c.recs
	// Records were appended as objects closed (children first); their
	// starts give document order.
	c.recOrder = c.recOrder[:0]
	for i := range recs {
		c.recOrder = append(c.recOrder, int32(i))
	}
	slices.SortFunc(c.recOrder, func(a, b int32) int { return recs[a].start - recs[b].start })
	st := c.recStack[:0]
	for _, i := range c.recOrder {
		r := &recs[i]
		for len(st) > 0 && recs[st[len(st)-1]].end <= r.start {
			st = st[:len(st)-1]
		}
		r.parent = -1
		if len(st) > 0 {
			r.parent = st[len(st)-1]
			recs[r.parent].nkids++
		}
		st = append(st, i)
	}
	c.recStack = st[:0]
	// Lay the child lists out contiguously, then fill them in start order.
	off := 0
	for i := range recs {
		recs[i].kids = off
		off += recs[i].nkids
		recs[i].nkids = 0
	}
	c.topKids = off
	c.kids = slices.Grow(c.kids[:0], off+len(recs))[:off]
	for _, i := range c.recOrder {
		if p := recs[i].parent; p >= 0 {
			c.kids[recs[p].kids+recs[p].nkids] = i
			recs[p].nkids++
		} else {
			c.kids = append(c.kids, i)
		}
	}
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

// emit appends the final output to dst. stage[i] holds the byte of output
// coordinate base+i in input order.
func (c *Canonicalizer) emit(dst, stage []byte, base int) []byte {
	st := append(c.emitStack[:0], emitFrame{rec: -1, p: base, hi: base + len(stage), kids: c.kids[c.topKids:]})
	for len(st) > 0 {
		fr := &st[len(st)-1]
		if fr.rec < 0 {
			if len(fr.kids) == 0 {
				dst = append(dst, stage[fr.p-base:fr.hi-base]...)
				st = st[:len(st)-1]
				continue
			}
			k := fr.kids[0]
			fr.kids = fr.kids[1:]
			r := &c.recs[k]
			dst = append(dst, stage[fr.p-base:r.start-base]...)
			fr.p = r.end
			st = append(st, emitFrame{rec: k})
			continue
		}
		r := &c.recs[fr.rec]
		if fr.si == r.nspans {
			st = st[:len(st)-1]
			continue
		}
		if fr.si > 0 {
			dst = append(dst, ',')
		}
		sp := c.spans[r.spans+fr.si]
		fr.si++
		// The children of r that lie in this member, by binary search.
		kids := c.kids[r.kids : r.kids+r.nkids]
		lo, _ := slices.BinarySearchFunc(kids, sp.start, func(k int32, x int) int { return c.recs[k].start - x })
		hi := lo
		for hi < len(kids) && c.recs[kids[hi]].start < sp.end {
			hi++
		}
		st = append(st, emitFrame{rec: -1, p: sp.start, hi: sp.end, kids: kids[lo:hi]})
	}
	c.emitStack = st[:0]
	return dst
}
