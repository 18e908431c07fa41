// Package boundedread reads a whole input under a size bound, holding no
// more than the bound while it does.
//
// Rejecting an oversized input should cost about the bound, not a multiple
// of it. io.ReadAll grows its buffer by doubling, so an input just past a
// 256 MiB bound can pass through buffers of 128, 256 and 512 MiB, with the
// old one still live while the new one fills. ReadAll here instead:
//
//   - rejects a regular file whose size is past the bound before reading
//     a byte of it, and reads a smaller one into a buffer of its size;
//   - reads anything else (a pipe, a socket, a file whose size it cannot
//     learn) into a list of chunks, never more than limit+1 bytes in all,
//     and joins them into one buffer of the exact size only at the end.
//
// So an input that is rejected costs at most the bound plus one chunk
// (ChunkMax) of memory, and one that is accepted at most twice its size,
// for the moment the chunks are joined.
//
// ReadFile reads a named file of a Kind (a key, a policy, a summary of
// package archive) under the bound of its kind, and refuses a file of a
// kind that must be regular that is not, without blocking in its open;
// the command and package archive share it.
package boundedread

import (
	"errors"
	"io"
	"io/fs"
)

// ErrTooLarge is returned when the input is longer than the bound.
var ErrTooLarge = errors.New("boundedread: input longer than the bound")

// The chunk sizes: the first chunk is ChunkMin bytes and each next one twice
// the last, up to ChunkMax.
const (
	ChunkMin = 64 << 10
	ChunkMax = 4 << 20
)

// statter is implemented by *os.File.
type statter interface {
	Stat() (fs.FileInfo, error)
}

// ReadAll reads r to its end and returns what it read, appended to dst[:0]
// (dst's memory is reused when it is large enough; a buffer ReadAll
// returned is, for an input no longer than the one it holds). It returns ErrTooLarge as
// soon as more than limit bytes have been read, without reading further,
// and at once, reading nothing, for a regular file that is already longer
// than limit. Any other error from r is returned as it is. limit must not
// be negative.
func ReadAll(dst []byte, r io.Reader, limit int) ([]byte, error) {
	dst = dst[:0]
	if limit < 0 {
		limit = 0
	}
	if s, ok := r.(statter); ok {
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			switch size := fi.Size(); {
			case size > int64(limit):
				return dst, ErrTooLarge
			case int64(cap(dst)) <= size:
				// One byte more than the size, so that the read that
				// finds the end does not need a chunk.
				dst = make([]byte, 0, int(size)+1)
			}
		}
	}
	// Fill dst's own capacity first; only input beyond it goes to chunks.
	n, err := fill(dst[:cap(dst)], r, limit+1)
	dst = dst[:n]
	if err != nil || n < cap(dst) {
		return finish(dst, nil, n, limit, err)
	}
	var chunks [][]byte
	total := n
	size := ChunkMin
	for {
		room := limit + 1 - total
		if room <= 0 {
			return dst[:0], ErrTooLarge
		}
		chunk := make([]byte, min(size, room))
		size = min(2*size, ChunkMax)
		k, err := fill(chunk, r, len(chunk))
		total += k
		chunks = append(chunks, chunk[:k])
		if err != nil || k < len(chunk) {
			return finish(dst, chunks, total, limit, err)
		}
	}
}

// fill reads from r into b until b is full, r ends or fails, or want bytes
// have been read (want may be less than len(b)). It reports io.EOF as a
// short count with a nil error. A reader that keeps returning no bytes and
// no error gets io.ErrNoProgress after maxEmptyReads calls, as bufio does.
func fill(b []byte, r io.Reader, want int) (int, error) {
	b = b[:min(len(b), want)]
	n, empty := 0, 0
	for n < len(b) {
		k, err := r.Read(b[n:])
		n += k
		switch {
		case err == io.EOF:
			return n, nil
		case err != nil:
			return n, err
		case k > 0:
			empty = 0
		default:
			if empty++; empty >= maxEmptyReads {
				return n, io.ErrNoProgress
			}
		}
	}
	return n, nil
}

const maxEmptyReads = 100

// finish ends ReadAll: an error is returned as it is, an input past the
// bound is ErrTooLarge, and otherwise the chunks are joined after dst. The
// joined buffer has one byte to spare, so that a caller that passes it
// back as dst (as a loop over inputs does) reads an input of the same size
// into it without a chunk; and an input that filled dst exactly (its
// chunk found only the end) is dst itself, not a copy.
func finish(dst []byte, chunks [][]byte, total, limit int, err error) ([]byte, error) {
	switch {
	case err != nil:
		return dst[:0], err
	case total > limit:
		return dst[:0], ErrTooLarge
	case total == len(dst):
		return dst, nil
	}
	out := make([]byte, len(dst), total+1)
	copy(out, dst)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil // let each go as soon as it is copied
	}
	return out, nil
}
