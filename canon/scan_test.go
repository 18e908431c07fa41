package canon

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestSpecialBytes checks the SWAR test against a byte loop: the lowest
// flagged byte is the first special byte, on random words built from
// interesting byte values.
func TestSpecialBytes(t *testing.T) {
	vals := []byte{0, 1, 0x1f, 0x20, 0x21, '"', 0x23, '\\', 0x5b, 0x5d, 'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 1_000_000; n++ {
		var w [8]byte
		for i := range w {
			w[i] = vals[r.IntN(len(vals))]
			if r.IntN(4) == 0 {
				w[i] = byte(r.Uint32())
			}
		}
		x := uint64(0)
		for i := 7; i >= 0; i-- {
			x = x<<8 | uint64(w[i])
		}
		want := -1
		for i, c := range w {
			if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				want = i
				break
			}
		}
		m := specialBytes(x)
		got := -1
		if m != 0 {
			for i := 0; i < 8; i++ {
				if m>>(8*i+7)&1 != 0 {
					got = i
					break
				}
			}
		}
		if got != want {
			t.Fatalf("%q: first special byte %d, want %d", w, got, want)
		}
	}
}

// randomStringInput returns bytes that start with a quote and continue with
// a mix of plain ASCII, stop bytes, valid and ill-formed UTF-8, so that
// every branch of both string scanners is reached.
func randomStringInput(r *rand.Rand) []byte {
	pieces := []string{
		"a", "abcdefgh", "0123456789abcdef", " ", "\"", "\\", "\\n", "\x00", "\x1f", "\x7f",
		"é", "東京", "😀", "\u2028", "\ufeff",
		"\x80", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe6\x9d", "\xf0\x9f\x98", "\xff",
	}
	b := []byte{'"'}
	n := r.IntN(80)
	for range n {
		p := pieces[r.IntN(len(pieces))]
		if r.IntN(3) == 0 {
			p = pieces[r.IntN(4)] // mostly plain
		}
		b = append(b, p...)
	}
	return b
}

// TestScanPlainString compares the scanner in use (the SSE2 one on amd64)
// with the generic scanner at every offset of random inputs: both must stop
// at the same offset with the same verdict.
func TestScanPlainString(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 200_000; n++ {
		b := randomStringInput(r)
		// Place the string at a random alignment, with or without input
		// following it.
		pad := make([]byte, r.IntN(16))
		src := append(pad, b...)
		if r.IntN(2) == 0 {
			src = append(src, `,"next":1}`...)
		}
		pos := len(pad)
		gotEnd, gotEsc := scanPlainString(src, pos)
		wantEnd, wantEsc := scanPlainGeneric(src, pos)
		if gotEnd != wantEnd || gotEsc != wantEsc {
			t.Fatalf("%q at %d: scanPlainString = %d, %v; scanPlainGeneric = %d, %v", src, pos, gotEnd, gotEsc, wantEnd, wantEsc)
		}
	}
}

// TestIndexStop checks the vector block scan (where there is one) against a
// byte loop on random inputs.
func TestIndexStop(t *testing.T) {
	if !haveIndexStop {
		t.Skip("no vector string scanner in this build")
	}
	vals := []byte{0, 1, 0x1f, 0x20, 0x21, '"', 0x23, '\\', 0x5b, 'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 200_000; n++ {
		s := make([]byte, r.IntN(100))
		for i := range s {
			s[i] = 'a' + byte(r.IntN(26))
			if r.IntN(20) == 0 {
				s[i] = vals[r.IntN(len(vals))]
			}
		}
		off := r.IntN(len(s) + 1)
		s = s[off:]
		wantIdx, wantHigh := len(s)&^15, false
		for i, c := range s[:len(s)&^15] {
			if c == '"' || c == '\\' || c < 0x20 {
				wantIdx = i
				break
			}
		}
		for _, c := range s[:wantIdx] {
			wantHigh = wantHigh || c >= 0x80
		}
		idx, high := indexStopFunc(s)
		if idx != wantIdx || high != wantHigh {
			t.Fatalf("%q: indexStop = %d, %v; want %d, %v", s, idx, high, wantIdx, wantHigh)
		}
	}
}

// randomStringsInput returns up to 20 KB of random strings (from
// randomStringInput, some with a long plain run that crosses whole blocks)
// between filler bytes, and the offsets of their opening quotes; half the
// time the input ends inside the last string. The filler is never scanned:
// any bytes, since UTF-8 errors there must not hide one in a string.
func randomStringsInput(r *rand.Rand) (src []byte, starts []int) {
	size := r.IntN(20_000)
	for len(src) < size {
		for range r.IntN(4) {
			src = append(src, []byte{0, ',', 0xE0, 0xF0, 0xF4, 0xC2, 0x80, 0xBF}[r.IntN(8)])
		}
		starts = append(starts, len(src))
		s := randomStringInput(r)
		if r.IntN(4) == 0 {
			s = append(s, bytes.Repeat([]byte("x"), r.IntN(5000))...)
		}
		src = append(src, s...)
		src = append(src, '"', ',')
	}
	if r.IntN(2) == 0 && len(src) > 0 {
		src = src[:len(src)-2]
	}
	return src, starts
}

