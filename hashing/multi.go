// This file hashes many independent messages at once. The assembly
// kernels (blockSHANIx2, blockAVX2x8) compress the same number of blocks in
// each of their lanes; everything else happens here, in Go:
//
//   - sumLanes keeps one message per lane. A lane first runs through the
//     whole blocks of its message, read in place, then through its padded
//     final block or two, built in Go in the lane's own small buffer.
//   - Each kernel call runs as many blocks as the shortest lane has left,
//     tail included (capped at 64 KiB per lane to keep the goroutine
//     preemptible), so the lanes never need masking. A lane passes from
//     its message into its tail buffer inside the kernel (laneState.cnt
//     and next), so a message costs one call, not two.
//   - A lane that finishes writes its digest and takes the next message at
//     once; a lane with nothing left to do reads another lane's input and
//     its result is thrown away.
//   - On the wide kernels (16 or 8 lanes), messages start longest first
//     by block count, window by window (order), so that the lanes finish
//     together: with mixed lengths in msgs' order, nearly every call would
//     end when one lane finishes, and cost the Go bookkeeping of every lane
//     for one message.
//   - When messages run out and only a few lanes still work, a mostly
//     idle multi-lane kernel does less work than a narrower one would:
//     the busy lanes move, with their chaining values, to two interleaved
//     SHA-NI streams where the CPU has SHA-NI and the kernel is wider
//     (endOfBatch, endLanes), and the last one, or all of them elsewhere,
//     is finished with the single-message kernel. A batch of fewer
//     messages than that threshold thus goes to the SHA-NI streams at once.

package hashing

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// laneState is shared with the assembly kernels; its layout is fixed
// (see _asm/gen.go). Lane j reads cnt[j] blocks from ptr[j] on and then
// continues from next[j], so that it can run from the whole blocks of its
// message into its padded tail within one call. The chaining values are in
// rows (word w of lane j at [w][j]) for the AVX2 and AVX-512 kernels,
// and in ni (lane j as ABEF, CDGH: f e b a h g d c) for the SHA-NI kernel;
// get and set hide the difference.
type laneState struct {
	hbuf [8*16 + 16]uint32 // holds rows, at its first 64-byte boundary
	ptr  [16]*byte
	next [16]*byte
	cnt  [16]int
	ni   [2][8]uint32
}

// rows returns the chaining values of the wide kernels: the 512 bytes of
// hbuf from its first 64-byte boundary, where the kernels find them
// ((st+63) &^ 63), so that a kernel's load or store of a row never
// straddles two cache lines, wherever the caller's stack puts st (the
// kernels ran slower when a change elsewhere in sumLanes moved st on the
// stack, before). A goroutine's stack moves only by whole stack sizes, so
// the boundary stays where it is for the life of st.
func (st *laneState) rows() *[8][16]uint32 {
	p := unsafe.Pointer(&st.hbuf)
	// st is 8-aligned (it holds pointers): the boundary is at most 56
	// bytes in, and the 512 bytes from it end inside hbuf.
	return (*[8][16]uint32)(unsafe.Add(p, -uintptr(p)&63))
}

// ivNI is iv in the order of laneState.ni.
var ivNI = [8]uint32{iv[5], iv[4], iv[1], iv[0], iv[7], iv[6], iv[3], iv[2]}

// get returns the chaining value of lane j for a kernel of kind b.
func (st *laneState) get(b batchID, j int) [8]uint32 {
	if b == batchSHANIx2 {
		x := st.ni[j]
		return [8]uint32{x[3], x[2], x[7], x[6], x[1], x[0], x[5], x[4]}
	}
	return rowGet(st.rows(), j)
}

// rowGet returns lane j's chaining value from the wide kernels' rows r.
func rowGet(r *[8][16]uint32, j int) [8]uint32 {
	var h [8]uint32
	for w := range h {
		h[w] = r[w][j]
	}
	return h
}

// set makes h the chaining value of lane j for a kernel of kind b.
func (st *laneState) set(b batchID, j int, h *[8]uint32) {
	if b == batchSHANIx2 {
		st.ni[j] = [8]uint32{h[5], h[4], h[1], h[0], h[7], h[6], h[3], h[2]}
		return
	}
	rowSet(st.rows(), j, h)
}

// rowSet makes h lane j's chaining value in the wide kernels' rows r.
func rowSet(r *[8][16]uint32, j int, h *[8]uint32) {
	for w := range h {
		r[w][j] = h[w]
	}
}

