package hashing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

const abcText = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

func TestDigestString(t *testing.T) {
	d := Sum([]byte("abc"))
	if got := d.String(); got != abcText {
		t.Fatalf("String = %q, want %q", got, abcText)
	}
	if len(abcText) != DigestTextLen {
		t.Fatalf("DigestTextLen = %d, want %d", DigestTextLen, len(abcText))
	}
	if got := string(d.AppendTo([]byte("x="))); got != "x="+abcText {
		t.Fatalf("AppendTo = %q", got)
	}
	if got, err := d.AppendText([]byte("y")); err != nil || string(got) != "y"+abcText {
		t.Fatalf("AppendText = %q, %v", got, err)
	}
	if got, err := d.MarshalText(); err != nil || string(got) != abcText {
		t.Fatalf("MarshalText = %q, %v", got, err)
	}
	if Digest(sha256.Sum256([]byte("abc"))) != d {
		t.Fatal("Sum differs from crypto/sha256")
	}
}

func TestParseDigest(t *testing.T) {
	hex64 := abcText[7:]
	good := []string{abcText, "sha256:" + strings.Repeat("0", 64), "sha256:" + strings.Repeat("f", 64)}
	for _, s := range good {
		d, err := ParseDigest(s)
		if err != nil {
			t.Errorf("ParseDigest(%q): %v", s, err)
			continue
		}
		if d.String() != s {
			t.Errorf("round trip %q -> %q", s, d.String())
		}
	}
	bad := []struct {
		in     string
		offset int
		reason string
	}{
		{"", 0, "missing"},
		{hex64, 0, "missing"},
		{"sha256", 0, "missing"},
		{"sha256:", 7, "got 0"},
		{"SHA256:" + hex64, 0, `"SHA256"`},
		{"sha512:" + hex64, 0, `unsupported algorithm "sha512"`},
		{"sha256-" + hex64, 0, "missing"},
		{"sha256:" + hex64[:63], 7, "got 63"},
		{"sha256:" + hex64 + "0", 7, "got 65"},
		{"sha256:" + strings.ToUpper(hex64), 7, "uppercase"},
		{"sha256:" + hex64[:10] + "A" + hex64[11:], 17, "uppercase hex digit 'A'"},
		{"sha256:" + hex64[:11] + "g" + hex64[12:], 18, `"g"`},
		{" sha256:" + hex64, 0, "unsupported algorithm"},
		{"sha256:" + hex64 + "\n", 7, "got 65"},
		{"sha256: " + hex64[1:], 7, `" "`},
		{"sha256:" + hex64[:62] + "é", 69, `"\xc3"`},
	}
	for _, tc := range bad {
		d, err := ParseDigest(tc.in)
		var de *DigestError
		if !errors.As(err, &de) || !errors.Is(err, ErrInvalidDigest) {
			t.Errorf("ParseDigest(%q) = %v, %v; want a *DigestError", tc.in, d, err)
			continue
		}
		if d != (Digest{}) {
			t.Errorf("ParseDigest(%q) returned a non-zero digest with its error", tc.in)
		}
		if de.Offset != tc.offset || !strings.Contains(de.Reason, tc.reason) {
			t.Errorf("ParseDigest(%q): offset %d reason %q; want offset %d, reason with %q", tc.in, de.Offset, de.Reason, tc.offset, tc.reason)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "hashing: invalid digest ") || strings.HasSuffix(msg, ".") {
			t.Errorf("error message %q", msg)
		}
	}
}

// TestParseHex holds ParseHex to ParseDigest: every input of
// TestParseDigest's that starts "sha256:" parses (or is refused, at the
// same place less the prefix) alike without it, from a string or bytes.
func TestParseHex(t *testing.T) {
	hex64 := abcText[7:]
	for _, s := range []string{
		abcText, "sha256:" + strings.Repeat("0", 64), "sha256:", "sha256:" + hex64[:63],
		"sha256:" + hex64 + "0", "sha256:" + strings.ToUpper(hex64),
		"sha256:" + hex64[:10] + "A" + hex64[11:], "sha256:" + hex64[:11] + "g" + hex64[12:],
		"sha256:" + hex64 + "\n", "sha256: " + hex64[1:], "sha256:" + hex64[:62] + "é",
	} {
		want, wantErr := ParseDigest(s)
		for _, got := range []struct {
			d   Digest
			err error
		}{wrap2(ParseHex(s[7:])), wrap2(ParseHex([]byte(s[7:])))} {
			if got.d != want || (got.err == nil) != (wantErr == nil) {
				t.Errorf("ParseHex(%q) = %v, %v; ParseDigest of it with the prefix: %v, %v", s[7:], got.d, got.err, want, wantErr)
				continue
			}
			if wantErr == nil {
				continue
			}
			de, _ := errors.AsType[*DigestError](got.err)
			we, _ := errors.AsType[*DigestError](wantErr)
			if de == nil || !errors.Is(got.err, ErrInvalidDigest) || de.Offset != we.Offset-7 || de.Reason != we.Reason {
				t.Errorf("ParseHex(%q): %v; want a *DigestError at offset %d: %s", s[7:], got.err, we.Offset-7, we.Reason)
			}
		}
	}
}

