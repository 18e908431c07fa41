package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/internal/impl"
)

func seedCorpus(f *testing.F) {
	for _, tc := range acceptCases {
		f.Add([]byte(tc.in))
	}
	for _, tc := range rejectCases {
		f.Add([]byte(tc.prefix + tc.rest))
	}
	f.Add([]byte(example64Envelope))
}

// FuzzCanonicalize checks the invariants that hold for every input: no
// panic; the canonical fast path agrees with the engine; an accepted input's output is valid JSON, a fixed point, passed
// through by View without copying; whatever strict accepts, rfc8785 accepts
// with the same output; both profiles agree on every rejection that is not
// about numbers or depth.
func FuzzCanonicalize(f *testing.F) {
	seedCorpus(f)
	var strict, rfc Canonicalizer
	rfc.Reset(RFC8785)
	f.Fuzz(func(t *testing.T, in []byte) {
		underEachUTF8(t, func() { checkCanonicalize(t, &strict, &rfc, in) })
	})
}

// FuzzShifted is FuzzCanonicalize with the fuzzer's bytes moved to where
// canon's passes carry state from one piece of input to the next: after
// an array's first string of shift%4400 bytes (ASCII, or two-byte
// sequences when shift's top bit is set), so that the ends of the indexed
// pass's chunks (128 bytes, then every 4 KiB) and of the classification
// window (4 KiB) fall inside them. Plain FuzzCanonicalize inputs are
// rarely that long; CI's fuzzing of envelopes found a UTF-8 sequence cut
// short at the end of the first chunk accepted.
func FuzzShifted(f *testing.F) {
	for _, in := range []string{"\"\xc3\"", `"é"`, "\"\xe2\x82\"", "\"\xf0\x9f\x98\"", `{"a":"\n","b":1}`, `"\\"`, `"a\"b"`, `[1,2.5,"\u00e9"]`, "\"\x01\"", `{"b":1,"a":2}`} {
		for _, shift := range []uint16{0, 120, 121, 122, 123, 124, 125, 4090, 4218, 4219, 4220, 0x8000 | 60, 0x8000 | 61} {
			f.Add(shift, []byte(in))
		}
	}
	var strict, rfc Canonicalizer
	rfc.Reset(RFC8785)
	f.Fuzz(func(t *testing.T, shift uint16, in []byte) {
		fill := "a"
		if shift&0x8000 != 0 {
			fill = "é"
		}
		pre := `["` + strings.Repeat(fill, int(shift&0x7fff)%4400/len(fill)) + `",`
		doc := append(append([]byte(pre), in...), ']')
		checkCanonicalize(t, &strict, &rfc, doc)
	})
}

// checkCanonicalize is the body of FuzzCanonicalize: the invariants that
// hold for in, with two Canonicalizers of the strict and rfc8785 profiles.
func checkCanonicalize(t *testing.T, strict, rfc *Canonicalizer, in []byte) {
	t.Helper()
	// The fast path accepts only what the engine returns unchanged, under
	// each implementation of it.
	underEach(t, quickKernel, func() {
		checkQuick(t, strict, in)
		checkQuick(t, rfc, in)
	})
	outS, errS := strict.Append(nil, in)
	outR, errR := rfc.Append(nil, in)
	if errR != nil {
		if _, ok := errors.AsType[*Error](errR); !ok {
			t.Fatalf("rfc8785 error is not *Error: %v", errR)
		}
	}
	if errS == nil {
		if errR != nil || !bytes.Equal(outS, outR) {
			t.Fatalf("strict accepts %q as %q; rfc8785 gives %q, %v", in, outS, outR, errR)
		}
	} else {
		e, ok := errors.AsType[*Error](errS)
		if !ok {
			t.Fatalf("strict error is not *Error: %v", errS)
		}
		switch e.Class {
		case ClassNonInteger, ClassUnsafeInteger, ClassDepth:
		default:
			eR, _ := errors.AsType[*Error](errR)
			if eR == nil || eR.Class != e.Class || eR.Offset != e.Offset {
				t.Fatalf("%q: strict %v, rfc8785 %v", in, errS, errR)
			}
		}
	}
	// In place: the input's own buffer as the output buffer.
	buf := append(make([]byte, 0, len(in)+64), in...)
	inPlace, errP := rfc.Append(buf[:0], buf)
	if fmt.Sprint(errP) != fmt.Sprint(errR) || errR == nil && !bytes.Equal(inPlace, outR) {
		t.Fatalf("%q: in place gives %q, %v; want %q, %v", in, inPlace, errP, outR, errR)
	}
	if errR != nil {
		return
	}
	if !json.Valid(outR) || !utf8.Valid(outR) {
		t.Fatalf("%q: output %q is not valid JSON", in, outR)
	}
	// The same output when every reordering is deferred.
	testDeferAllSorts = true
	deferred, errD := rfc.Append(nil, in)
	testDeferAllSorts = false
	if errD != nil || !bytes.Equal(deferred, outR) {
		t.Fatalf("%q: deferred ordering gives %q, %v; want %q", in, deferred, errD, outR)
	}
	if !checkQuick(t, rfc, outR) {
		t.Fatalf("%q: the fast path gives up on the canonical %q", in, outR)
	}
	again, err := rfc.View(outR)
	if err != nil || !bytes.Equal(again, outR) || (len(outR) > 0 && &again[0] != &outR[0]) {
		t.Fatalf("%q: output %q is not a fixed point: %q, %v", in, outR, again, err)
	}
}

