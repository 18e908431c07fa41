package canon

import (
	"fmt"
	"strings"
	"testing"
)

// aliasInputs are inputs of every kind for the overlap tests: canonical and
// not, accepted and rejected, output longer than the input (1e21 becomes
// 1e+21, 1e20 twenty-one digits), escapes in values and names, objects
// sorted in place and deferred, pretty-printed text (the compression
// pass), and the engine's test tables.
func aliasInputs() []string {
	big := func(n int, sep string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := n; i > 0; i-- {
			if i < n {
				b.WriteString("," + sep)
			}
			fmt.Fprintf(&b, `"k%d\u00e9":[%d,1.0,"\u0041"]`, i, i)
		}
		b.WriteString("}")
		return b.String()
	}
	var deep strings.Builder // past the in-place budget: deferred records
	for range 40 {
		deep.WriteString(`{"z":"` + strings.Repeat("x", 200) + `","a":`)
	}
	deep.WriteString("[1e21]" + strings.Repeat("}", 40))
	ins := []string{
		`{"b":1,"a":2}`,
		`{"b":1e21,"a":[1e20,-1e20,1E2]}`,
		`[1e20,1e20,1e20,1e20,1e20,1e20,1e20,1e20]`,
		`{"\u0062":"\u00e9\/\n","a":"\ud83d\ude00"}`,
		`{"a":1,"\u0061":2}`,
		`{"b":1,"a":[1,`,
		`  {"b" : 1 , "a" : 2}  `,
		example64Envelope,
		big(300, ""),
		big(300, "\n  "),
		deep.String(),
	}
	for _, tc := range acceptCases {
		ins = append(ins, tc.in)
	}
	for _, tc := range rejectCases {
		ins = append(ins, tc.prefix+tc.rest)
	}
	return ins
}

// canonOf is the reference: Canonicalize of a copy of in that nothing else
// shares, with its error as text.
func canonOf(in string, p Profile) (string, string) {
	out, err := Canonicalize([]byte(in), p)
	if err != nil {
		return "", fmt.Sprintf("%#v", err)
	}
	return string(out), ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf("%#v", err)
}

// TestAppendOverlap canonicalizes each input from a buffer that shares
// memory with the output buffer, in every arrangement: in place
// (AppendCanonical(buf[:0], buf, p)), src in dst's spare capacity (right
// after dst's end or further on), src straddling dst's end (dst = buf[:d],
// src = buf[s:] with s < d), and apart (the control), through the one-shot
// function and a reused Canonicalizer. Each must give Canonicalize's
// result for a separate copy, appended after dst's own bytes.
func TestAppendOverlap(t *testing.T) {
	var c Canonicalizer
	for _, in := range aliasInputs() {
		for _, p := range []Profile{Strict, RFC8785} {
			want, wantErr := canonOf(in, p)
			n := len(in)
			type layout struct{ d, s int } // dst = buf[:d], src = buf[s:s+n]
			layouts := []layout{{0, 0}, {0, 1}, {0, 7}, {3, 3}, {3, 4}, {5, 40}, {0, n}, {4, 2}, {n / 2, 0}, {n - 1, 0}, {n, 0}, {n + 3, 0}}
			for _, l := range layouts {
				if l.d < 0 {
					continue
				}
				for _, oneShot := range []bool{true, false} {
					buf := make([]byte, max(l.d, l.s+n)+2*len(want)+64)
					for i := range buf {
						buf[i] = '#'
					}
					copy(buf[l.s:], in)
					prefix := string(buf[:l.d])
					dst, src := buf[:l.d], buf[l.s:l.s+n]
					var got []byte
					var err error
					if oneShot {
						got, err = AppendCanonical(dst, src, p)
					} else {
						c.Reset(p)
						got, err = c.Append(dst, src)
					}
					name := fmt.Sprintf("%s dst=buf[:%d] src=buf[%d:%d] oneShot=%v %.60q", p.Name(), l.d, l.s, l.s+n, oneShot, in)
					if e := errText(err); e != wantErr {
						t.Errorf("%s: error\n got %s\nwant %s", name, e, wantErr)
						continue
					}
					if err != nil {
						if len(got) != l.d {
							t.Errorf("%s: %d bytes returned on error, want dst's %d", name, len(got), l.d)
						}
						continue
					}
					if string(got) != prefix+want {
						t.Errorf("%s:\n got %.200q\nwant %.200q", name, got, prefix+want)
					}
				}
			}
		}
	}
}

// TestViewOverlap passes View (and Append) slices of c's own arena, as a
// caller holding an earlier result may: the output buffer View returns,
// and the compact text of a pretty-printed input that View returns when it
// is canonical. Each call reads those bytes while it rewrites the arena, so
// they must be copied first.
func TestViewOverlap(t *testing.T) {
	for _, impl := range availableMinifyImpls() {
		withMinify(t, impl, func() {
			for _, p := range []Profile{Strict, RFC8785} {
				c := New(p)
				for _, in := range aliasInputs() {
					v, err := c.View([]byte(in))
					if err != nil || len(v) < 2 {
						continue
					}
					n := len(v)
					for _, r := range [][2]int{{0, n}, {0, n - 1}, {1, n}, {0, n / 2}} {
						for _, view := range []bool{true, false} {
							v, _ := c.View([]byte(in)) // v in c's arena, unless in was canonical
							sub := v[r[0]:r[1]]
							want, wantErr := canonOf(string(sub), p)
							name := fmt.Sprintf("%s minify=%s view=%v %.60q", p.Name(), minifyNames[impl], view, sub)
							var got []byte
							if view {
								got, err = c.View(sub)
							} else {
								got, err = c.Append([]byte("pre"), sub)
								want = "pre" + want
							}
							if e := errText(err); e != wantErr || (err == nil && string(got) != want) {
								t.Errorf("%s:\n got %.200q, %s\nwant %.200q, %s", name, got, e, want, wantErr)
							}
						}
					}
				}
			}
		})
	}
}

// TestAppendInPlaceAllocs canonicalizes a buffer in place with a warm
// Canonicalizer: the copy of the input goes to the arena, so the call makes
// no allocation.
func TestAppendInPlaceAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("allocation counts differ")
	}
	for _, in := range []string{example64Envelope, `{"b":1,"a":[1.0,2]}`, `[1,2,3]`} {
		c := New(RFC8785)
		want, err := Canonicalize([]byte(in), RFC8785)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 0, 2*len(in)+64) // room for the output and a number's
		var got []byte
		run := func() {
			b := append(buf[:0], in...)
			got, err = c.Append(b[:0], b)
		}
		run()
		if n := testing.AllocsPerRun(50, run); n != 0 {
			t.Errorf("%.40q: in-place Append allocates %v times", in, n)
		}
		if err != nil || string(got) != string(want) {
			t.Errorf("%.40q: in place %q, %v; want %q", in, got, err, want)
		}
	}
}
