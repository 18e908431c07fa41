package roff

import "testing"

// TestEscape checks the escaping of each character roff would not
// print as itself.
func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`plain text 1.5`, `plain text 1.5`},
		{`a\b`, `a\eb`},
		{`\fB`, `\efB`},
		{`--profile`, `\-\-profile`},
		{`'quoted' "double"`, `\(aqquoted\(aq \(dqdouble\(dq`},
		{"`x`", `\(gax\(ga`},
		{`2^53 ~x`, `2\(ha53 \(tix`},
		{"§6.3 …", `\[u00A7]6.3 \[u2026]`},
		{"😀", `\[u1F600]`},
		{"a\x1bb", "ab"},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{`.SH x`, `\&.SH x`},
		{`'br`, `\(aqbr`},
		{`  .x`, `  .x`},
		{`x.`, `x.`},
	} {
		if got := Line(tt.in); got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := Dedent("  a\n\n    b\n  c\n"), "a\n\n  b\nc\n"; got != want {
		t.Errorf("Dedent = %q, want %q", got, want)
	}
}

// TestWrap checks Wrap.
func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		text          string
		indent, width int
		want          string
	}{
		{"a b c", 0, 3, "a b\nc"},
		{"aa bb cc", 2, 7, "aa bb\n  cc"},
		{"  many   spaces  ", 0, 80, "many spaces"},
		{"longword x", 0, 4, "longword\nx"},
		{"", 4, 10, ""},
	} {
		if got := Wrap(tt.text, tt.indent, tt.width); got != tt.want {
			t.Errorf("Wrap(%q, %d, %d) = %q, want %q", tt.text, tt.indent, tt.width, got, tt.want)
		}
	}
}