// lane is the Go-side bookkeeping of one lane. It holds no pointers, so
// that sumLanes keeps everything on its stack: the message is msgs[k], the
// padded final block(s) are in the lane's own buffer of the caller, which
// stays the lane's when it moves to another kernel for the end of the
// batch (endLanes).
type lane struct {
	k      int  // index into msgs, or -1 when idle
	off    int  // next byte to compress, in the message or in the tail buffer
	full   int  // length of the whole blocks of the message
	inTail bool // off is in the tail buffer
	tailN  int  // bytes of padded tail: BlockSize or 2*BlockSize
}

// blocksLeft returns how many blocks the lane still has to compress.
func (l *lane) blocksLeft() int {
	if l.inTail {
		return (l.tailN - l.off) / BlockSize
	}
	return (l.full-l.off)/BlockSize + l.tailN/BlockSize
}

// endOfBatch says how sumLanes finishes a batch on kernel b: once every
// message has started and fewer than below lanes are still busy, the
// busy lanes move to the kernel then, or with batchSerial are finished
// one at a time with the single-message kernel. Below that many busy
// lanes, a call of b does less work than then does.
func endOfBatch(b batchID) (below int, then batchID) {
	switch b {
	case batchSHANIx2:
		return 2, batchSerial
	case batchAVX2x8:
		switch active.single {
		case pathSHANI:
			// One SHA-NI stream beats the whole 8-lane kernel (on AMD Zen
			// 1; BenchmarkLanesKernel/impl=avx2 against
			// BenchmarkSum256/impl=shani/size=1K), and two interleaved
			// streams do more than one: as soon as the messages run out,
			// the lanes go to two SHA-NI streams. Only reached when avx2
			// is forced.
			return 9, batchSHANIx2
		case pathStdlib:
			// crypto/sha256's AVX2 stream is worth about 2-3 lanes of the
			// 8-lane kernel: an estimate, not a measurement (on a CPU with
			// AVX2 and no SHA-NI, BenchmarkLanesKernel/impl=avx2 against
			// BenchmarkSum256/impl=stdlib/size=1K would measure it).
			return 3, batchSerial
		}
		return 1, batchSerial
	case batchAVX512x16:
		switch active.single {
		case pathSHANI:
			// The end of a batch (the last messages of a long batch, most
			// of a batch of a few dozen, all of a batch of fewer messages
			// than half the lanes) goes to two interleaved SHA-NI streams,
			// which do the work of about half the sixteen lanes on Intel
			// and of more on AMD (BenchmarkLanesKernel/impl=shani-x2
			// against impl=avx512: the ratio of their msgs/s, times 16;
			// its doc comment keeps the measurements). How many lanes
			// they are worth depends on the microarchitecture (the speed
			// of its SHA unit against its vector units), so the switch is
			// made at half the lanes, the lower of the break-evens
			// measured: a CPU whose SHA unit is slower than Intel's loses
			// little by it, and one whose SHA unit is faster leaves a
			// little on the table.
			return 8, batchSHANIx2
		case pathStdlib:
			return 3, batchSerial
		}
		return 1, batchSerial
	}
	return 1, batchSerial
}

// SumMany writes the SHA-256 [Digest] of msgs[i] to out[i] for every i,
// hashing several messages at once with the batch kernel in force (see
// the package documentation): the messages may have any lengths and any number of them
// may be given. It runs on the calling goroutine only; to use every core,
// split msgs among goroutines. It does not
// allocate. It panics if len(out) < len(msgs).
func SumMany(msgs [][]byte, out []Digest) {
	if len(out) < len(msgs) {
		panic("hashing: SumMany: len(out) < len(msgs)")
	}
	sumMany(msgs, out, nil)
}

// sumMany hashes msgs[k] into out[k], or into out[idx[k]] when idx is not nil.
func sumMany(msgs [][]byte, out []Digest, idx []int) {
	b := active.batch
	if b == batchSerial || len(msgs) < 2 {
		for k, m := range msgs {
			o := k
			if idx != nil {
				o = idx[k]
			}
			out[o] = Sum256(m)
		}
		return
	}
	sumLanes(b, msgs, out, idx)
}

