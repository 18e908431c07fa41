package bolt

// This file reads a Ledger's bbolt file without bbolt, to decide whether
// bbolt may be trusted with it. bbolt checks little on open: of its two meta
// pages it uses the newer one that passes its checksum and silently falls
// back to the older one otherwise (a rollback), and it walks pages through
// unchecked pointers, so damaged pages make it panic, fault on the memory
// map, loop, or read the wrong entries. So the ledger reads the file itself:
//
//   - checkBoltMetas parses both meta pages as bbolt writes them (bbolt
//     v1.4.3, internal/common/meta.go and page.go) and returns the one bbolt
//     will use, or an error when that is not one that passes every check;
//   - checkBoltTree walks every page the current meta page reaches, with
//     bounds checks on every offset and each page visited once, and checks
//     that the pages reached and the pages the freelist names are disjoint
//     and together cover the file, that each page's keys and values are
//     packed as bbolt writes them, that keys are ordered as bbolt's search
//     needs, and that the file holds exactly the ledger's bucket, whose
//     every entry decodes (decodeEntry: length, CRC-32C, state), and, once
//     a gate has asked for an approval, the bucket of approval requests,
//     whose every entry decodes too (decodeRequest, decodeOpen: CRC-32C,
//     format, states) and whose open requests and acts agree.
//
// The layout is bbolt's, in the machine's byte order (bbolt writes its
// structs from memory; every field is at the same offset on 32- and 64-bit
// machines). Page header (16 bytes): id u64, flags u16, count u16,
// overflow u32. Meta (after the header): magic u32, version u32,
// pageSize u32, flags u32, root bucket {root u64, sequence u64},
// freelist u64, pgid u64, txid u64, checksum u64, the FNV-1a 64 of the 56
// bytes before it. Leaf element (16 bytes): flags u32, pos u32, ksize u32,
// vsize u32; branch element: pos u32, ksize u32, pgid u64; pos counts from
// the element's own offset. A bucket's value is {root u64, sequence u64},
// followed, when root is 0, by the bucket's one leaf page (inline).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
)

const (
	boltMagic         = 0xED0CDAED
	boltVersion       = 2
	boltPageHeader    = 16
	boltElementSize   = 16 // leaf and branch elements alike
	boltMetaSize      = 80 // page header and meta
	boltChecksummed   = 56 // meta bytes under the checksum
	boltBranchPage    = 0x01
	boltLeafPage      = 0x02
	boltMetaPage      = 0x04
	boltFreelistPage  = 0x10
	boltBucketElement = 0x01 // leaf element flag: the value is a bucket
	boltBucketHeader  = 16
	boltNoFreelist    = ^uint64(0)
	boltMinPageSize   = 1024
	boltMaxPageSize   = 1 << 24
)

var ne = binary.NativeEndian

// boltMeta is one parsed meta page.
type boltMeta struct {
	index    int // 0 or 1: which page
	pageID   uint64
	flags    uint16
	magic    uint32
	version  uint32
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64
	txid     uint64
	checksum uint64
	sum      uint64 // the checksum computed over the page
}

func parseBoltMeta(index int, b []byte) boltMeta {
	m := b[boltPageHeader:boltMetaSize]
	h := fnv.New64a()
	h.Write(m[:boltChecksummed])
	return boltMeta{
		index:    index,
		pageID:   ne.Uint64(b[0:]),
		flags:    ne.Uint16(b[8:]),
		magic:    ne.Uint32(m[0:]),
		version:  ne.Uint32(m[4:]),
		pageSize: ne.Uint32(m[8:]),
		root:     ne.Uint64(m[16:]),
		freelist: ne.Uint64(m[32:]),
		pgid:     ne.Uint64(m[40:]),
		txid:     ne.Uint64(m[48:]),
		checksum: ne.Uint64(m[56:]),
		sum:      h.Sum64(),
	}
}

// bboltValid reports whether bbolt itself accepts the page (Meta.Validate).
func (m *boltMeta) bboltValid() bool {
	return m.magic == boltMagic && m.version == boltVersion && m.checksum == m.sum
}

