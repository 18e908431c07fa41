package canon

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// dupDoc writes random JSON with one to three duplicate member names, in
// one object or several, and records where the first (in input order) is:
// the offset of its opening quote, the offset just after its closing
// quote, and its JSON Pointer (RFC 6901, built here from the tree, not by
// the package).
type dupDoc struct {
	r       *rand.Rand
	b       []byte
	planted int
	off     int
	nameEnd int
	pointer string
}

// dupNames is the name pool; some are spelled with escapes on output, so
// that duplicates are found after escape decoding.
var dupNames = []string{"a", "b", "c", "id", "x/y", "t~", "é", "\U0001F600", "\uff61", "zz", "k1", "k2"}

var bigNames = func() (s []string) {
	for i := range 40 {
		s = append(s, fmt.Sprintf("m%02d", i))
	}
	return s
}()

func (d *dupDoc) ws() {
	for range d.r.IntN(3) {
		d.b = append(d.b, " \n\t\r"[d.r.IntN(4)])
	}
}

func (d *dupDoc) name(s string) {
	if d.r.IntN(3) == 0 {
		// Spell the first character as a \u escape (a surrogate pair
		// above the BMP).
		r := []rune(s)
		d.b = append(d.b, '"')
		if r[0] >= 0x10000 {
			v := r[0] - 0x10000
			d.b = fmt.Appendf(d.b, `\u%04x\u%04x`, 0xD800+v>>10, 0xDC00+v&0x3FF)
		} else {
			d.b = fmt.Appendf(d.b, `\u%04X`, r[0])
		}
		d.b = append(d.b, string(r[1:])...)
		d.b = append(d.b, '"')
		return
	}
	d.b = strconv.AppendQuote(d.b, s)
}

// value writes a random value at JSON Pointer ptr; plant asks for the
// duplicate to be planted in this subtree if possible.
func (d *dupDoc) value(depth int, ptr string) {
	d.ws()
	k := d.r.IntN(6)
	if depth >= 4 {
		k = 3 + d.r.IntN(3)
	}
	switch k {
	case 0, 1:
		d.b = append(d.b, '{')
		pool := dupNames
		if d.r.IntN(8) == 0 {
			pool = bigNames // more members than the insertion sort takes
		}
		names := d.r.Perm(len(pool))[:d.r.IntN(6)]
		if len(pool) == len(bigNames) {
			names = d.r.Perm(len(pool))[:insertionSortMax+1+d.r.IntN(10)]
		}
		for i, ni := range names {
			if i > 0 {
				d.b = append(d.b, ',')
			}
			d.ws()
			nm := pool[ni]
			d.name(nm)
			d.ws()
			d.b = append(d.b, ':')
			d.value(depth+1, ptr+string(appendPointerToken(nil, []byte(nm))))
			if d.planted < 3 && d.r.IntN(6) == 0 {
				// After this member, repeat an earlier name.
				d.planted++
				dup := pool[names[d.r.IntN(i+1)]]
				d.b = append(d.b, ',')
				d.ws()
				off := len(d.b)
				d.name(dup)
				p := ptr + string(appendPointerToken(nil, []byte(dup)))
				if d.planted == 1 {
					d.off, d.nameEnd, d.pointer = off, len(d.b), p
				}
				d.ws()
				d.b = append(d.b, ':')
				d.value(depth+1, p)
			}
		}
		d.ws()
		d.b = append(d.b, '}')
	case 2:
		d.b = append(d.b, '[')
		for i := range d.r.IntN(4) {
			if i > 0 {
				d.b = append(d.b, ',')
			}
			d.value(depth+1, ptr+"/"+strconv.Itoa(i))
		}
		d.ws()
		d.b = append(d.b, ']')
	case 3:
		d.b = strconv.AppendQuote(d.b, strings.Repeat("s", d.r.IntN(70)))
	case 4:
		d.b = strconv.AppendInt(d.b, d.r.Int64N(1000), 10)
	default:
		d.b = append(d.b, "true"...)
	}
	d.ws()
}

// TestDuplicateFirstInInputOrder checks that the error reported is the
// first in input order when a duplicate name comes before another error:
// a document with one duplicate is rejected at the duplicate, with its
// pointer, and so is every cut of it that ends after the duplicate's name;
// a cut that ends before it is a syntax error instead. The out-of-order
// objects check their names only when they close, so this is what ties
// the result to arrival order.
func TestDuplicateFirstInInputOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, sortMode := range []bool{false, true} {
		testDeferAllSorts = sortMode
		var c, cr Canonicalizer
		cr.Reset(RFC8785)
		docs := 0
		for docs < 1500 {
			d := &dupDoc{r: r}
			d.value(0, "")
			if d.planted == 0 {
				continue
			}
			docs++
			check := func(in []byte, wantDup bool) {
				t.Helper()
				for _, cc := range []*Canonicalizer{&c, &cr} {
					for _, impl := range availableMinifyImpls() {
						var err error
						withMinify(t, impl, func() { _, err = cc.Append(nil, in) })
						e, ok := errors.AsType[*Error](err)
						if !ok {
							t.Fatalf("%q: %v, want an error", in, err)
						}
						if wantDup {
							if e.Class != ClassDuplicateName || e.Offset != int64(d.off) || e.Pointer != d.pointer {
								t.Fatalf("deferred=%v %q:\n got %s at %d %q\nwant duplicate-name at %d %q",
									sortMode, in, e.Class, e.Offset, e.Pointer, d.off, d.pointer)
							}
						} else if e.Class == ClassDuplicateName {
							t.Fatalf("%q (cut before the duplicate ends at %d): %v", in, d.nameEnd, err)
						}
					}
				}
			}
			check(d.b, true)
			for range 6 {
				k := r.IntN(len(d.b))
				check(d.b[:k], k >= d.nameEnd)
			}
			check(d.b[:d.nameEnd], true)
			check(d.b[:d.nameEnd-1], false)
			// A later syntax error of another kind: a stray byte after the
			// duplicate's name.
			for range 2 {
				k := d.nameEnd + r.IntN(len(d.b)-d.nameEnd+1)
				bad := append(append(append([]byte(nil), d.b[:k]...), '#'), d.b[k:]...)
				check(bad, true)
			}
		}
	}
	testDeferAllSorts = false
}
