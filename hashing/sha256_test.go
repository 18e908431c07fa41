package hashing

import (
	"github.com/bbdigest/bbdigest/internal/race"

	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"flag"
	"hash"
	"io"
	"math/rand/v2"
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

// FIPS 180-4 examples (NIST CSRC "SHA256.pdf" and "SHA224.pdf" example
// values), plus the empty message.
var fipsVectors = []struct {
	name    string
	in      func() []byte
	want    string // SHA-256
	want224 string // SHA-224
}{
	{"empty", func() []byte { return nil },
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"},
	{"abc", func() []byte { return []byte("abc") },
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"},
	{"448-bit", func() []byte { return []byte("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") },
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
		"75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525"},
	{"million-a", func() []byte { return bytes.Repeat([]byte("a"), 1000000) },
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
		"20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67"},
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
				s224 := Sum224(in)
				if got := hex.EncodeToString(s224[:]); got != v.want224 {
					t.Errorf("%s: Sum224 = %s, want %s", v.name, got, v.want224)
				}
				h = New224()
				h.Write(in)
				if got := hex.EncodeToString(h.Sum(nil)); got != v.want224 {
					t.Errorf("%s: New224().Sum = %s, want %s", v.name, got, v.want224)
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
		eachTestMessage(r, buf, check)
	})
}

// eachTestMessage calls check on slices of buf (bigSize()+64 random bytes):
// every length 0..300 at shifting offsets, 300 random lengths up to 10,000
// at random offsets, and two of a few MiB.
func eachTestMessage(r *rand.Rand, buf []byte, check func(p []byte)) {
	for n := 0; n <= 300; n++ {
		check(buf[n%7 : n%7+n])
	}
	for range 300 {
		n, off := r.IntN(10001), r.IntN(64)
		check(buf[off : off+n])
	}
	check(buf[3 : 3+bigSize()])
	check(buf[:bigSize()-1])
}

// hashKinds are the two streaming hashes, each with its crypto/sha256
// counterpart: every hash.Hash test runs for both.
var hashKinds = []struct {
	name            string
	size            int
	magic           string
	newHash, newRef func() hash.Hash
	ref             func([]byte) []byte // crypto/sha256's one-shot sum
}{
	{"sha256", Size, magic256, New, sha256.New, func(p []byte) []byte { s := sha256.Sum256(p); return s[:] }},
	{"sha224", Size224, magic224, New224, sha256.New224, func(p []byte) []byte { s := sha256.Sum224(p); return s[:] }},
}

// TestSum224Random compares Sum224, and New224 given the whole message in
// one Write, with crypto/sha256 on every path: every length 0..300 at
// shifting offsets, random lengths 0..10,000 at random offsets, and a few
// MiB.
func TestSum224Random(t *testing.T) {
	r := newRand(t)
	buf := randBytes(r, bigSize()+64)
	forEachImpl(t, func(t *testing.T) {
		h := New224()
		check := func(p []byte) {
			t.Helper()
			want := sha256.Sum224(p)
			if got := Sum224(p); got != want {
				t.Fatalf("len %d: Sum224 = %x, want %x", len(p), got, want)
			}
			h.Reset()
			h.Write(p)
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("len %d: New224 = %x, want %x", len(p), got, want)
			}
		}
		eachTestMessage(r, buf, check)
		check(buf[:maxAsmSize+BlockSize+5])
	})
}

// TestHashRandomSplits writes random messages in random pieces and
// compares every intermediate Sum with crypto/sha256.
func TestHashRandomSplits(t *testing.T) {
	r := newRand(t)
	for _, kind := range hashKinds {
		t.Run("kind="+kind.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				for range 50 {
					msg := randBytes(r, r.IntN(5000))
					ours, ref := kind.newHash(), kind.newRef()
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
		})
	}
}

// TestHashContract checks the hash.Hash behaviour crypto/sha256 documents:
// Sum appends and does not change the state, Reset, Size, BlockSize, Clone
// independence, and zero allocations.
func TestHashContract(t *testing.T) {
	if Size != sha256.Size || Size224 != sha256.Size224 || BlockSize != sha256.BlockSize {
		t.Fatalf("Size/Size224/BlockSize = %d/%d/%d", Size, Size224, BlockSize)
	}
	for _, kind := range hashKinds {
		t.Run("kind="+kind.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				h := kind.newHash()
				if h.Size() != kind.size || h.BlockSize() != BlockSize {
					t.Fatalf("Size/BlockSize = %d/%d, want %d/%d", h.Size(), h.BlockSize(), kind.size, BlockSize)
				}
				io.WriteString(h, "hello, ")
				s1 := h.Sum(nil)
				s2 := h.Sum(nil)
				if !bytes.Equal(s1, s2) {
					t.Fatal("Sum changed the state")
				}
				if want := kind.ref([]byte("hello, ")); !bytes.Equal(s1, want) {
					t.Fatalf("Sum = %x, want %x", s1, want)
				}
				c, err := h.(hash.Cloner).Clone()
				if err != nil {
					t.Fatal(err)
				}
				hc := c.(hash.Hash)
				if hc.Size() != kind.size {
					t.Fatalf("clone Size = %d, want %d", hc.Size(), kind.size)
				}
				io.WriteString(h, "world")
				io.WriteString(hc, "gopher")
				if want := kind.ref([]byte("hello, world")); !bytes.Equal(h.Sum(nil), want) {
					t.Fatal("original after Clone")
				}
				if want := kind.ref([]byte("hello, gopher")); !bytes.Equal(hc.Sum(nil), want) {
					t.Fatal("clone")
				}
				h.Reset()
				if want := kind.ref(nil); !bytes.Equal(h.Sum(nil), want) {
					t.Fatalf("after Reset: Sum = %x, want %x", h.Sum(nil), want)
				}
				if h.Size() != kind.size {
					t.Fatalf("after Reset: Size = %d, want %d", h.Size(), kind.size)
				}
				prefix := []byte("xyz")
				if got := h.Sum(prefix); !bytes.Equal(got[:3], prefix) || len(got) != 3+kind.size {
					t.Fatal("Sum does not append")
				}
			})
		})
	}
}

func TestAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's instrumentation allocates (crypto/sha256's AppendBinary)")
	}
	msg := []byte(strings.Repeat("allocation test ", 100))
	forEachImpl(t, func(t *testing.T) {
		for _, kind := range hashKinds {
			h := kind.newHash()
			out := make([]byte, 0, Size)
			if n := testing.AllocsPerRun(10, func() {
				h.Reset()
				h.Write(msg)
				h.Write(msg[:5])
				out = h.Sum(out[:0])
			}); n > 0 {
				t.Errorf("%s hash.Hash: %v allocs, want 0", kind.name, n)
			}
			var st [marshaledSize]byte
			if n := testing.AllocsPerRun(10, func() {
				h.(encoding.BinaryAppender).AppendBinary(st[:0])
			}); n > 0 {
				t.Errorf("%s AppendBinary: %v allocs, want 0", kind.name, n)
			}
		}
		if n := testing.AllocsPerRun(10, func() { Sum256(msg) }); n > 0 {
			t.Errorf("Sum256: %v allocs, want 0", n)
		}
		if n := testing.AllocsPerRun(10, func() { Sum224(msg) }); n > 0 {
			t.Errorf("Sum224: %v allocs, want 0", n)
		}
		msgs := [][]byte{msg, msg[:3], msg[7:900], nil, msg}
		digests := make([]Digest, len(msgs))
		if n := testing.AllocsPerRun(10, func() { SumMany(msgs, digests) }); n > 0 {
			t.Errorf("SumMany: %v allocs, want 0", n)
		}
		// A batch long and mixed enough to be sorted by block count, window
		// by window, and to end on two SHA-NI streams where there are.
		mixed := make([][]byte, 2*groupWindow+5)
		for i := range mixed {
			mixed[i] = msg[:(i*397)%len(msg)]
		}
		mixedOut := make([]Digest, len(mixed))
		if n := testing.AllocsPerRun(10, func() { SumMany(mixed, mixedOut) }); n > 0 {
			t.Errorf("SumMany, %d mixed lengths: %v allocs, want 0", len(mixed), n)
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
	for _, kind := range hashKinds {
		t.Run("kind="+kind.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				for _, n := range []int{0, 1, 55, 56, 63, 64, 65, 100, 128, 1000, 4097} {
					first, second := randBytes(r, n), randBytes(r, r.IntN(300))
					whole := append(append([]byte(nil), first...), second...)
					want := kind.ref(whole)

					// stdlib -> ours
					ref := kind.newRef()
					ref.Write(first)
					state, err := ref.(encoding.BinaryMarshaler).MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					if string(state[:4]) != kind.magic {
						t.Fatalf("crypto/sha256 state starts %q, want %q", state[:4], kind.magic)
					}
					ours := kind.newHash()
					if err := ours.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
						t.Fatalf("n=%d: UnmarshalBinary(stdlib state): %v", n, err)
					}
					ours.Write(second)
					if got := ours.Sum(nil); !bytes.Equal(got, want) {
						t.Fatalf("n=%d: stdlib->ours: got %x, want %x", n, got, want)
					}

					// ours -> stdlib, with identical bytes on the wire
					ours = kind.newHash()
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
					ref = kind.newRef()
					if err := ref.(encoding.BinaryUnmarshaler).UnmarshalBinary(ourState[3:]); err != nil {
						t.Fatalf("n=%d: stdlib UnmarshalBinary(our state): %v", n, err)
					}
					ref.Write(second)
					if got := ref.Sum(nil); !bytes.Equal(got, want) {
						t.Fatalf("n=%d: ours->stdlib: got %x, want %x", n, got, want)
					}

					// ours -> ours, into a hash that has already written
					back := kind.newHash()
					back.Write([]byte("overwritten"))
					if err := back.(encoding.BinaryUnmarshaler).UnmarshalBinary(m); err != nil {
						t.Fatalf("n=%d: UnmarshalBinary(own state): %v", n, err)
					}
					back.Write(second)
					if got := back.Sum(nil); !bytes.Equal(got, want) {
						t.Fatalf("n=%d: ours->ours: got %x, want %x", n, got, want)
					}
				}
			})
		})
	}
}

