package hashing

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"flag"
	"hash"
	"io"
	"strings"
	"testing"
)

var bigFlag = flag.Int("hashing.big", 0, "largest message size in MiB for the long tests (0: 4, or 1 with -short)")

func bigSize() int {
	if *bigFlag > 0 {
		return *bigFlag << 20
	}
	if testing.Short() {
		return 1 << 20
	}
	return 4 << 20
}

// FIPS 180-4 examples (NIST CSRC "SHA256.pdf" example values), plus the
// empty message.
var fipsVectors = []struct {
	name string
	in   func() []byte
	want string
}{
	{"empty", func() []byte { return nil },
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	{"abc", func() []byte { return []byte("abc") },
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	{"448-bit", func() []byte { return []byte("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") },
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	{"million-a", func() []byte { return bytes.Repeat([]byte("a"), 1000000) },
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
}

func TestFIPSVectors(t *testing.T) {
	for _, v := range fipsVectors {
		in := v.in()
		t.Run(v.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				if got := hex.EncodeToString(sumOf(Sum256(in))); got != v.want {
					t.Errorf("%s: Sum256 = %s, want %s", v.name, got, v.want)
				}
				h := New()
				h.Write(in)
				if got := hex.EncodeToString(h.Sum(nil)); got != v.want {
					t.Errorf("%s: New().Sum = %s, want %s", v.name, got, v.want)
				}
				out := make([]Digest, 3)
				SumMany([][]byte{in, in, []byte("x")}, out)
				if got := hex.EncodeToString(out[1][:]); got != v.want {
					t.Errorf("%s: SumMany = %s, want %s", v.name, got, v.want)
				}
			})
		})
	}
}

func sumOf(d [Size]byte) []byte { return d[:] }

// TestBlockLikeGeneric compares each path's block function (through the
// dispatcher) with blockGeneric on random chaining values and inputs,
// including lengths past the 64 KiB chunk size.
func TestBlockLikeGeneric(t *testing.T) {
	r := newRand(t)
	forEachImpl(t, func(t *testing.T) {
		for range 200 {
			var h0 [8]uint32
			for i := range h0 {
				h0[i] = r.Uint32()
			}
			nb := r.IntN(20)
			if r.IntN(50) == 0 {
				nb = maxAsmBlocks + r.IntN(3*maxAsmBlocks)
			}
			p := randBytes(r, nb*BlockSize+1)[1:] // unaligned
			want, got := h0, h0
			blockGeneric(&want, p)
			block(&got, p)
			if got != want {
				t.Fatalf("%d blocks: got %08x, want %08x", nb, got, want)
			}
		}
	})
}

// TestSum256Random compares every path with crypto/sha256 on random
// lengths 0..10,000 at random offsets, on every length 0..300, and on a few
// MiB.
func TestSum256Random(t *testing.T) {
	r := newRand(t)
	buf := randBytes(r, bigSize()+64)
	forEachImpl(t, func(t *testing.T) {
		check := func(p []byte) {
			t.Helper()
			if got, want := Sum256(p), sha256.Sum256(p); got != want {
				t.Fatalf("len %d: got %x, want %x", len(p), got, want)
			}
		}
		for n := 0; n <= 300; n++ {
			check(buf[n%7 : n%7+n])
		}
		for range 300 {
			n, off := r.IntN(10001), r.IntN(64)
			check(buf[off : off+n])
		}
		check(buf[3 : 3+bigSize()])
		check(buf[:bigSize()-1])
	})
}

// TestHashRandomSplits writes random messages in random pieces and
// compares every intermediate Sum with crypto/sha256.
func TestHashRandomSplits(t *testing.T) {
	r := newRand(t)
	forEachImpl(t, func(t *testing.T) {
		for range 50 {
			msg := randBytes(r, r.IntN(5000))
			ours, ref := New(), sha256.New()
			for p := msg; len(p) > 0; {
				n := min(len(p), r.IntN(200))
				if r.IntN(10) == 0 {
					n = min(len(p), r.IntN(3000))
				}
				ours.Write(p[:n])
				ref.Write(p[:n])
				p = p[n:]
				if r.IntN(3) == 0 {
					if got, want := ours.Sum(nil), ref.Sum(nil); !bytes.Equal(got, want) {
						t.Fatalf("mid-stream Sum after %d bytes: got %x, want %x", len(msg)-len(p), got, want)
					}
				}
			}
			if got, want := ours.Sum([]byte("prefix")), ref.Sum([]byte("prefix")); !bytes.Equal(got, want) {
				t.Fatalf("Sum: got %x, want %x", got, want)
			}
		}
	})
}

// TestHashContract checks the hash.Hash behaviour crypto/sha256 documents:
// Sum appends and does not change the state, Reset, Size, BlockSize, Clone
// independence, and zero allocations.
func TestHashContract(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		h := New()
		if h.Size() != Size || h.BlockSize() != BlockSize || Size != sha256.Size || BlockSize != sha256.BlockSize {
			t.Fatalf("Size/BlockSize = %d/%d", h.Size(), h.BlockSize())
		}
		io.WriteString(h, "hello, ")
		s1 := h.Sum(nil)
		s2 := h.Sum(nil)
		if !bytes.Equal(s1, s2) {
			t.Fatal("Sum changed the state")
		}
		if want := sha256.Sum256([]byte("hello, ")); !bytes.Equal(s1, want[:]) {
			t.Fatalf("Sum = %x, want %x", s1, want)
		}
		c, err := h.(hash.Cloner).Clone()
		if err != nil {
			t.Fatal(err)
		}
		hc := c.(hash.Hash)
		io.WriteString(h, "world")
		io.WriteString(hc, "gopher")
		if want := sha256.Sum256([]byte("hello, world")); !bytes.Equal(h.Sum(nil), want[:]) {
			t.Fatal("original after Clone")
		}
		if want := sha256.Sum256([]byte("hello, gopher")); !bytes.Equal(hc.Sum(nil), want[:]) {
			t.Fatal("clone")
		}
		h.Reset()
		if want := sha256.Sum256(nil); !bytes.Equal(h.Sum(nil), want[:]) {
			t.Fatal("Reset")
		}
		prefix := []byte("xyz")
		if got := h.Sum(prefix); !bytes.Equal(got[:3], prefix) || len(got) != 3+Size {
			t.Fatal("Sum does not append")
		}
	})
}

