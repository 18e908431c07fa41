package hashing

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"errors"
	"hash"
)

// Size is the size of a SHA-256 checksum in bytes, as crypto/sha256.Size.
const Size = 32

// Size224 is the size of a SHA-224 checksum in bytes, as
// crypto/sha256.Size224.
const Size224 = 28

// BlockSize is the block size of SHA-256 and SHA-224 in bytes, as
// crypto/sha256.BlockSize.
const BlockSize = 64

// The marshaled state format is that of crypto/sha256 (see
// crypto/internal/fips140/sha256 sha256.go): the magic "sha\x03" for SHA-256
// or "sha\x02" for SHA-224, the eight chaining words as big-endian uint32s,
// the 64-byte block buffer (bytes past the buffered ones are zero), and the
// total length as a big-endian uint64.
const (
	magic256      = "sha\x03"
	magic224      = "sha\x02"
	marshaledSize = len(magic256) + 8*4 + BlockSize + 8
)

// digest is the streaming SHA-256 or SHA-224 state returned by [New] and
// [New224]. SHA-224 is SHA-256 with another initial hash value and the
// checksum cut to its first 28 bytes (FIPS 180-4, sections 5.3.2 and 6.3).
type digest struct {
	h     [8]uint32
	x     [BlockSize]byte
	nx    int
	len   uint64
	is224 bool
}

// Interfaces that the state returned by New and New224 implements, as
// crypto/sha256's does.
var (
	_ hash.Hash                  = (*digest)(nil)
	_ hash.Cloner                = (*digest)(nil)
	_ encoding.BinaryMarshaler   = (*digest)(nil)
	_ encoding.BinaryAppender    = (*digest)(nil)
	_ encoding.BinaryUnmarshaler = (*digest)(nil)
)

// New returns a new hash.Hash computing the SHA-256 checksum. It is a
// drop-in for crypto/sha256.New (and on CPUs where crypto/sha256 has the
// faster kernel, amd64 with AVX2 but no SHA-NI, it returns
// crypto/sha256.New() itself): the value also implements [hash.Cloner],
// [encoding.BinaryMarshaler], [encoding.BinaryAppender] and
// [encoding.BinaryUnmarshaler], and its marshaled state is byte-for-byte
// the one crypto/sha256 produces and accepts, so a half-written state can
// move between the two. The value is not safe for concurrent use.
//
// Unlike crypto/sha256.New, New allocates. crypto/sha256.New is inlined
// into its caller and always returns the same concrete type, so the
// compiler turns h.Write and h.Sum into direct calls and keeps the state,
// and a buffer passed to Sum, on the caller's stack: inside a function,
// h := sha256.New(); h.Write(b); h.Sum(buf[:0]) with a local array buf
// makes no allocation, and h.Sum(nil) one (the result). New returns one
// of two concrete types, chosen at run time from the CPU (crypto/sha256's
// state where its kernel is used, this package's elsewhere), so the calls
// stay dynamic: the state escapes to the heap, and so does every slice
// passed to Write or Sum. The same pattern makes two allocations (the
// state and buf), and h.Sum(nil) two. A single type on every CPU would
// need this package's state to drive crypto/sha256's kernel, which exports
// no block function: the chaining value would pass in and out through
// crypto/sha256's marshaled state on every call, which costs about as much
// as hashing a block and would slow short messages on the CPUs that use
// that kernel. To hash without allocating, use [Sum256] or [Sum], or keep
// one hash.Hash and Reset it: Write and Sum on it do not allocate.
func New() hash.Hash {
	if active.single == pathStdlib {
		return sha256.New()
	}
	d := new(digest)
	d.Reset()
	return d
}

// New224 returns a new hash.Hash computing the SHA-224 checksum, as
// crypto/sha256.New224 does, with everything said of [New]: on the CPUs
// where New returns crypto/sha256.New(), New224 returns
// crypto/sha256.New224(); elsewhere its value has the same methods as
// New's, with [Size224] for Size, and marshals its state in crypto/sha256's
// SHA-224 format (magic "sha\x02"), which crypto/sha256 accepts and
// produces. It allocates as New does. The value is not safe for concurrent
// use.
func New224() hash.Hash {
	if active.single == pathStdlib {
		return sha256.New224()
	}
	d := &digest{is224: true}
	d.Reset()
	return d
}

// Reset resets the state to that of a new hash.
func (d *digest) Reset() {
	d.h = iv
	if d.is224 {
		d.h = iv224
	}
	d.nx = 0
	d.len = 0
}