func wrap2(d Digest, err error) struct {
	d   Digest
	err error
} {
	return struct {
		d   Digest
		err error
	}{d, err}
}

func TestDigestJSON(t *testing.T) {
	d := Sum([]byte("abc"))
	type doc struct {
		D  Digest            `json:"d"`
		P  *Digest           `json:"p"`
		M  map[string]Digest `json:"m"`
		DS []Digest          `json:"ds"`
	}
	in := doc{D: d, P: &d, M: map[string]Digest{"k": d}, DS: []Digest{d, {}}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"d":"`+abcText+`"`) {
		t.Fatalf("json = %s", b)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.D != d || *out.P != d || out.M["k"] != d || out.DS[0] != d || out.DS[1] != (Digest{}) {
		t.Fatalf("round trip: %+v", out)
	}

	// Escaped but equal strings are accepted; null is a no-op.
	var e Digest
	if err := json.Unmarshal([]byte(`"\u0073ha256:`+abcText[7:]+`"`), &e); err != nil || e != d {
		t.Fatalf("escaped: %v %v", e, err)
	}
	if err := e.UnmarshalJSON([]byte("null")); err != nil || e != d {
		t.Fatalf("null: %v %v", e, err)
	}
	for _, s := range []string{`123`, `"sha256:00"`, `["` + abcText + `"]`, `"` + strings.ToUpper(abcText) + `"`, `"` + abcText, ``} {
		before := e
		err := e.UnmarshalJSON([]byte(s))
		if !errors.Is(err, ErrInvalidDigest) {
			t.Errorf("UnmarshalJSON(%s) = %v, want ErrInvalidDigest", s, err)
		}
		if e != before {
			t.Errorf("UnmarshalJSON(%s) changed the receiver on error", s)
		}
	}
	if err := json.Unmarshal([]byte(`{"d":"sha512:00"}`), &out); !errors.Is(err, ErrInvalidDigest) {
		t.Errorf("json.Unmarshal with a bad digest: %v", err)
	}
}

func TestDigestTextAllocs(t *testing.T) {
	d := Sum([]byte("abc"))
	buf := make([]byte, 0, 2*DigestTextLen)
	if n := testing.AllocsPerRun(100, func() { buf = d.AppendTo(buf[:0]) }); n != 0 {
		t.Errorf("AppendTo: %v allocs", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = d.String() }); n > 1 {
		t.Errorf("String: %v allocs, want at most 1 (the string)", n)
	}
	text := []byte(abcText)
	if n := testing.AllocsPerRun(100, func() { _ = d.UnmarshalText(text) }); n != 0 {
		t.Errorf("UnmarshalText: %v allocs", n)
	}
	// The view of a string's or a slice's digits for hexdec (hexView)
	// copies neither.
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseDigest(abcText) }); n != 0 {
		t.Errorf("ParseDigest: %v allocs", n)
	}
	hex := []byte(abcText[len("sha256:"):])
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseHex(hex) }); n != 0 {
		t.Errorf("ParseHex([]byte): %v allocs", n)
	}
}

// BenchmarkParseDigest parses the text form of a digest (a resolution's,
// a receipt's or an archive claim's).
func BenchmarkParseDigest(b *testing.B) {
	for b.Loop() {
		if _, err := ParseDigest(abcText); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzParseDigest(f *testing.F) {
	f.Add(abcText)
	f.Add("sha512:" + abcText[7:])
	f.Add("sha256:" + strings.ToUpper(abcText[7:]))
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDigest(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidDigest) {
				t.Fatalf("error %v does not wrap ErrInvalidDigest", err)
			}
			return
		}
		if d.String() != s {
			t.Fatalf("accepted %q but prints as %q", s, d.String())
		}
	})
}

// digestText is a string type without methods: fmt's output for it, with
// its type name replaced, is what Digest.Format must print for the text
// verbs and for bad verbs.
type digestText string