func TestAllocations(t *testing.T) {
	msg := []byte(strings.Repeat("allocation test ", 100))
	forEachImpl(t, func(t *testing.T) {
		h := New()
		out := make([]byte, 0, Size)
		if n := testing.AllocsPerRun(10, func() {
			h.Reset()
			h.Write(msg)
			h.Write(msg[:5])
			out = h.Sum(out[:0])
		}); n > 0 {
			t.Errorf("hash.Hash: %v allocs, want 0", n)
		}
		if n := testing.AllocsPerRun(10, func() { Sum256(msg) }); n > 0 {
			t.Errorf("Sum256: %v allocs, want 0", n)
		}
		var st [marshaledSize]byte
		if n := testing.AllocsPerRun(10, func() {
			h.(encoding.BinaryAppender).AppendBinary(st[:0])
		}); n > 0 {
			t.Errorf("AppendBinary: %v allocs, want 0", n)
		}
		msgs := [][]byte{msg, msg[:3], msg[7:900], nil, msg}
		digests := make([]Digest, len(msgs))
		if n := testing.AllocsPerRun(10, func() { SumMany(msgs, digests) }); n > 0 {
			t.Errorf("SumMany: %v allocs, want 0", n)
		}
		var d Digest
		text := make([]byte, 0, DigestTextLen)
		if n := testing.AllocsPerRun(10, func() { text = d.AppendTo(text[:0]) }); n > 0 {
			t.Errorf("Digest.AppendTo: %v allocs, want 0", n)
		}
	})
}