// problem returns why the page is not one bbolt wrote for this file, or ""
// if it passes: bbolt's checks, and those on what bbolt leaves unchecked
// (the page header, the page size against the file's, the txid's parity,
// which decides the page bbolt writes it to, and the page ids it names).
func (m *boltMeta) problem(pageSize int, size int64) string {
	switch {
	case m.magic != boltMagic:
		return "not a bbolt meta page (magic)"
	case m.version != boltVersion:
		return fmt.Sprintf("bbolt version %d, want %d", m.version, boltVersion)
	case m.checksum != m.sum:
		return fmt.Sprintf("checksum %016x, computed %016x", m.checksum, m.sum)
	case m.pageID != uint64(m.index) || m.flags != boltMetaPage:
		return fmt.Sprintf("page header id %d, flags %#x", m.pageID, m.flags)
	case int(m.pageSize) != pageSize:
		return fmt.Sprintf("page size %d, want %d", m.pageSize, pageSize)
	case m.txid%2 != uint64(m.index):
		return fmt.Sprintf("txid %d on page %d", m.txid, m.index)
	case m.pgid < 4 || m.pgid > uint64(size)/uint64(pageSize):
		return fmt.Sprintf("%d pages, file holds %d", m.pgid, size/int64(pageSize))
	case m.root < 2 || m.root >= m.pgid || m.freelist < 2 || m.freelist >= m.pgid:
		return fmt.Sprintf("root page %d, freelist page %d out of range", m.root, m.freelist)
	}
	return ""
}

// checkBoltMetas reads both meta pages of the bbolt file r of size bytes
// and returns the one bbolt uses, with the file's page size. It fails
// unless that page passes every check of boltMeta.problem: the newest page
// that bbolt accepts must be the newest page that is valid, so that a
// damaged newest page is never replaced by the older one. An older page
// that fails is accepted (it is the one the next commit overwrites: a torn
// write of a commit that never completed, or damage to history); whether
// the newest valid page is recent enough is the high-water mark's to say.
func checkBoltMetas(r io.ReaderAt, size int64) (boltMeta, int, error) {
	var cur boltMeta
	if size < 2*boltMinPageSize {
		return cur, 0, fmt.Errorf("file of %d bytes is too short for a bbolt file", size)
	}
	buf := make([]byte, boltMetaSize)
	if _, err := r.ReadAt(buf, 0); err != nil {
		return cur, 0, err
	}
	m0 := parseBoltMeta(0, buf)
	// The page size is the one meta page 0 states; if page 0 fails, bbolt
	// looks for page 1 at each power of two from 1 KiB (getPageSize).
	pageSize := 0
	if m0.bboltValid() {
		pageSize = int(m0.pageSize)
	} else {
		for ps := int64(boltMinPageSize); ps <= boltMaxPageSize && ps+boltMetaSize <= size; ps <<= 1 {
			if _, err := r.ReadAt(buf, ps); err != nil {
				return cur, 0, err
			}
			if m := parseBoltMeta(1, buf); m.bboltValid() && int64(m.pageSize) == ps {
				pageSize = int(ps)
				break
			}
		}
		if pageSize == 0 {
			return cur, 0, errors.New("neither meta page is valid: not a bbolt file, or both meta pages damaged")
		}
	}
	if pageSize < boltMinPageSize || pageSize > boltMaxPageSize || pageSize&(pageSize-1) != 0 {
		return cur, 0, fmt.Errorf("page size %d", pageSize)
	}
	if size < 2*int64(pageSize) {
		return cur, 0, fmt.Errorf("file of %d bytes is shorter than two %d-byte pages", size, pageSize)
	}
	if _, err := r.ReadAt(buf, int64(pageSize)); err != nil {
		return cur, 0, err
	}
	m1 := parseBoltMeta(1, buf)
	metas := [2]*boltMeta{&m0, &m1}
	var ours, bbolts *boltMeta // the newest valid page, by our checks and by bbolt's
	var problems [2]string
	for i, m := range metas {
		problems[i] = m.problem(pageSize, size)
		if problems[i] == "" && (ours == nil || m.txid > ours.txid) {
			ours = m
		}
		if m.bboltValid() && (bbolts == nil || m.txid > bbolts.txid) {
			bbolts = m
		}
	}
	switch {
	case ours == nil:
		return cur, 0, fmt.Errorf("both meta pages are invalid: page 0: %s; page 1: %s", problems[0], problems[1])
	case bbolts != ours:
		return cur, 0, fmt.Errorf("meta page %d (txid %d) is invalid: %s; bbolt would use it", bbolts.index, bbolts.txid, problems[bbolts.index])
	}
	return *ours, pageSize, nil
}