// underEachUTF8 runs f once under each implementation of the utf8 kernel
// that this CPU and build can run, so that a fuzz target checks every input
// on each; a failure names the implementation it happened under.
func underEachUTF8(t *testing.T, f func()) { t.Helper(); underEach(t, utf8Kernel, f) }

// underEach runs f once under each implementation of k that this CPU and
// build can run, without a subtest (f may be a fuzz target's body); a
// failure names the implementation. Tests that can have subtests use
// impltest.ForEach.
func underEach(t *testing.T, k *impl.Kernel, f func()) {
	t.Helper()
	for _, name := range k.Available() {
		func() {
			restore, err := k.Select(name)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				restore()
				if t.Failed() {
					t.Logf("under %s implementation %s", k.Name, name)
				}
			}()
			f()
		}()
	}
}

func FuzzCompareUTF16(f *testing.F) {
	for _, a := range interestingRunes {
		for _, b := range interestingRunes[:8] {
			f.Add([]byte(string(a)), []byte(string(b)))
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if !utf8.Valid(a) || !utf8.Valid(b) {
			return
		}
		if got, want := CompareUTF16(a, b), compareUTF16Simple(a, b); got != want {
			t.Fatalf("CompareUTF16(%+q, %+q) = %d, want %d", a, b, got, want)
		}
	})
}

// FuzzString checks string output against the oracle: any valid UTF-8
// value written as a JSON string by encoding/json canonicalizes to
// appendStringSimple of that value.
func FuzzString(f *testing.F) {
	for _, r := range interestingRunes {
		f.Add(string(r) + "x")
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		in, _ := json.Marshal(s) // escapes <, >, &, U+2028 and U+2029 as \u
		got, err := Canonicalize(in, Strict)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if want := appendStringSimple(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", in, got, want)
		}
	})
}

// FuzzScanPlainString compares the string scanners in use (SSE2 and the
// bitmap window on amd64) with the generic one on arbitrary bytes at
// arbitrary offsets.
func FuzzScanPlainString(f *testing.F) {
	f.Add([]byte(`"plain ascii, long enough to fill a block" `), 0)
	f.Add([]byte(`"東京 😀 \u2028 café"`), 0)
	f.Add([]byte("\"bad \xed\xa0\x80 surrogate in a long string\""), 0)
	f.Add([]byte(`"escape \n in a string that spans blocks"`), 0)
	f.Fuzz(func(t *testing.T, src []byte, pos int) {
		if len(src) == 0 {
			return
		}
		pos = int(uint(pos) % uint(len(src)))
		src[pos] = '"'
		underEachUTF8(t, func() { checkScanPlain(t, src, pos) })
	})
}

// checkScanPlain is the body of FuzzScanPlainString: the scanners on src
// from the quote at pos.
func checkScanPlain(t *testing.T, src []byte, pos int) {
	t.Helper()
	gotEnd, gotEsc := scanPlainString(src, pos)
	wantEnd, wantEsc := scanPlainGeneric(src, pos)
	if gotEnd != wantEnd || gotEsc != wantEsc {
		t.Fatalf("%q at %d: scanPlainString = %d, %v; scanPlainGeneric = %d, %v", src, pos, gotEnd, gotEsc, wantEnd, wantEsc)
	}
	var c Canonicalizer
	c.src = src
	c.win.reset()
	if gotEnd, gotEsc = c.scanPlain(pos); gotEnd != wantEnd || gotEsc != wantEsc {
		t.Fatalf("%q at %d: scanPlain = %d, %v; scanPlainGeneric = %d, %v", src, pos, gotEnd, gotEsc, wantEnd, wantEsc)
	}
	// The run scanner of strings with escapes, from the string's start
	// (the window is where scanPlain put it).
	wantJ, wantOK := refStopRun(src, pos+1)
	if j, ok := stopRunGeneric(src, pos+1); j != wantJ || ok != wantOK {
		t.Fatalf("%q at %d: stopRunGeneric = %d, %v; want %d, %v", src, pos+1, j, ok, wantJ, wantOK)
	}
	if j, ok := c.stopRun(pos + 1); j != wantJ || ok && !wantOK {
		t.Fatalf("%q at %d: stopRun = %d, %v; want %d, %v", src, pos+1, j, ok, wantJ, wantOK)
	}
}

// FuzzUTF8Paths checks that every implementation of the utf8 kernel gives
// the generic one's answer (utf8.Valid per string): the same canonical
// form, or the same error, of any input, through Append and View, under
// the rfc8785 profile.
func FuzzUTF8Paths(f *testing.F) {
	seedCorpus(f)
	f.Add([]byte("[\"" + strings.Repeat("é", 40) + "\xe3\x81\",\"" + strings.Repeat("x", 60) + "\xf0\x9f\x98\"]"))
	f.Add([]byte("{\"" + strings.Repeat("a", 62) + "\xed\xa0\x80\":1}"))
	var c Canonicalizer
	c.Reset(RFC8785)
	f.Fuzz(func(t *testing.T, in []byte) {
		var want []byte
		var wantErr error
		for i, name := range utf8Kernel.Available() {
			restore, err := utf8Kernel.Select(name)
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.Append(nil, in)
			_, viewErr := c.View(in)
			restore()
			if i == 0 {
				want, wantErr = out, err
			} else if !bytes.Equal(out, want) || !sameError(err, wantErr) {
				t.Fatalf("%q: utf8 %s gives %q, %v; %s gives %q, %v", in, name, out, err, utf8Kernel.Names()[0], want, wantErr)
			}
			if (viewErr == nil) != (err == nil) {
				t.Fatalf("%q: utf8 %s: View gives %v, Append %v", in, name, viewErr, err)
			}
		}
	})
}