// TestUnmarshalErrors checks that a state is rejected, leaving the hash
// unchanged, when it is empty, of the wrong size, or of the other function
// (a SHA-224 state into a SHA-256 hash and back, from this package or
// crypto/sha256).
func TestUnmarshalErrors(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		state := func(newHash func() hash.Hash) []byte {
			h := newHash()
			h.Write([]byte("some bytes"))
			b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		s256, s224 := state(New), state(New224)
		ref256, ref224 := state(sha256.New), state(sha256.New224)
		for _, tc := range []struct {
			name    string
			newHash func() hash.Hash
			in      []byte
			want    string
		}{
			{"empty", New, nil, "identifier"},
			{"sha224 state", New, s224, "identifier"},
			{"crypto/sha256 sha224 state", New, ref224, "identifier"},
			{"short", New, s256[:len(s256)-1], "size"},
			{"long", New, append(s256, 0), "size"},
			{"224: empty", New224, nil, "identifier"},
			{"224: sha256 state", New224, s256, "identifier"},
			{"224: crypto/sha256 sha256 state", New224, ref256, "identifier"},
			{"224: short", New224, s224[:len(s224)-1], "size"},
			{"224: long", New224, append(s224, 0), "size"},
		} {
			h := tc.newHash()
			h.Write([]byte("keep"))
			before := h.Sum(nil)
			err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "hashing: ") && !strings.HasPrefix(err.Error(), "crypto/sha256: ") {
				t.Errorf("%s: err = %v, want one about %q", tc.name, err, tc.want)
			}
			if !bytes.Equal(h.Sum(nil), before) {
				t.Errorf("%s: state changed by a failed UnmarshalBinary", tc.name)
			}
		}
	})
}

// TestNewAllocations holds the allocation figures that the doc comments
// of New and of the package state for the usual pattern inside a
// function, a fresh state per message with a local array given to Sum or
// with Sum(nil), for New and New224 and for crypto/sha256.New. New returns
// one of two concrete types, so its calls are not devirtualized and its
// state and buf escape; crypto/sha256.New's do not. If this test fails
// because New allocates less, update those doc comments (and the README's
// drop-in paragraph) with the new figures.
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
			{"New224/Sum(buf[:0])", sumNew224Array, 2},
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
func sumNew224Array(msg []byte) {
	var buf [Size224]byte
	h := New224()
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