func sumLanes(kind batchID, msgs [][]byte, out []Digest, idx []int) {
	var (
		st   laneState
		ls   [16]lane
		tail [16][2 * BlockSize]byte
		ord  = order{msgs: msgs}
	)
	nl := kind.lanes()
	rows := st.rows() // computed once: st stays where it is (see rows)
	below, then := endOfBatch(kind)
	// Messages start in order of block count on the wide kernels (order);
	// winEnd is where the window of ord ends and sorted whether ord
	// orders it, in locals that stay in registers. Two SHA-NI streams
	// keep msgs' order: a call of theirs costs little in Go, and the sort
	// costs more than it saves (BenchmarkSumMany/impl=shani-x2).
	winEnd, sorted := 0, false
	if nl <= 2 {
		winEnd = len(msgs)
	}
	next := 0 // messages started

	for j := range nl {
		ls[j] = lane{k: -1}
		if next < len(msgs) {
			if next >= winEnd {
				winEnd, sorted = ord.window(next)
			}
			k := next
			if sorted {
				k = ord.base + int(ord.idx[next-ord.base])
			}
			ls[j] = loadLane(&st, rows, kind, j, &tail[j], msgs[k], k)
			next++
		}
	}
	for {
		n := maxAsmBlocks
		busy, first := 0, -1
		for j := range nl {
			if ls[j].k < 0 {
				continue
			}
			busy++
			if first < 0 {
				first = j
			}
			n = min(n, ls[j].blocksLeft())
		}
		if busy == 0 {
			return
		}
		if busy < below && next >= len(msgs) {
			// Messages ran out and few lanes are busy.
			endLanes(kind, then, &st, &ls, &tail, msgs, out, idx)
			return
		}
		for j := range nl {
			src := j
			if ls[j].k < 0 {
				src = first // idle: read a busy lane's blocks, discard the result
			}
			st.ptr[j], st.cnt[j] = ls[src].blocks(&tail[src], msgs, n)
			st.next[j] = &tail[src][0]
		}
		lanesKernel(kind, &st, n)
		for j := range nl {
			l := ls[j]
			if l.k < 0 {
				continue
			}
			if !l.advance(n) {
				ls[j] = l
				continue
			}
			var h [8]uint32
			if kind == batchSHANIx2 {
				h = st.get(kind, j)
			} else {
				h = rowGet(rows, j)
			}
			putDigest(out, idx, l.k, &h)
			if next >= len(msgs) {
				ls[j].k = -1
				continue
			}
			if next >= winEnd {
				winEnd, sorted = ord.window(next)
			}
			k := next
			if sorted {
				k = ord.base + int(ord.idx[next-ord.base])
			}
			ls[j] = loadLane(&st, rows, kind, j, &tail[j], msgs[k], k)
			next++
		}
	}
}

// blocks returns where the lane's next blocks are, in its message or in
// its padded tail, and how many a kernel reads from there before it goes
// on to the start of the tail (laneState.cnt), for a call of n blocks: a
// lane in its tail counts n, so that the kernel leaves its pointer at the
// tail's start rather than past its end.
func (l *lane) blocks(tail *[2 * BlockSize]byte, msgs [][]byte, n int) (*byte, int) {
	if l.inTail {
		return &tail[l.off], n
	}
	return &msgs[l.k][l.off], (l.full - l.off) / BlockSize
}

// advance records that the lane compressed n more blocks (at most
// blocksLeft) and reports whether its message is done.
func (l *lane) advance(n int) bool {
	if !l.inTail {
		body := (l.full - l.off) / BlockSize
		if n < body {
			l.off += n * BlockSize
			return false
		}
		l.inTail, l.off = true, (n-body)*BlockSize
	} else {
		l.off += n * BlockSize
	}
	return l.off >= l.tailN
}

