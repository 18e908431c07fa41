package hashing

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"
)

// laneLengths are the lengths that stress the lane scheduler and the
// padding: empty, one byte, the last length with a one-block tail (55),
// the first with a two-block tail (56), around a block, around two blocks,
// and a long message that outlives many short ones.
var laneLengths = []int{0, 1, 55, 56, 63, 64, 65, 119, 120, 1 << 20}

func checkMany(t *testing.T, msgs [][]byte, what string) {
	t.Helper()
	out := make([]Digest, len(msgs)+1)
	sentinel := Digest{1, 2, 3}
	out[len(msgs)] = sentinel
	SumMany(msgs, out[:len(msgs)])
	for i, m := range msgs {
		if want := Digest(sha256.Sum256(m)); out[i] != want {
			t.Fatalf("%s: message %d of %d (len %d): got %v, want %v", what, i, len(msgs), len(m), out[i], want)
		}
	}
	if out[len(msgs)] != sentinel {
		t.Fatalf("%s: SumMany wrote past len(msgs)", what)
	}
}

func TestSumManyLaneMixes(t *testing.T) {
	r := newRand(t)
	big := randBytes(r, 1<<20+64)
	forEachImpl(t, func(t *testing.T) {
		// Every length alone, and each length next to each other length.
		for _, a := range laneLengths {
			checkMany(t, [][]byte{big[1 : 1+a]}, "single")
			for _, b := range laneLengths {
				checkMany(t, [][]byte{big[:a], big[3 : 3+b]}, "pair")
			}
		}
		// Random mixes of the lane lengths at random offsets; the long
		// message is rare so that the test stays fast.
		for range 40 {
			n := 1 + r.IntN(40)
			msgs := make([][]byte, n)
			for i := range msgs {
				l := laneLengths[r.IntN(len(laneLengths)-1)]
				if r.IntN(30) == 0 {
					l = 1 << 20
				}
				off := r.IntN(64)
				msgs[i] = big[off : off+l]
			}
			checkMany(t, msgs, "mix")
		}
		// The long message first, last and in the middle of short ones.
		short := make([][]byte, 33)
		for i := range short {
			short[i] = big[i : i+i*7]
		}
		checkMany(t, append([][]byte{big[:1<<20]}, short...), "long first")
		checkMany(t, append(short[:len(short):len(short)], big[:1<<20]), "long last")
		checkMany(t, append(append(short[:16:16], big[5:5+1<<20]), short[16:]...), "long middle")
	})
}

// TestSumManyBatchSizes runs batches of 1 to 1,000 random messages of
// random lengths 0..10,000.
func TestSumManyBatchSizes(t *testing.T) {
	r := newRand(t)
	pool := randBytes(r, 20000)
	sizes := []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 100, 257, 1000}
	if testing.Short() {
		sizes = []int{1, 2, 3, 8, 9, 17, 100, 1000}
	}
	forEachImpl(t, func(t *testing.T) {
		for _, n := range sizes {
			msgs := make([][]byte, n)
			for i := range msgs {
				l := r.IntN(10001)
				if r.IntN(4) == 0 {
					l = r.IntN(200)
				}
				off := r.IntN(len(pool) - l + 1)
				msgs[i] = pool[off : off+l]
			}
			checkMany(t, msgs, "random batch")
		}
		checkMany(t, nil, "empty batch")
	})
}

// TestSumManyMillion hashes a batch of a million short messages (0 to 150
// bytes, so one to three blocks each) on every path: lanes are refilled
// a million times, and every digest must still be crypto/sha256's. With
// -short the batch has 100,000 messages.
func TestSumManyMillion(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	r := newRand(t)
	pool := randBytes(r, 4096)
	msgs := make([][]byte, n)
	for i := range msgs {
		l := r.IntN(151)
		off := r.IntN(len(pool) - l + 1)
		msgs[i] = pool[off : off+l]
	}
	forEachImpl(t, func(t *testing.T) {
		checkMany(t, msgs, "a million messages")
	})
}

// TestSumManyDoesNotModifyInput checks that messages are only read, even
// when the same buffer backs several of them.
func TestSumManyDoesNotModifyInput(t *testing.T) {
	r := newRand(t)
	buf := randBytes(r, 5000)
	orig := bytes.Clone(buf)
	msgs := [][]byte{buf, buf[1:200], buf[:0], buf[100:4000], buf[64:128]}
	forEachImpl(t, func(t *testing.T) {
		checkMany(t, msgs, "shared buffer")
		if !bytes.Equal(buf, orig) {
			t.Fatal("SumMany modified its input")
		}
	})
}