// TestDigestFormat compares every fmt verb on random digests with what fmt
// prints for the same bytes as a [32]byte (%x, %X, %#v), for the text form
// as a string (%s, %v, %q) and for a string-kind value given a bad verb.
func TestDigestFormat(t *testing.T) {
	r := newRand(t)
	digests := []Digest{{}, Sum([]byte("abc"))}
	for range 20 {
		var d Digest
		copy(d[:], randBytes(r, Size))
		digests = append(digests, d)
	}
	bytesVerbs := []string{"%x", "%X", "%#x", "%#X", "% x", "% X", "%# x", "%+x", "%10x", "%80x", "%-80x", "%-130X", "%080x", "%.5x", "%.0x", "%-80.3x", "%#-80x"}
	textVerbs := []string{"%s", "%v", "%+v", "%q", "%#q", "%+q", "%10s", "%80s", "%-80s", "%80v", "%-80v", "%.10s", "%.0v", "%-90q", "%080s", "% s"}
	goVerbs := []string{"%#v", "%#10v", "%#-6v"}
	badVerbs := []string{"%d", "%z", "%t", "%o", "%b", "%c", "%U", "%e", "%f", "%g", "%10d", "%-80z", "%.3o", "%#d", "%#-80d", "%+!", "%-+ 010.70z"}
	for _, d := range digests {
		hexText := hex.EncodeToString(d[:])
		text := "sha256:" + hexText
		if got := d.String(); got != text {
			t.Fatalf("String() = %q, want %q", got, text)
		}
		check := func(verb, got, want string) {
			t.Helper()
			if got != want {
				t.Errorf("Sprintf(%q, %s):\n got %q\nwant %q", verb, text, got, want)
			}
		}
		check("%x", fmt.Sprintf("%x", d), hexText)
		check("%X", fmt.Sprintf("%X", d), strings.ToUpper(hexText))
		check("%s", fmt.Sprintf("%s", d), text)
		check("%v", fmt.Sprintf("%v", d), text)
		check("%q", fmt.Sprintf("%q", d), strconv.Quote(text))
		check("%-80s", fmt.Sprintf("%-80s|", d), text+strings.Repeat(" ", 80-len(text))+"|")
		check("%80s", fmt.Sprintf("%80s", d), strings.Repeat(" ", 80-len(text))+text)
		for _, v := range bytesVerbs {
			check(v, fmt.Sprintf(v, d), fmt.Sprintf(v, [Size]byte(d)))
		}
		for _, v := range textVerbs {
			check(v, fmt.Sprintf(v, d), fmt.Sprintf(v, text))
		}
		for _, v := range goVerbs {
			want := "hashing.Digest" + strings.TrimPrefix(fmt.Sprintf(v, [Size]byte(d)), "[32]uint8")
			check(v, fmt.Sprintf(v, d), want)
		}
		for _, v := range badVerbs {
			want := strings.Replace(fmt.Sprintf(v, digestText(text)), "hashing.digestText", "hashing.Digest", 1)
			if !strings.HasPrefix(want, "%!") || !strings.Contains(want, "(hashing.Digest=") {
				t.Fatalf("fmt's bad-verb form for %q changed: %q", v, want)
			}
			check(v, fmt.Sprintf(v, d), want)
		}
		check("%T", fmt.Sprintf("%T", d), "hashing.Digest")
		check("Println", fmt.Sprintln(d, &d), text+" "+text+"\n")
		// Inside other values fmt formats each element with the same verb.
		arr := [Size]byte(d)
		check("%x of a slice", fmt.Sprintf("%x", []Digest{d, d}), fmt.Sprintf("%x", [][Size]byte{arr, arr}))
		check("%v of a struct", fmt.Sprintf("%v", struct{ D Digest }{d}), "{"+text+"}")
		check("%+v of a struct", fmt.Sprintf("%+v", struct{ D Digest }{d}), "{D:"+text+"}")

		if got := d.Hex(); got != hexText {
			t.Errorf("Hex() = %q, want %q", got, hexText)
		}
		b := d.Bytes()
		if !bytes.Equal(b, d[:]) || len(b) != Size || cap(b) != Size {
			t.Errorf("Bytes() = %x (len %d, cap %d), want %x", b, len(b), cap(b), d[:])
		}
		b[0] ^= 0xff
		if b2 := d.Bytes(); b2[0] == b[0] {
			t.Error("Bytes() returned storage shared with d or with another call")
		}

		// The text forms that do not go through fmt are unchanged.
		if m, err := d.MarshalText(); err != nil || string(m) != text {
			t.Errorf("MarshalText() = %q, %v", m, err)
		}
		if j, err := json.Marshal(d); err != nil || string(j) != `"`+text+`"` {
			t.Errorf("json.Marshal = %s, %v", j, err)
		}
		if a := d.AppendTo(nil); string(a) != text {
			t.Errorf("AppendTo = %q", a)
		}
	}
}
