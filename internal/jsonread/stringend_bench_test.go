package jsonread_test

import (
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// BenchmarkStringEnd reads strings of the lengths and kinds the readers
// meet, each followed by the rest of a document (StringEnd's slice runs
// to the document's end): a member name, a label, a sentence, a
// paragraph, and OpenAI's arguments, a JSON text escaped into a string.
func BenchmarkStringEnd(b *testing.B) {
	tail := `,"next":"value"}` + strings.Repeat(`,"k":"v"`, 16)
	inputs := []struct{ name, s string }{
		{"name-8", `"currency"`},
		{"label-24", `"Check-in withhold for r."`},
		{"sentence-60", `"Account Привет jalapeño for account certificate Paulo İstan."`},
		{"paragraph-300", `"` + strings.Repeat("Reservation rotate crème back ", 10) + `"`},
		{"arguments-escaped", `"{\"city\":\"Zürich\",\"units\":\"metric\",\"days\":3}"`},
	}
	for _, in := range inputs {
		doc := []byte(in.s + tail)
		want := len(in.s)
		b.Run("input="+in.name, func(b *testing.B) {
			b.SetBytes(int64(want))
			for b.Loop() {
				if end, _ := jsonread.StringEnd(doc, 0); end != want {
					b.Fatalf("end %d, want %d", end, want)
				}
			}
		})
	}
}