// endLanes finishes the busy lanes of ls, whose chaining values are in st
// for kind: on the kernel then, its lanes taking them one after another,
// and the last one, or all of them when then is batchSerial, with the
// single-message kernel. A lane keeps its tail buffer, tail[j].
func endLanes(kind, then batchID, st *laneState, ls *[16]lane, tail *[16][2 * BlockSize]byte, msgs [][]byte, out []Digest, idx []int) {
	var (
		h    [16][8]uint32 // chaining value of lane j of ls
		wait [16]int       // lanes of ls to finish, in order
		nw   int
		// The state of the kernel then: a local, so that the pointers
		// to the tails stored in it do not make tail escape.
		ts laneState
	)
	for j := range kind.lanes() {
		if ls[j].k >= 0 {
			h[j] = st.get(kind, j)
			wait[nw] = j
			nw++
		}
	}
	if then != batchSerial && nw > 1 {
		// Lane s of then runs lane on[s] of ls, or none when -1.
		var on [16]int
		nl, w := then.lanes(), 0
		for s := range nl {
			on[s] = -1
			if w < nw {
				on[s] = wait[w]
				ts.set(then, s, &h[on[s]])
				w++
			}
		}
		for {
			n := maxAsmBlocks
			busy, first := 0, -1
			for s := range nl {
				if on[s] < 0 {
					continue
				}
				busy++
				if first < 0 {
					first = s
				}
				n = min(n, ls[on[s]].blocksLeft())
			}
			if busy < 2 && w >= nw {
				// One lane left (or none): alone on the single kernel.
				nw, w = 0, 0
				if busy == 1 {
					j := on[first]
					h[j] = ts.get(then, first)
					wait[0], nw = j, 1
				}
				break
			}
			for s := range nl {
				src := s
				if on[s] < 0 {
					src = first
				}
				j := on[src]
				ts.ptr[s], ts.cnt[s] = ls[j].blocks(&tail[j], msgs, n)
				ts.next[s] = &tail[j][0]
			}
			lanesKernel(then, &ts, n)
			for s := range nl {
				j := on[s]
				if j < 0 || !ls[j].advance(n) {
					continue
				}
				hs := ts.get(then, s)
				putDigest(out, idx, ls[j].k, &hs)
				on[s] = -1
				if w < nw {
					on[s] = wait[w]
					ts.set(then, s, &h[on[s]])
					w++
				}
			}
		}
	}
	// Finish the lanes in wait one at a time.
	for _, j := range wait[:nw] {
		l := ls[j]
		if !l.inTail && active.single == pathStdlib {
			o := l.k
			if idx != nil {
				o = idx[o]
			}
			out[o] = resumeStdlib(&h[j], msgs[l.k], l.off)
			continue
		}
		if !l.inTail {
			block(&h[j], msgs[l.k][l.off:l.full])
			l.off = 0
		}
		block(&h[j], tail[j][l.off:l.tailN])
		putDigest(out, idx, l.k, &h[j])
	}
}

// groupWindow is how many messages sumLanes orders by block count at a
// time: a few hundred keep the lanes in step through a long batch, and the
// order fits on the stack.
const groupWindow = 256

// groupSample is how many messages at the start of a window decide
// whether it is sorted (order.window).
const groupSample = 32

// groupExact is the block count below which messages are ordered by their
// exact block count; longer ones are ordered by the power of two below it
// (groupKey), which still starts the longest first, so that the lanes end
// a batch nearly together.
const groupExact = 64

// groupKeys is how many keys groupKey returns: block counts up to
// groupExact, then one per power of two up to 2^40.
const groupKeys = groupExact + 34

// order is the order in which sumLanes starts messages on a kernel of
// more than two lanes: window by window of groupWindow messages, longest
// first by block count (padding included), so that the lanes run messages
// of the same block count side by side and finish them in the same kernel
// call, and the shortest are left for the end of the batch.
type order struct {
	msgs [][]byte
	idx  [groupWindow]uint16 // msgs[base+idx[i]] is the i-th of a sorted window
	base int
}

// window starts a window at msgs[base] (base < len(msgs)) and returns
// where it ends and whether it is sorted: it is unless its first
// groupSample messages are in order already (equal lengths, above all),
// as on such a batch a check of every length costs more than the order
// saves; a window that is mixed further on is hashed in msgs' order, with
// lanes less in step.
func (o *order) window(base int) (end int, sorted bool) {
	w := o.msgs[base:min(base+groupWindow, len(o.msgs))]
	o.base = base
	prev := uint8(groupKeys - 1)
	for _, m := range w[:min(len(w), groupSample)] {
		key := groupKey(len(m))
		if key > prev {
			o.sort(w)
			return base + len(w), true
		}
		prev = key
	}
	return base + len(w), false
}

// sort orders the window w, longest first: a counting sort on groupKey.
func (o *order) sort(w [][]byte) {
	var (
		keys [groupWindow]uint8
		pos  [groupKeys]uint16
	)
	for i, m := range w {
		key := groupKey(len(m))
		keys[i] = key
		pos[key]++
	}
	at := uint16(0)
	for key := groupKeys - 1; key >= 0; key-- {
		c := pos[key]
		pos[key] = at
		at += c
	}
	for i := range w {
		key := keys[i]
		o.idx[pos[key]] = uint16(i)
		pos[key]++
	}
}

// groupKey orders a message of n bytes among the others: the number of
// blocks it takes, padding included, below groupExact, and groupExact plus
// the power of two below that number from there on.
func groupKey(n int) uint8 {
	b := (n+8)/BlockSize + 1
	if b < groupExact {
		return uint8(b)
	}
	return uint8(min(groupExact+bits.Len(uint(b))-7, groupKeys-1))
}