// TestScanPlainWindow runs the forward string scan of the engine
// (Canonicalizer.scanPlain, bitmaps over a moving window on amd64) over long
// inputs made of many random strings, so that strings start and end at
// every offset of a 64-byte block, cross block and window boundaries and
// run into the input's last partial block; each result must be the generic
// scanner's.
func TestScanPlainWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var c Canonicalizer
	for n := 0; n < 300; n++ {
		src, starts := randomStringsInput(r)
		for _, sc := range []struct {
			name string
			f    func(*Canonicalizer, int) (int, bool)
		}{
			{"scanPlain", (*Canonicalizer).scanPlain},
			{"scanPlainQuick", (*Canonicalizer).scanPlainQuick},
		} {
			c.src = src
			c.win.reset()
			for _, pos := range starts {
				if pos >= len(src) {
					break
				}
				gotEnd, gotEsc := sc.f(&c, pos)
				wantEnd, wantEsc := scanPlainGeneric(src, pos)
				if gotEnd != wantEnd || gotEsc != wantEsc {
					t.Fatalf("input of %d bytes, string at %d (%q): %s = %d, %v; scanPlainGeneric = %d, %v",
						len(src), pos, src[pos:min(pos+40, len(src))], sc.name, gotEnd, gotEsc, wantEnd, wantEsc)
				}
			}
		}
		c.src = nil
	}
}

// refStopRun is the obvious byte loop that stopRun and stopRunGeneric
// must agree with: the first '"', '\\' or control byte at or after i (or
// len(src)), and whether the bytes before it are well-formed UTF-8.
func refStopRun(src []byte, i int) (int, bool) {
	j := i
	for j < len(src) && src[j] != '"' && src[j] != '\\' && src[j] >= 0x20 {
		j++
	}
	return j, utf8.Valid(src[i:j])
}

// TestStopRunGeneric compares stopRunGeneric with refStopRun at every
// offset of random string inputs, at random alignments.
func TestStopRunGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 50_000; n++ {
		src := append(make([]byte, r.IntN(16)), randomStringInput(r)...)
		for i := 0; i <= len(src); i++ {
			gotJ, gotOK := stopRunGeneric(src, i)
			wantJ, wantOK := refStopRun(src, i)
			if gotJ != wantJ || gotOK != wantOK {
				t.Fatalf("%q at %d: stopRunGeneric = %d, %v; want %d, %v", src, i, gotJ, gotOK, wantJ, wantOK)
			}
		}
	}
}

// TestStopRun runs the engine's run scanner (Canonicalizer.stopRun: the
// bitmap window on amd64) as the engine does, after scanPlain has placed
// the window at a string, from offsets inside the string that follow an
// ASCII byte (as runs do: they start after the quote or an escape), over long
// inputs whose strings cross block and window boundaries and the input's
// end. The stop must be refStopRun's; the UTF-8 verdict too, except that a
// well-formed run may be reported as needing a check (a false alarm, which
// costs a slow scan and is counted: it must stay rare).
func TestStopRun(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var c Canonicalizer
	runs, alarms := 0, 0
	for n := 0; n < 200; n++ {
		src, starts := randomStringsInput(r)
		c.src = src
		c.win.reset()
		for k, pos := range starts {
			if pos >= len(src) {
				break
			}
			c.scanPlain(pos)
			end := len(src)
			if k+1 < len(starts) {
				end = starts[k+1]
			}
			for i := pos + 1; i <= end; i += 1 + r.IntN(8) {
				if src[i-1] >= utf8.RuneSelf {
					continue // runs start after ASCII: a quote or an escape
				}
				gotJ, gotOK := c.stopRun(i)
				wantJ, wantOK := refStopRun(src, i)
				if gotJ != wantJ || gotOK && !wantOK {
					t.Fatalf("input of %d bytes, run at %d (%q): stopRun = %d, %v; want %d, %v",
						len(src), i, src[i:min(i+40, len(src))], gotJ, gotOK, wantJ, wantOK)
				}
				runs++
				if wantOK && !gotOK {
					alarms++
				}
			}
		}
		c.src = nil
	}
	if alarms*100 > runs {
		t.Fatalf("%d false alarms in %d runs", alarms, runs)
	}
}
