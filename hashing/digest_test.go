package hashing

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
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
