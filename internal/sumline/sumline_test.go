package sumline

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/inerttest"

	"github.com/bbdigest/bbdigest/internal/diag"
)

// hexOf is the plain hex of the SHA-256 of {"a":1,"b":[true,null]}, as
// sha256sum writes it (sha256sum of the 23 bytes).
const hexOf = "1cc69c7fa23616ca2ec3ee70d24390a6225c8832db8a4c814c7e0e7f942f8668"

// TestParse checks each form of a check line, bbdigest's and
// sha256sum's, and the reasons given for lines in none of them.
func TestParse(t *testing.T) {
	hex := hexOf
	upper := strings.ToUpper(hex)
	want := "sha256:" + hex
	const improperRE = `^improperly formatted checksum line: want "sha256:<64 lowercase hex>  NAME" \('bbdigest digest --names'\), "<64 hex>  NAME" \(sha256sum\) or "SHA256 \(NAME\) = <64 hex>" \(sha256sum --tag\)$`
	for _, tt := range []struct {
		line   string
		name   string
		plain  bool
		reason string // a regexp; "" for a check line
	}{
		// bbdigest's form, as --names writes it.
		{line: want + "  a b.json", name: "a b.json"},
		{line: want + "  a.json\r", name: "a.json"},
		{line: want + "   a.json", name: " a.json"},
		{line: `\` + want + `  we\\ird\n\u202e\xff.json`, name: "we\\ird\n\u202e\xff.json"},
		{line: `\` + want + `  bad\q`, reason: `^bad escape in the name$`},
		{line: want + "  ", reason: improperRE},
		{line: want + " *a.json", reason: improperRE},
		{line: want, reason: improperRE},
		{line: "sha256:" + upper + "  a.json", reason: improperRE},
		{line: "SHA256:" + hex + "  a.json", reason: improperRE},
		{line: "sha256:" + hex[:63] + "  a.json", reason: improperRE},
		// sha256sum's: text and binary, either case, escaped as it
		// escapes ("\\", "\n", "\r").
		{line: hex + "  a.json", name: "a.json", plain: true},
		{line: upper + "  a.json", name: "a.json", plain: true},
		{line: hex + " *a.json", name: "a.json", plain: true},
		{line: hex + "  *a.json", name: "*a.json", plain: true},
		{line: hex + " * a.json\r", name: " a.json", plain: true},
		{line: `\` + hex + `  we\\ird\nname\r.json`, name: "we\\ird\nname\r.json", plain: true},
		{line: `\` + hex + `  bad\`, reason: `^bad escape in the name$`},
		{line: hex + " a.json", reason: improperRE},
		{line: hex + "\ta.json", reason: improperRE},
		{line: hex + "  ", reason: improperRE},
		{line: hex + " ", reason: improperRE},
		{line: hex, reason: improperRE},
		{line: hex + "0  a.json", reason: `^a digest of 65 hex digits: only SHA-256 is supported, 64 hex digits$`},
		{line: hex[:63] + "  a.json", reason: `^a digest of 63 hex digits: only SHA-256 is supported, 64 hex digits$`},
		{line: hex[:32] + "  a.json", reason: `^a digest of 32 hex digits \(md5sum writes those\): only SHA-256 is supported, 64 hex digits$`},
		{line: hex[:40] + "  a.json", reason: `^a digest of 40 hex digits \(sha1sum writes those\): only SHA-256`},
		{line: hex[:56] + "  a.json", reason: `^a digest of 56 hex digits \(sha224sum writes those\): `},
		{line: hex + hex[:32] + "  a.json", reason: `^a digest of 96 hex digits \(sha384sum writes those\): `},
		{line: hex + hex + "  a.json", reason: `^a digest of 128 hex digits \(sha512sum and b2sum write those\): `},
		{line: "add  a.json", reason: improperRE},
		{line: "", reason: improperRE},
		{line: "\r", reason: improperRE},
		{line: "garbage", reason: improperRE},
		// The BSD tag of sha256sum --tag, and the spacing it also reads.
		{line: "SHA256 (a.json) = " + hex, name: "a.json", plain: true},
		{line: "SHA256 (a.json) = " + upper + "\r", name: "a.json", plain: true},
		{line: "SHA256(a.json)= " + hex, name: "a.json", plain: true},
		{line: "SHA256 (a.json)=" + hex, name: "a.json", plain: true},
		{line: "SHA256 (a (1).json) = " + hex, name: "a (1).json", plain: true},
		{line: "SHA256 ( a) = b.json) = " + hex, name: " a) = b.json", plain: true},
		{line: `\SHA256 (we\\ird\n.json) = ` + hex, name: "we\\ird\n.json", plain: true},
		{line: `\SHA256 (bad\q) = ` + hex, reason: `^bad escape in the name$`},
		{line: "SHA256 () = " + hex, reason: improperRE},
		{line: "SHA256 (a.json) " + hex, reason: improperRE},
		{line: "SHA256 (a.json = " + hex, reason: improperRE},
		{line: "SHA256 a.json) = " + hex, reason: improperRE},
		{line: "SHA256 (a.json) = " + hex + "x", reason: improperRE},
		{line: "SHA256 (a.json) = ", reason: improperRE},
		{line: "SHA256 (a.json) = " + hex[:40], reason: `^a digest of 40 hex digits \(sha1sum writes those\): only SHA-256`},
		{line: "SHA512 (a.json) = " + hex + hex, reason: `^a SHA512 digest: only SHA-256 is supported, "SHA256 \(NAME\) = <64 hex>"$`},
		{line: "MD5 (a.json) = " + hex[:32], reason: `^a MD5 digest: only SHA-256 is supported`},
		{line: "sha256 (a.json) = " + hex, reason: `^a sha256 digest: only SHA-256 is supported`},
	} {
		cl, reason := Parse([]byte(tt.line))
		if tt.reason != "" {
			if !regexp.MustCompile(tt.reason).MatchString(reason) {
				t.Errorf("Parse(%q): reason %q, want %q", tt.line, reason, tt.reason)
			}
			continue
		}
		if reason != "" || cl != (Line{Digest: want, Name: tt.name, Plain: tt.plain}) {
			t.Errorf("Parse(%q) = %+v, %q; want %q, %q, plain %v", tt.line, cl, reason, want, tt.name, tt.plain)
		}
	}
}

// TestNameRoundTrip checks that ReadName reverses AppendName for every
// name, and that escaped names are inert and one line.
func TestNameRoundTrip(t *testing.T) {
	names := append([]string{"a\\nb", `\x41`, `\u0041`, "\\"}, inerttest.Hostile...)
	for _, name := range names {
		line := string(AppendName([]byte("D  "), name))
		inerttest.AssertInert(t, "AppendName", []byte(line))
		escaped := strings.HasPrefix(line, `\`)
		if escaped != diag.NeedsEscape(name, diag.ModeName) {
			t.Errorf("AppendName(%q) = %q: leading backslash %v", name, line, escaped)
		}
		got := strings.TrimPrefix(line, "D  ")
		if escaped {
			got = strings.TrimPrefix(line, `\D  `)
			var ok bool
			if got, ok = ReadName(got); !ok {
				t.Errorf("ReadName of %q failed", line)
				continue
			}
		}
		if got != name {
			t.Errorf("name %q: round trip gives %q via %q", name, got, line)
		}
	}
	for _, bad := range []string{`\`, `a\q`, `\x4`, `\xzz`, `\u12`, `\ud83d`, `\ud83d\u0041`, `\udc00`} {
		if got, ok := ReadName(bad); ok {
			t.Errorf("ReadName(%q) = %q, want failure", bad, got)
		}
	}
}

func FuzzNameRoundTrip(f *testing.F) {
	for _, s := range inerttest.Hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		line := AppendName(nil, name)
		inerttest.AssertInert(t, "AppendName", line)
		got := string(line)
		if len(line) > 0 && line[0] == '\\' {
			var ok bool
			if got, ok = ReadName(got[1:]); !ok {
				t.Fatalf("ReadName of %q failed", line)
			}
		}
		if got != name {
			t.Fatalf("name %q: round trip gives %q via %q", name, got, line)
		}
	})
}

// TestAppendName: a name that needs escaping is escaped, and its line
// starts with a backslash.
func TestAppendName(t *testing.T) {
	for name, want := range map[string]string{
		"a.json":      "D  a.json",
		`a\b`:         `\D  a\\b`,
		"new\nline\r": `\D  new\nline\r`,
	} {
		if got := string(AppendName([]byte("D  "), name)); got != want {
			t.Errorf("AppendName(%q) = %q, want %q", name, got, want)
		}
	}
}