func TestSumManyShortOut(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("SumMany with len(out) < len(msgs) did not panic")
		}
	}()
	SumMany(make([][]byte, 2), make([]Digest, 1))
}

func TestBatcher(t *testing.T) {
	r := newRand(t)
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 5, batcherQueue - 1, batcherQueue, batcherQueue + 1, 3*batcherQueue + 7} {
			msgs := make([][]byte, n)
			for i := range msgs {
				msgs[i] = randBytes(r, r.IntN(700))
			}
			out := make([]Digest, n)
			b := NewBatcher(out)
			// Add in a shuffled order: each result must land at its index.
			for _, i := range r.Perm(n) {
				b.Add(msgs[i], i)
			}
			b.Flush()
			b.Flush() // no-op
			for i, m := range msgs {
				if want := Digest(sha256.Sum256(m)); out[i] != want {
					t.Fatalf("n=%d: out[%d] = %v, want %v", n, i, out[i], want)
				}
			}
		}

		// Reuse with Reset: queued messages are dropped, results go to
		// the new slice, and steady-state use does not allocate.
		out1, out2 := make([]Digest, 2), make([]Digest, 2)
		b := NewBatcher(out1)
		b.Add([]byte("dropped"), 0)
		b.Reset(out2)
		b.Add([]byte("abc"), 1)
		b.Flush()
		if out1[0] != (Digest{}) || out2[1] != Sum([]byte("abc")) {
			t.Fatal("Reset did not drop the queue or redirect the output")
		}
		msg := []byte("steady state")
		many := make([]Digest, 1000)
		b.Reset(many)
		if allocs := testing.AllocsPerRun(5, func() {
			for i := range many {
				b.Add(msg, i)
			}
			b.Flush()
		}); allocs > 0 {
			t.Errorf("Batcher: %v allocs in steady state, want 0", allocs)
		}
	})
}

func TestBatcherBadIndex(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Add with an index outside out did not panic")
		}
	}()
	NewBatcher(make([]Digest, 1)).Add(nil, 1)
}

// TestLaneKernelsLikeGeneric drives each multi-lane kernel directly with
// random chaining values and a different block count per call, lane by
// lane against blockGeneric, including idle lanes that share another
// lane's input.
func TestLaneKernelsLikeGeneric(t *testing.T) {
	r := newRand(t)
	forEachImpl(t, func(t *testing.T) {
		kind := active.batch
		if kind == batchSerial {
			t.Skip("no lanes kernel on this path")
		}
		nl := kind.lanes()
		for range 60 {
			var st laneState
			n := 1 + r.IntN(5)
			if r.IntN(10) == 0 {
				n = maxAsmBlocks
			}
			data := make([][]byte, nl)
			want := make([][8]uint32, nl)
			for j := range nl {
				var h [8]uint32
				for w := range h {
					h[w] = r.Uint32()
				}
				st.set(kind, j, &h)
				want[j] = h
				off := r.IntN(64)
				data[j] = randBytes(r, n*BlockSize+off)[off:]
				if j > 0 && r.IntN(4) == 0 {
					data[j] = data[r.IntN(j)] // shared input, as for an idle lane
				}
				// Read the first cnt blocks from one buffer and the rest
				// from another, as a lane going from its message into its
				// padded tail does; cnt >= n never switches.
				cnt := 1 + r.IntN(n+1)
				first, rest := data[j], data[j]
				if cnt < n {
					first = bytes.Clone(data[j][:cnt*BlockSize])
					rest = bytes.Clone(data[j][cnt*BlockSize:])
				}
				st.ptr[j], st.cnt[j], st.next[j] = &first[0], cnt, &rest[0]
				blockGeneric(&want[j], data[j])
			}
			lanesKernel(kind, &st, n)
			for j := range nl {
				if got := st.get(kind, j); got != want[j] {
					t.Fatalf("%s lane %d, %d blocks: got %08x, want %08x", kind, j, n, got, want[j])
				}
			}
		}
	})
}