// boltChecker walks the pages of a bbolt file.
type boltChecker struct {
	r        io.ReaderAt
	pageSize int64
	pgid     uint64  // pages [0, pgid) are in use or free
	seen     []uint8 // per page: pageFree or pageReached once accounted for
	buf      []byte
	els      []leafElement
}

const (
	pageFree    = 1
	pageReached = 2
)

// readPage reads page id with its overflow pages into c.buf and returns
// it, checking that its header names it and that it lies below the
// high-water page, and marks its pages reached (each page at most once).
func (c *boltChecker) readPage(id uint64) ([]byte, error) {
	if id < 2 || id >= c.pgid {
		return nil, fmt.Errorf("page %d out of range [2, %d)", id, c.pgid)
	}
	if cap(c.buf) < int(c.pageSize) {
		c.buf = make([]byte, c.pageSize)
	}
	p := c.buf[:c.pageSize]
	if _, err := c.r.ReadAt(p, int64(id)*c.pageSize); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if got := ne.Uint64(p); got != id {
		return nil, fmt.Errorf("page %d: header says page %d", id, got)
	}
	overflow := uint64(ne.Uint32(p[12:]))
	if overflow >= c.pgid-id {
		return nil, fmt.Errorf("page %d: %d overflow pages run past page %d", id, overflow, c.pgid)
	}
	for i := id; i <= id+overflow; i++ {
		switch c.seen[i] {
		case pageFree:
			return nil, fmt.Errorf("page %d: in use and on the freelist", i)
		case pageReached:
			return nil, fmt.Errorf("page %d: reached twice", i)
		}
		c.seen[i] = pageReached
	}
	if overflow > 0 {
		n := int64(overflow+1) * c.pageSize
		if int64(cap(c.buf)) < n {
			c.buf = append(make([]byte, 0, n), p...) // keep the first page, read already
		}
		p = c.buf[:n]
		if _, err := c.r.ReadAt(p[c.pageSize:], int64(id)*c.pageSize+c.pageSize); err != nil {
			return nil, fmt.Errorf("page %d: %w", id, err)
		}
	}
	return p, nil
}

// freelist marks the pages the freelist page id names as free.
func (c *boltChecker) freelist(id uint64) error {
	p, err := c.readPage(id)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	if f := ne.Uint16(p[8:]); f != boltFreelistPage {
		return fmt.Errorf("freelist page %d has flags %#x", id, f)
	}
	off, count := uint64(boltPageHeader), uint64(ne.Uint16(p[10:]))
	if count == 0xFFFF { // the count is the first element
		if len(p) < boltPageHeader+8 {
			return fmt.Errorf("freelist page %d: truncated", id)
		}
		count = ne.Uint64(p[off:])
		off += 8
	}
	if count > (uint64(len(p))-off)/8 {
		return fmt.Errorf("freelist page %d: %d ids do not fit", id, count)
	}
	for i := range count {
		free := ne.Uint64(p[off+8*i:])
		if free < 2 || free >= c.pgid {
			return fmt.Errorf("freelist page %d: free page %d out of range [2, %d)", id, free, c.pgid)
		}
		if c.seen[free] != 0 {
			return fmt.Errorf("freelist page %d: page %d listed twice or in use", id, free)
		}
		c.seen[free] = pageFree
	}
	return nil
}

// leafElement is one element of a leaf page.
type leafElement struct {
	flags      uint32
	key, value []byte
}

// leafElements returns the elements of the leaf page p (a page from the
// file, or, exact, an inline page inside a bucket value). bbolt writes a
// page's elements, then their keys and values packed in element order
// (common.WriteInodeToPage), and an inline page is exactly that long
// (node.size): so each element's data must start where the previous one's
// ended, which a damaged count, position or size breaks.
//
// The elements are appended to els[:0], whose array is reused.
func leafElements(els []leafElement, p []byte, exact bool) ([]leafElement, error) {
	if len(p) < boltPageHeader {
		return nil, errors.New("leaf page truncated")
	}
	if f := ne.Uint16(p[8:]); f != boltLeafPage {
		return nil, fmt.Errorf("flags %#x, want a leaf page", f)
	}
	count := int(ne.Uint16(p[10:]))
	next := uint64(boltPageHeader + count*boltElementSize)
	if next > uint64(len(p)) {
		return nil, fmt.Errorf("%d elements do not fit", count)
	}
	els = els[:0]
	for i := range count {
		at := boltPageHeader + i*boltElementSize
		e := p[at : at+boltElementSize]
		pos, ksize, vsize := uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
		start := uint64(at) + pos
		if start != next || ksize == 0 || start+ksize+vsize > uint64(len(p)) {
			return nil, fmt.Errorf("element %d of %d: data at %d+%d+%d, want at %d within %d bytes", i, count, start, ksize, vsize, next, len(p))
		}
		next = start + ksize + vsize
		els = append(els, leafElement{
			flags: ne.Uint32(e),
			key:   p[start : start+ksize : start+ksize],
			value: p[start+ksize : next : next],
		})
	}
	if exact && next != uint64(len(p)) {
		return nil, fmt.Errorf("%d elements end at %d of %d bytes", count, next, len(p))
	}
	return els, nil
}

