package hashing

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

// FuzzSum256Impls compares every available path, one-shot and streaming
// with a split write, with crypto/sha256 on arbitrary input.
func FuzzSum256Impls(f *testing.F) {
	for _, v := range fipsVectors[:3] {
		f.Add(v.in(), uint16(1))
	}
	f.Add(bytes.Repeat([]byte{0xa5}, 200), uint16(64))
	f.Add(make([]byte, 56), uint16(55))
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		want := sha256.Sum256(data)
		cut := 0
		if len(data) > 0 {
			cut = int(split) % (len(data) + 1)
		}
		for _, name := range paths.Available() {
			restore := mustSelect(t, name)
			got := Sum256(data)
			h := New()
			h.Write(data[:cut])
			mid := h.Sum(nil)
			h.Write(data[cut:])
			streamed := h.Sum(nil)
			var many [2]Digest
			SumMany([][]byte{data, data[cut:]}, many[:])
			restore()
			if got != want || !bytes.Equal(streamed, want[:]) || many[0] != want {
				t.Fatalf("%s: len %d: Sum256 %x, streamed %x, SumMany %x; want %x", name, len(data), got, streamed, many[0], want)
			}
			if w := sha256.Sum256(data[:cut]); !bytes.Equal(mid, w[:]) {
				t.Fatalf("%s: mid-stream Sum at %d", name, cut)
			}
			if w := sha256.Sum256(data[cut:]); many[1] != w {
				t.Fatalf("%s: SumMany second message", name)
			}
		}
	})
}

// FuzzSum224Impls compares Sum224 and New224, with a split write and a
// Sum at the split, with crypto/sha256 on every available path.
func FuzzSum224Impls(f *testing.F) {
	for _, v := range fipsVectors[:3] {
		f.Add(v.in(), uint16(1))
	}
	f.Add(bytes.Repeat([]byte{0x5a}, 200), uint16(64))
	f.Add(make([]byte, 120), uint16(56))
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		want := sha256.Sum224(data)
		cut := 0
		if len(data) > 0 {
			cut = int(split) % (len(data) + 1)
		}
		wantMid := sha256.Sum224(data[:cut])
		for _, name := range paths.Available() {
			restore := mustSelect(t, name)
			got := Sum224(data)
			h := New224()
			h.Write(data[:cut])
			mid := h.Sum(nil)
			h.Write(data[cut:])
			streamed := h.Sum(nil)
			restore()
			if got != want || !bytes.Equal(streamed, want[:]) || !bytes.Equal(mid, wantMid[:]) {
				t.Fatalf("%s: len %d cut %d: Sum224 %x, streamed %x, mid %x; want %x, mid %x", name, len(data), cut, got, streamed, mid, want, wantMid)
			}
		}
	})
}

// Bounds of FuzzSumManySplits, so that one call hashes at most a few
// hundred KiB on each path whatever the input: data is cut at
// splitsMaxData bytes, and the messages stop at splitsMaxMsgs or once
// they hold splitsMaxTotal bytes. Lanes, tails and every block-count
// boundary show well within them.
const (
	splitsMaxData  = 16 << 10
	splitsMaxMsgs  = 2000
	splitsMaxTotal = 128 << 10
)

// FuzzSumManySplits cuts data into messages at the points given by cuts
// (two bytes each, taken as message lengths) and compares SumMany and
// Batcher with crypto/sha256 on every available path. A length byte pair
// with the high bit set repeats the message, so that long and short
// messages share lanes. data, the number of messages and their total
// length are bounded (splitsMaxData and the others).
func FuzzSumManySplits(f *testing.F) {
	f.Add(bytes.Repeat([]byte("abc"), 100), []byte{0, 0, 0, 1, 0, 55, 0, 56, 0, 64, 0, 65, 0, 119, 0, 120})
	f.Add(make([]byte, 5000), []byte{0x13, 0x88, 0, 3, 0x80, 0x40})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		data = data[:min(len(data), splitsMaxData)]
		var msgs [][]byte
		rest, total := data, 0
		for i := 0; i+1 < len(cuts) && len(msgs) < splitsMaxMsgs && total < splitsMaxTotal; i += 2 {
			v := binary.BigEndian.Uint16(cuts[i:])
			n := int(v&0x7fff) % (len(rest) + 1)
			msgs = append(msgs, rest[:n])
			total += n
			if v&0x8000 != 0 {
				for range 3 {
					msgs = append(msgs, data)
				}
				total += 3 * len(data)
			} else {
				rest = rest[n:]
			}
		}
		msgs = append(msgs, rest)
		want := make([]Digest, len(msgs))
		for i, m := range msgs {
			want[i] = sha256.Sum256(m)
		}
		got := make([]Digest, len(msgs))
		for _, name := range paths.Available() {
			restore := mustSelect(t, name)
			clear(got)
			SumMany(msgs, got)
			viaBatcher := make([]Digest, len(msgs))
			b := NewBatcher(viaBatcher)
			for i := len(msgs) - 1; i >= 0; i-- {
				b.Add(msgs[i], i)
			}
			b.Flush()
			restore()
			for i := range want {
				if got[i] != want[i] || viaBatcher[i] != want[i] {
					t.Fatalf("%s: message %d of %d (len %d): SumMany %v, Batcher %v, want %v", name, i, len(msgs), len(msgs[i]), got[i], viaBatcher[i], want[i])
				}
			}
		}
	})
}
