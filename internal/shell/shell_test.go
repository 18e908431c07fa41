package shell

import "testing"

// TestQuote: a word is left as it is only when it holds no character a
// POSIX shell treats specially; else it is single-quoted, a quote in it
// ending the quotes, escaped, and starting them again.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{"a.jsonl": "a.jsonl", "--out": "--out", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$x": "'$x'", "ü": "'ü'", "a\nb": "'a\nb'"} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestFishQuote: fish escapes a quote and a backslash inside single
// quotes with a backslash.
func TestFishQuote(t *testing.T) {
	for in, want := range map[string]string{"a": "'a'", "it's": `'it\'s'`, `a\b`: `'a\\b'`, "": "''"} {
		if got := FishQuote(in); got != want {
			t.Errorf("FishQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