// pageRef is a page to visit, with the keys its subtree must lie in:
// lo <= key, and key < hi unless hi is nil.
type pageRef struct {
	id     uint64
	lo, hi []byte
}

// walk visits the B+tree rooted at page root, leaf by leaf in key order,
// calling leaf with the elements of each leaf page. It checks that each
// page is a branch or a leaf, that keys ascend strictly within a page and
// lie within the bounds their parent sets (so that bbolt's search, which
// picks the last branch key not above the one sought, finds every key),
// and that no page is reached twice, so the walk ends on any input.
func (c *boltChecker) walk(root uint64, leaf func([]leafElement) error) error {
	stack := []pageRef{{id: root}}
	for len(stack) > 0 {
		ref := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		p, err := c.readPage(ref.id)
		if err != nil {
			return err
		}
		switch ne.Uint16(p[8:]) {
		case boltLeafPage:
			els, err := leafElements(c.els, p, false)
			if err != nil {
				return fmt.Errorf("page %d: %w", ref.id, err)
			}
			c.els = els
			if err := checkLeafOrder(els, ref.lo, ref.hi); err != nil {
				return fmt.Errorf("page %d: %w", ref.id, err)
			}
			if err := leaf(els); err != nil {
				return fmt.Errorf("page %d: %w", ref.id, err)
			}
		case boltBranchPage:
			count := int(ne.Uint16(p[10:]))
			next := uint64(boltPageHeader + count*boltElementSize)
			if count == 0 || next > uint64(len(p)) {
				return fmt.Errorf("page %d: branch of %d elements", ref.id, count)
			}
			keys := make([][]byte, count)
			children := make([]uint64, count)
			for i := range count { // packed as in a leaf page (see leafElements)
				at := boltPageHeader + i*boltElementSize
				e := p[at : at+boltElementSize]
				pos, ksize := uint64(ne.Uint32(e)), uint64(ne.Uint32(e[4:]))
				start := uint64(at) + pos
				if start != next || ksize == 0 || start+ksize > uint64(len(p)) {
					return fmt.Errorf("page %d: branch element %d of %d: key at %d+%d, want at %d within %d bytes", ref.id, i, count, start, ksize, next, len(p))
				}
				next = start + ksize
				keys[i] = bytes.Clone(p[start:next])
				children[i] = ne.Uint64(e[8:])
			}
			if err := checkKeyOrder(keys, ref.lo, ref.hi); err != nil {
				return fmt.Errorf("page %d: %w", ref.id, err)
			}
			for i := count - 1; i >= 0; i-- { // pushed in reverse: visited in key order
				hi := ref.hi
				if i+1 < count {
					hi = keys[i+1]
				}
				stack = append(stack, pageRef{id: children[i], lo: keys[i], hi: hi})
			}
		default:
			return fmt.Errorf("page %d: flags %#x, want a branch or leaf page", ref.id, ne.Uint16(p[8:]))
		}
	}
	return nil
}