// Size returns [Size], or [Size224] for SHA-224.
func (d *digest) Size() int {
	if d.is224 {
		return Size224
	}
	return Size
}

// BlockSize returns [BlockSize].
func (d *digest) BlockSize() int { return BlockSize }

// Write adds p to the running hash. It never returns an error.
func (d *digest) Write(p []byte) (int, error) {
	nn := len(p)
	d.len += uint64(nn)
	if d.nx > 0 {
		n := copy(d.x[d.nx:], p)
		d.nx += n
		if d.nx == BlockSize {
			block(&d.h, d.x[:])
			d.nx = 0
		}
		p = p[n:]
	}
	if len(p) >= BlockSize {
		n := len(p) &^ (BlockSize - 1)
		block(&d.h, p[:n])
		p = p[n:]
	}
	if len(p) > 0 {
		d.nx = copy(d.x[:], p)
	}
	return nn, nil
}

// Sum appends the checksum of the data written so far to b and returns the
// result. It does not change the state, so writing can go on.
func (d *digest) Sum(b []byte) []byte {
	s := finish(&d.h, d.x[:d.nx], d.len)
	if d.is224 {
		return append(b, s[:Size224]...)
	}
	return append(b, s[:]...)
}

// Clone returns an independent copy of the state.
func (d *digest) Clone() (hash.Cloner, error) {
	r := *d
	return &r, nil
}

// MarshalBinary returns the state in crypto/sha256's format.
func (d *digest) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, marshaledSize))
}

// AppendBinary appends the state in crypto/sha256's format to b.
func (d *digest) AppendBinary(b []byte) ([]byte, error) {
	if d.is224 {
		b = append(b, magic224...)
	} else {
		b = append(b, magic256...)
	}
	for _, v := range d.h {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	b = append(b, d.x[:d.nx]...)
	var zero [BlockSize]byte
	b = append(b, zero[:BlockSize-d.nx]...)
	return binary.BigEndian.AppendUint64(b, d.len), nil
}

// UnmarshalBinary restores a state written by MarshalBinary here or by
// crypto/sha256, for the same function: a SHA-224 state into a SHA-224
// hash, a SHA-256 state into a SHA-256 hash. On error the state is
// unchanged.
func (d *digest) UnmarshalBinary(b []byte) error {
	magic := magic256
	if d.is224 {
		magic = magic224
	}
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return errors.New("hashing: invalid hash state identifier")
	}
	if len(b) != marshaledSize {
		return errors.New("hashing: invalid hash state size")
	}
	b = b[len(magic256):]
	for i := range d.h {
		d.h[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	b = b[32:]
	copy(d.x[:], b[:BlockSize])
	d.len = binary.BigEndian.Uint64(b[BlockSize:])
	d.nx = int(d.len % BlockSize)
	return nil
}

// finish returns the checksum of a message whose whole blocks are already
// compressed into *h, with tail (shorter than a block) still to go and
// total length n. *h is not modified.
func finish(h *[8]uint32, tail []byte, n uint64) [Size]byte {
	var buf [2 * BlockSize]byte
	copy(buf[:], tail)
	buf[len(tail)] = 0x80
	end := BlockSize
	if len(tail) >= BlockSize-8 {
		end = 2 * BlockSize
	}
	binary.BigEndian.PutUint64(buf[end-8:end], n<<3)
	hh := *h
	block(&hh, buf[:end])
	var out [Size]byte
	for i, v := range hh {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

// Sum256 returns the SHA-256 checksum of data, as crypto/sha256.Sum256.
// It does not allocate.
func Sum256(data []byte) [Size]byte {
	if active.single == pathStdlib {
		return sha256.Sum256(data)
	}
	h := iv
	n := len(data) &^ (BlockSize - 1)
	if n > 0 {
		block(&h, data[:n])
	}
	return finish(&h, data[n:], uint64(len(data)))
}

// Sum224 returns the SHA-224 checksum of data, as crypto/sha256.Sum224,
// through the same dispatcher as [Sum256]. It does not allocate.
func Sum224(data []byte) [Size224]byte {
	if active.single == pathStdlib {
		return sha256.Sum224(data)
	}
	h := iv224
	n := len(data) &^ (BlockSize - 1)
	if n > 0 {
		block(&h, data[:n])
	}
	s := finish(&h, data[n:], uint64(len(data)))
	return [Size224]byte(s[:Size224])
}

// Sum returns the SHA-256 [Digest] of data. It is [Sum256] with the result
// typed as a Digest, and does not allocate.
func Sum(data []byte) Digest {
	return Sum256(data)
}
