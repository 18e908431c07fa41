package act

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// FuzzAct checks, for any input and shape, that reading never panics; that
// a refusal is an *Error with a known class; and that an accepted act
//
//   - has the shape it was read in (ShapeAuto: one of the three), and gives
//     the same digest when read with that shape explicitly, while the
//     other explicit shapes refuse it with ErrShape;
//   - is canonical under the strict profile, starts with the act's prefix,
//     and carries SHA-256 of its bytes and of its arguments;
//   - reads to the same digest from the input reformatted: canonicalized
//     under rfc8785 (whitespace gone, members sorted), and written again in
//     every style of the tests (members reversed, indented, every string
//     character as a \u escape, \/), which a JSON reader other than canon
//     (encoding/json) produces.
func FuzzAct(f *testing.F) {
	for _, c := range calls {
		for _, fm := range callForms {
			f.Add([]byte(fm.write(marshal(f, c.tool), c.args, quoteJSON(f, c.args))), uint8(0))
		}
	}
	for _, src := range demoInputs(f) {
		f.Add([]byte(src), uint8(0))
	}
	for _, tc := range errCases() {
		if len(tc.src) < 4096 {
			f.Add([]byte(tc.src), uint8(tc.shape))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, shape uint8) {
		s := Shape(shape % 4)
		var p Parser
		a, err := p.Parse(src, s)
		if err != nil {
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if _, known := canon.ParseClass(e.className()); !known && e.className() != ClassShape {
				t.Fatalf("unknown class %q: %v", e.className(), err)
			}
			return
		}
		if a.Shape == ShapeAuto || (s != ShapeAuto && a.Shape != s) {
			t.Fatalf("shape %s read as %s", s, a.Shape)
		}
		for x := ShapeAuto; x <= ShapeMCP; x++ {
			b, err := p.Parse(src, x)
			switch {
			case x == ShapeAuto || x == a.Shape:
				if err != nil || b.Digest != a.Digest || b.Shape != a.Shape {
					t.Fatalf("read as %s, then with %s: %v", a.Shape, x, err)
				}
			case !errors.Is(err, ErrShape):
				t.Fatalf("read as %s, and with %s: %v, want ErrShape", a.Shape, x, err)
			}
		}
		if !canon.IsCanonical(a.Canonical, canon.Strict) || !bytes.HasPrefix(a.Canonical, []byte(prefix)) {
			t.Fatalf("act not canonical: %s", a.Canonical)
		}
		if a.Digest != sha256.Sum256(a.Canonical) || a.ArgumentsDigest() != sha256.Sum256(a.Arguments()) ||
			len(a.Arguments()) < 2 || a.Arguments()[0] != '{' {
			t.Fatalf("digests or arguments wrong: %s", a.Canonical)
		}
		// Reformatted, the input is the same call.
		rc, err := canon.Canonicalize(src, canon.RFC8785)
		if err != nil {
			t.Fatalf("accepted input refused by the rfc8785 gate: %v", err)
		}
		forms := [][]byte{rc}
		v := decode(t, string(src))
		for _, st := range styles {
			forms = append(forms, []byte(writeJSON(v, st)))
		}
		for _, in := range forms {
			d, err := p.Digest(in, s)
			if err != nil || d != a.Digest {
				t.Fatalf("reformatted %s: %v, digest differs\nfrom %s", in, err, src)
			}
		}
	})
}

// FuzzMessage checks, for any input and shape, that reading a message
// never panics; that a refusal is an *Error with a known class; that the
// accepted acts are canonical under the strict profile, carry SHA-256 of
// their bytes, have the shape asked for, and read the same from the input
// reformatted (as FuzzAct reformats it); and, taking the input as one
// call, that the call put in a message of its vendor between two other
// calls gives its own act there, or its own refusal at its place in the
// message (checkEmbedded): a message's acts are those of its calls read
// one at a time.
func FuzzMessage(f *testing.F) {
	for _, mf := range messageForms {
		for _, cs := range messageCallSets()[2:] {
			src, items := mf.write(f, cs)
			f.Add([]byte(src), uint8(0))
			f.Add([]byte(items[0]), uint8(mf.shape))
		}
	}
	for _, tc := range messageErrCases() {
		f.Add([]byte(tc.src), uint8(tc.shape))
	}
	for _, tc := range errCases() {
		if len(tc.src) < 4096 {
			f.Add([]byte(tc.src), uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, shape uint8) {
		s := Shape(shape % 4)
		var p Parser
		acts, err := p.AppendMessage(nil, src, s)
		if err != nil {
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if _, known := canon.ParseClass(e.className()); !known && e.className() != ClassShape {
				t.Fatalf("unknown class %q: %v", e.className(), err)
			}
		} else {
			if len(acts) == 0 {
				t.Fatal("accepted with no act")
			}
			for _, a := range acts {
				if a.Shape == ShapeAuto || (s != ShapeAuto && a.Shape != s) ||
					!canon.IsCanonical(a.Canonical, canon.Strict) || !bytes.HasPrefix(a.Canonical, []byte(prefix)) ||
					a.Digest != sha256.Sum256(a.Canonical) || a.ArgumentsDigest() != sha256.Sum256(a.Arguments()) {
					t.Fatalf("act %s (shape %s) of %s", a.Canonical, a.Shape, src)
				}
			}
			rc, err := canon.Canonicalize(src, canon.RFC8785)
			if err != nil {
				t.Fatalf("accepted input refused by the rfc8785 gate: %v", err)
			}
			forms := [][]byte{rc}
			v := decode(t, string(src))
			for _, st := range styles {
				forms = append(forms, []byte(writeJSON(v, st)))
			}
			for _, in := range forms {
				again, err := p.AppendMessage(nil, in, s)
				if err != nil || len(again) != len(acts) {
					t.Fatalf("reformatted %s: %v, %d acts, want %d\nfrom %s", in, err, len(again), len(acts), src)
				}
				for i := range acts {
					if again[i].Digest != acts[i].Digest {
						t.Fatalf("reformatted %s: act %d differs\nfrom %s", in, i, src)
					}
				}
			}
		}
		checkEmbedded(t, &p, src)
	})
}