// checkKeyOrder checks that keys ascend strictly, from at least lo, and
// stay below hi unless hi is nil.
func checkKeyOrder(keys [][]byte, lo, hi []byte) error {
	for i, k := range keys {
		var prev []byte
		if i > 0 {
			prev = keys[i-1]
		}
		if err := checkKeyAt(i, k, prev, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// checkLeafOrder is checkKeyOrder for the keys of leaf elements.
func checkLeafOrder(els []leafElement, lo, hi []byte) error {
	for i, e := range els {
		var prev []byte
		if i > 0 {
			prev = els[i-1].key
		}
		if err := checkKeyAt(i, e.key, prev, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// checkKeyAt checks key i, k, against the key before it (prev, nil for
// the first) and the bounds lo and hi.
func checkKeyAt(i int, k, prev, lo, hi []byte) error {
	switch {
	case prev == nil && lo != nil && bytes.Compare(k, lo) < 0:
		return fmt.Errorf("key %d (%x) below its parent's %x", i, k, lo)
	case prev != nil && bytes.Compare(prev, k) >= 0:
		return fmt.Errorf("key %d (%x) not above key %d (%x)", i, k, i-1, prev)
	case hi != nil && bytes.Compare(k, hi) >= 0:
		return fmt.Errorf("key %d (%x) not below the next parent key %x", i, k, hi)
	}
	return nil
}

// checkBoltTree checks the whole bbolt file r of size bytes as of meta
// page m (see the file comment) and returns the number of ledger entries.
// entry is called for every entry of the ledger's bucket, and request, when
// the file holds the bucket of approval requests (which the first Ask
// creates), for every entry of that bucket.
func checkBoltTree(r io.ReaderAt, size int64, m boltMeta, pageSize int, entry, request func(k, v []byte) error) (int, error) {
	c := &boltChecker{r: r, pageSize: int64(pageSize), pgid: m.pgid, seen: make([]uint8, m.pgid)}
	c.seen[0], c.seen[1] = pageReached, pageReached // the meta pages
	if err := c.freelist(m.freelist); err != nil {
		return 0, err
	}
	// The root bucket holds the ledger's bucket, the bucket of approval
	// requests if there is one, and nothing else.
	var bucket, requests []byte
	err := c.walk(m.root, func(els []leafElement) error {
		for _, e := range els {
			switch {
			case e.flags == boltBucketElement && bytes.Equal(e.key, boltBucket) && bucket == nil:
				bucket = bytes.Clone(e.value)
			case e.flags == boltBucketElement && bytes.Equal(e.key, requestBucket) && requests == nil:
				requests = bytes.Clone(e.value)
			default:
				return fmt.Errorf("root bucket holds %q (flags %#x); want only the buckets %q and %q", e.key, e.flags, boltBucket, requestBucket)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("root bucket: %w", err)
	}
	if bucket == nil {
		return 0, fmt.Errorf("bucket %q missing", boltBucket)
	}
	n, err := c.bucket(boltBucket, bucket, entry)
	if err != nil {
		return 0, err
	}
	if requests != nil {
		if _, err := c.bucket(requestBucket, requests, request); err != nil {
			return 0, err
		}
	}
	for id, s := range c.seen {
		if s == 0 {
			return 0, fmt.Errorf("page %d neither in use nor free", id)
		}
	}
	return n, nil
}

// bucket walks the bucket name, whose value in its parent is bucket,
// calling entry for each of its entries, and returns their number.
func (c *boltChecker) bucket(name, bucket []byte, entry func(k, v []byte) error) (int, error) {
	if len(bucket) < boltBucketHeader {
		return 0, fmt.Errorf("bucket %q: value of %d bytes", name, len(bucket))
	}
	n := 0
	entries := func(els []leafElement) error {
		for _, e := range els {
			if e.flags != 0 {
				return fmt.Errorf("entry %x: flags %#x", e.key, e.flags)
			}
			if err := entry(e.key, e.value); err != nil {
				return err
			}
			n++
		}
		return nil
	}
	var err error
	if root := ne.Uint64(bucket); root != 0 {
		if len(bucket) != boltBucketHeader {
			return 0, fmt.Errorf("bucket %q: page %d and %d inline bytes", name, root, len(bucket)-boltBucketHeader)
		}
		err = c.walk(root, entries)
	} else {
		inline := bucket[boltBucketHeader:]
		if len(inline) < boltPageHeader || ne.Uint64(inline) != 0 || ne.Uint32(inline[12:]) != 0 {
			return 0, fmt.Errorf("bucket %q: inline page header damaged", name)
		}
		var els []leafElement
		if els, err = leafElements(nil, inline, true); err == nil {
			if err = checkLeafOrder(els, nil, nil); err == nil {
				err = entries(els)
			}
		}
		if err != nil {
			err = fmt.Errorf("inline page: %w", err)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("bucket %q: %w", name, err)
	}
	return n, nil
}