// loadLane starts message m, msgs[k], in lane j: the chaining value is
// set to the IV (in st.ni, or in rows, st.rows(), for the wide kernels)
// and the padded tail is built in tail.
func loadLane(st *laneState, rows *[8][16]uint32, kind batchID, j int, tail *[2 * BlockSize]byte, m []byte, k int) lane {
	if kind == batchSHANIx2 {
		st.ni[j] = ivNI // one 32-byte copy rather than set's shuffle
	} else {
		rowSet(rows, j, &iv)
	}
	full := len(m) &^ (BlockSize - 1)
	n := copy(tail[:], m[full:])
	tail[n] = 0x80
	tailN := BlockSize
	if n >= BlockSize-8 {
		tailN = 2 * BlockSize
	}
	clear(tail[n+1 : tailN-8])
	binary.BigEndian.PutUint64(tail[tailN-8:], uint64(len(m))<<3)
	return lane{k: k, full: full, inTail: full == 0, tailN: tailN}
}

// putDigest writes the digest h of message k to out[k], or to out[idx[k]].
func putDigest(out []Digest, idx []int, k int, h *[8]uint32) {
	if idx != nil {
		k = idx[k]
	}
	d := &out[k]
	for w, v := range h {
		binary.BigEndian.PutUint32(d[4*w:], v)
	}
}

// Batcher hashes a stream of independent messages in batches, for callers
// that produce messages one at a time (a reader, a parser, a queue)
// rather than as one [][]byte. Add queues a message; when enough are
// queued, or on Flush, the queue is hashed with [SumMany]'s kernels and
// each digest is written to the slot of the output slice that Add named.
//
// A message passed to Add must not be modified until its digest has been
// written, which is at the latest when Flush returns; Out[i] is valid only
// after that. A Batcher reuses its queue, so after the first batches it
// does not allocate. It is not safe for concurrent use; give each
// goroutine its own.
//
//	b := hashing.NewBatcher(out)
//	for i, m := range messages {
//		b.Add(m, i)
//	}
//	b.Flush() // out[i] now holds the digest of messages[i]
type Batcher struct {
	out  []Digest
	msgs [][]byte
	idx  []int
}

// batcherQueue is how many messages a Batcher queues before hashing them:
// enough to keep every lane busy across very different lengths, few
// enough that the queue stays small.
const batcherQueue = 256

// NewBatcher returns a Batcher that writes the digest of the message
// added with index i to out[i].
func NewBatcher(out []Digest) *Batcher {
	return &Batcher{out: out}
}

// Reset drops any queued messages without hashing them and directs later
// results to out.
func (b *Batcher) Reset(out []Digest) {
	clear(b.msgs)
	b.msgs, b.idx, b.out = b.msgs[:0], b.idx[:0], out
}

// Add queues msg; its digest will be written to out[i]. Add may hash the
// queue before it returns. It panics if i is not a valid index of out.
func (b *Batcher) Add(msg []byte, i int) {
	_ = b.out[i] // fail here rather than in a later Flush
	b.msgs = append(b.msgs, msg)
	b.idx = append(b.idx, i)
	if len(b.msgs) >= batcherQueue {
		b.Flush()
	}
}

// Flush hashes every queued message and writes its digest. The Batcher can
// be used again afterwards, with the same output slice.
func (b *Batcher) Flush() {
	if len(b.msgs) == 0 {
		return
	}
	sumMany(b.msgs, b.out, b.idx)
	clear(b.msgs) // do not pin the callers' buffers
	b.msgs, b.idx = b.msgs[:0], b.idx[:0]
}

// resumeStdlib finishes msg with crypto/sha256, from chaining value h after
// the first done bytes (a multiple of BlockSize). The state goes in through
// crypto/sha256's marshaled form, which is ours.
func resumeStdlib(h *[8]uint32, msg []byte, done int) Digest {
	var st [marshaledSize]byte
	b := append(st[:0], magic256...)
	for _, v := range h {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	binary.BigEndian.PutUint64(st[marshaledSize-8:], uint64(done))
	d := sha256.New()
	if err := d.(encoding.BinaryUnmarshaler).UnmarshalBinary(st[:]); err != nil {
		panic("BUG: hashing: crypto/sha256 rejected a state: " + err.Error())
	}
	d.Write(msg[done:])
	var out Digest
	d.Sum(out[:0])
	return out
}