func BenchmarkBatcher(b *testing.B) {
	msgs := make([][]byte, 1024)
	r := rand.New(rand.NewPCG(1, 1))
	total := 0
	for i := range msgs {
		msgs[i] = make([]byte, r.IntN(2048))
		total += len(msgs[i])
	}
	out := make([]Digest, len(msgs))
	bt := NewBatcher(out)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for i, m := range msgs {
			bt.Add(m, i)
		}
		bt.Flush()
	}
	b.ReportMetric(float64(len(msgs))*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// TestSumManyOrderWindows runs, on every path, batches built to reach each
// case of the order in which the wide kernels start messages (order):
// windows that are sorted, windows in order already (equal lengths, or
// lengths falling), a window whose first groupSample messages are equal
// and the rest mixed, the boundaries of groupWindow, lengths past
// groupExact blocks (ordered by powers of two), and the end of a batch moving to two SHA-NI streams with every
// number of busy lanes.
func TestSumManyOrderWindows(t *testing.T) {
	r := newRand(t)
	pool := randBytes(r, 20*groupExact*BlockSize)
	msg := func(n int) []byte {
		off := r.IntN(len(pool) - n + 1)
		return pool[off : off+n]
	}
	randomLens := func(n, maxLen int) [][]byte {
		m := make([][]byte, n)
		for i := range m {
			m[i] = msg(r.IntN(maxLen + 1))
		}
		return m
	}
	var batches []struct {
		what string
		msgs [][]byte
	}
	add := func(what string, m [][]byte) {
		batches = append(batches, struct {
			what string
			msgs [][]byte
		}{what, m})
	}
	for _, n := range []int{groupWindow - 1, groupWindow, groupWindow + 1, 2*groupWindow + 3} {
		add(fmt.Sprintf("%d random of 0-2K", n), randomLens(n, 2<<10))
	}
	add("random past groupExact blocks", randomLens(300, 16*groupExact*BlockSize))
	equalThenMixed := make([][]byte, 0, groupWindow+40)
	for range groupSample + 5 {
		equalThenMixed = append(equalThenMixed, msg(700))
	}
	add("equal, then mixed", append(equalThenMixed, randomLens(groupWindow, 3000)...))
	falling := randomLens(400, 5000)
	slices.SortFunc(falling, func(a, b []byte) int { return len(b) - len(a) })
	add("falling lengths", falling)
	rising := slices.Clone(falling)
	slices.Reverse(rising)
	add("rising lengths", rising)
	// The end of a batch: sixteen lanes, of which the first k finish
	// last.
	for k := 1; k <= 16; k++ {
		m := randomLens(16, 100)
		for i := range k {
			m[i] = msg(3000 + i*BlockSize)
		}
		add(fmt.Sprintf("%d long among 16", k), m)
	}
	forEachImpl(t, func(t *testing.T) {
		for _, b := range batches {
			checkMany(t, b.msgs, b.what)
			// And through a Batcher, whose results go to out[idx[k]].
			out := make([]Digest, len(b.msgs))
			bt := NewBatcher(out)
			for _, i := range r.Perm(len(b.msgs)) {
				bt.Add(b.msgs[i], i)
			}
			bt.Flush()
			for i, m := range b.msgs {
				if want := Digest(sha256.Sum256(m)); out[i] != want {
					t.Fatalf("%s through a Batcher: message %d (len %d): got %v, want %v", b.what, i, len(m), out[i], want)
				}
			}
		}
	})
}

// TestOrder checks the order in which the wide kernels start the messages
// of a window: every message once, and, when the window is sorted, by
// block count from the most to the fewest (groupKey); a window is left
// unsorted only when its first groupSample messages are in that order.
func TestOrder(t *testing.T) {
	r := newRand(t)
	for range 300 {
		n := 1 + r.IntN(2*groupWindow)
		msgs := make([][]byte, n)
		maxLen := []int{0, 60, 200, 2000, 16 * groupExact * BlockSize}[r.IntN(5)]
		same := r.IntN(3) == 0 // equal lengths
		l0 := r.IntN(maxLen + 1)
		buf := make([]byte, maxLen)
		for i := range msgs {
			l := l0
			if !same {
				l = r.IntN(maxLen + 1)
			}
			msgs[i] = buf[:l]
		}
		o := order{msgs: msgs}
		for base := 0; base < n; {
			end, sorted := o.window(base)
			if want := min(base+groupWindow, n); end != want {
				t.Fatalf("window(%d) of %d: end %d, want %d", base, n, end, want)
			}
			inOrder := true
			for i := base + 1; i < min(end, base+groupSample); i++ {
				if groupKey(len(msgs[i])) > groupKey(len(msgs[i-1])) {
					inOrder = false
				}
			}
			if sorted == inOrder {
				t.Fatalf("window(%d) of %d: sorted %v, first %d in order %v", base, n, sorted, groupSample, inOrder)
			}
			if sorted {
				seen := make([]bool, end-base)
				prev := groupKey(len(msgs[base+int(o.idx[0])]))
				for i := range end - base {
					k := int(o.idx[i])
					if k >= end-base || seen[k] {
						t.Fatalf("window(%d) of %d: idx[%d] = %d repeated or out of the window", base, n, i, k)
					}
					seen[k] = true
					key := groupKey(len(msgs[base+k]))
					if key > prev {
						t.Fatalf("window(%d) of %d: message %d (%d blocks) after one of %d", base, n, i, key, prev)
					}
					prev = key
				}
			}
			base = end
		}
	}
}

// TestEndOfBatch checks where the end of a batch goes on each path: from
// the wide kernels to two SHA-NI streams exactly when the single-message
// kernel is SHA-NI (so only on a CPU that has it), at fewer than half
// their lanes busy or sooner; from two SHA-NI streams, and everywhere
// else, to one message at a time.
func TestEndOfBatch(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		b := active.batch
		if b == batchSerial {
			t.Skip("batches are hashed one message at a time")
		}
		below, then := endOfBatch(b)
		if below < 1 || below > b.lanes()+1 {
			t.Errorf("%s: below %d, want 1 to %d", b, below, b.lanes()+1)
		}
		wantThen := batchSerial
		if b.lanes() > 2 && active.single == pathSHANI {
			wantThen = batchSHANIx2
			if below < b.lanes()/2 {
				t.Errorf("%s: to %s below %d busy lanes, want at least half the lanes", b, then, below)
			}
		}
		if then != wantThen {
			t.Errorf("%s with single kernel %s: end of batch on %s, want %s", b, active.single, then, wantThen)
		}
		if then == batchSHANIx2 && !pathAvailable(pathSHANI) {
			t.Errorf("%s: end of batch on %s without SHA-NI", b, then)
		}
	})
}