// TestMarshalInterop moves half-written states from crypto/sha256 to this
// package and back, at every buffer fill level, and checks the sums.
func TestMarshalInterop(t *testing.T) {
	r := newRand(t)
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 55, 56, 63, 64, 65, 100, 128, 1000, 4097} {
			first, second := randBytes(r, n), randBytes(r, r.IntN(300))
			whole := append(append([]byte(nil), first...), second...)
			want := sha256.Sum256(whole)

			// stdlib -> ours
			ref := sha256.New()
			ref.Write(first)
			state, err := ref.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			ours := New()
			if err := ours.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
				t.Fatalf("n=%d: UnmarshalBinary(stdlib state): %v", n, err)
			}
			ours.Write(second)
			if got := ours.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("n=%d: stdlib->ours: got %x, want %x", n, got, want)
			}

			// ours -> stdlib, with identical bytes on the wire
			ours = New()
			ours.Write(first)
			ourState, err := ours.(encoding.BinaryAppender).AppendBinary([]byte("pre"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ourState[3:], state) {
				t.Fatalf("n=%d: state differs from crypto/sha256's:\n got %x\nwant %x", n, ourState[3:], state)
			}
			m, _ := ours.(encoding.BinaryMarshaler).MarshalBinary()
			if !bytes.Equal(m, state) {
				t.Fatalf("n=%d: MarshalBinary differs from AppendBinary", n)
			}
			ref = sha256.New()
			if err := ref.(encoding.BinaryUnmarshaler).UnmarshalBinary(ourState[3:]); err != nil {
				t.Fatalf("n=%d: stdlib UnmarshalBinary(our state): %v", n, err)
			}
			ref.Write(second)
			if got := ref.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("n=%d: ours->stdlib: got %x, want %x", n, got, want)
			}
		}
	})
}

func TestUnmarshalErrors(t *testing.T) {
	good, _ := New().(encoding.BinaryMarshaler).MarshalBinary()
	sha224, _ := sha256.New224().(encoding.BinaryMarshaler).MarshalBinary()
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "identifier"},
		{"sha224 state", sha224, "identifier"},
		{"short", good[:len(good)-1], "size"},
		{"long", append(good, 0), "size"},
	} {
		h := New()
		h.Write([]byte("keep"))
		before := h.Sum(nil)
		err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "hashing: ") {
			t.Errorf("%s: err = %v, want one about %q", tc.name, err, tc.want)
		}
		if !bytes.Equal(h.Sum(nil), before) {
			t.Errorf("%s: state changed by a failed UnmarshalBinary", tc.name)
		}
	}
}

// TestNewAllocations holds the allocation figures that New's doc comment
// states for the usual pattern inside a function, next to those of
// crypto/sha256.New: a fresh state per message, a local array given to
// Sum, or Sum(nil). New returns one of two concrete types, so its calls are
// not devirtualized and its state and buf escape; crypto/sha256.New's do
// not. If this test fails because New allocates less, update the doc
// comment (and the README's drop-in paragraph) with the new figures.
func TestNewAllocations(t *testing.T) {
	msg := []byte(strings.Repeat("allocation test ", 10))
	forEachImpl(t, func(t *testing.T) {
		for _, tc := range []struct {
			name string
			f    func([]byte)
			want float64
		}{
			{"New/Sum(buf[:0])", sumNewArray, 2},
			{"New/Sum(nil)", sumNewNil, 2},
			{"crypto/sha256.New/Sum(buf[:0])", sumStdlibArray, 0},
			{"crypto/sha256.New/Sum(nil)", sumStdlibNil, 1},
		} {
			if n := testing.AllocsPerRun(20, func() { tc.f(msg) }); n != tc.want {
				t.Errorf("%s: %v allocs, want %v as New's doc comment says", tc.name, n, tc.want)
			}
		}
	})
}

//go:noinline
func sumNewArray(msg []byte) {
	var buf [Size]byte
	h := New()
	h.Write(msg)
	h.Sum(buf[:0])
}

//go:noinline
func sumNewNil(msg []byte) {
	h := New()
	h.Write(msg)
	h.Sum(nil)
}

//go:noinline
func sumStdlibArray(msg []byte) {
	var buf [Size]byte
	h := sha256.New()
	h.Write(msg)
	h.Sum(buf[:0])
}

//go:noinline
func sumStdlibNil(msg []byte) {
	h := sha256.New()
	h.Write(msg)
	h.Sum(nil)
}