// TestLaneStateLayout checks laneState against the layout the assembly
// kernels are generated for (_asm/gen.go: hBufSize, ptrOff, nextOff,
// cntOff, niOff), and that rows is the first 64-byte boundary of hbuf with
// all its 512 bytes inside hbuf, wherever st is.
func TestLaneStateLayout(t *testing.T) {
	var st laneState
	// The offsets are those the generated kernels read: amd64's, with
	// 8-byte pointers and ints. Elsewhere no kernel reads laneState.
	offsets := []struct {
		name      string
		got, want uintptr
	}{
		{"hbuf", unsafe.Offsetof(st.hbuf), 0},
		{"ptr", unsafe.Offsetof(st.ptr), 8*64 + 64},
		{"next", unsafe.Offsetof(st.next), 8*64 + 64 + 16*8},
		{"cnt", unsafe.Offsetof(st.cnt), 8*64 + 64 + 2*16*8},
		{"ni", unsafe.Offsetof(st.ni), 8*64 + 64 + 3*16*8},
	}
	if runtime.GOARCH != "amd64" {
		offsets = nil
	}
	for _, f := range offsets {
		if f.got != f.want {
			t.Errorf("laneState.%s at offset %d, want %d (_asm/gen.go)", f.name, f.got, f.want)
		}
	}
	// laneStates at 8k bytes into an object, k = 0..7, to meet several
	// offsets from a 64-byte boundary (laneState's size is a multiple of
	// 64, so an array of them would not).
	for _, st := range []*laneState{
		padded[[0]uint64](), padded[[1]uint64](), padded[[2]uint64](), padded[[3]uint64](),
		padded[[4]uint64](), padded[[5]uint64](), padded[[6]uint64](), padded[[7]uint64](),
	} {
		base := uintptr(unsafe.Pointer(&st.hbuf))
		r := uintptr(unsafe.Pointer(st.rows()))
		if r%64 != 0 || r < base || r-base >= 64 || r+512 > base+unsafe.Sizeof(st.hbuf) {
			t.Errorf("st at %#x: rows at %#x, want the first 64-byte boundary with 512 bytes inside hbuf", base, r)
		}
	}
}

// padded returns a laneState that sits after a P in a new object.
func padded[P any]() *laneState {
	return &new(struct {
		p  P
		st laneState
	}).st
}

// TestGroupKey checks the key that orders messages by length: the block
// count itself below groupExact blocks, never falling as messages grow,
// and always below groupKeys.
func TestGroupKey(t *testing.T) {
	prev := groupKey(0)
	for n := 0; n < 1<<22; n += 1 + n/64 {
		key := groupKey(n)
		if blocks := (n+8)/BlockSize + 1; blocks < groupExact && int(key) != blocks {
			t.Fatalf("groupKey(%d) = %d, want its block count %d", n, key, blocks)
		}
		if key < prev || int(key) >= groupKeys {
			t.Fatalf("groupKey(%d) = %d after %d (groupKeys %d)", n, key, prev, groupKeys)
		}
		prev = key
	}
	if k := groupKey(math.MaxInt - 8); int(k) >= groupKeys || k < prev {
		t.Errorf("groupKey(MaxInt-8) = %d, want %d to %d", k, prev, groupKeys-1)
	}
}
