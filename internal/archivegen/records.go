package archivegen

// The records: values built of string, int64, bool, []any and object,
// drawn from rng.

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// member is one member of an object.
type member struct {
	name  string
	value any
}

// object is a JSON object, its members in the order they were made.
type object []member

// words are the vocabulary of generated text: English, accents, other
// scripts, an emoji, and words with characters that JSON escapes.
var words = []string{
	"share", "the", "travel", "dates", "and", "withhold", "passport", "number",
	"booking", "service", "asks", "for", "reservation", "check-in", "release",
	"renew", "certificate", "key", "clients", "pinned", "window", "rotate",
	"invoice", "approve", "payment", "vendor", "account", "limit", "review",
	"café", "naïve", "Zürich", "résumé", "São", "Paulo", "Kraków", "Ærøskøbing",
	"façade", "jalapeño", "Straße", "Øresund", "crème", "brûlée", "İstanbul",
	"東京", "dünya", "ελληνικά", "Привет", "مرحبا", "🙂", "€120",
	"tab\there", `quote"d`, `back\slash`, "line\nbreak", "a/b",
}

// text returns a sentence of n words.
func text(rng *rand.Rand, n int) string {
	var b []byte
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		w := words[rng.IntN(len(words))]
		if i == 0 && w[0] >= 'a' && w[0] <= 'z' {
			b = append(b, w[0]-'a'+'A')
			w = w[1:]
		}
		b = append(b, w...)
	}
	return string(b) + "."
}

// digestText returns a "sha256:" digest of 64 random hex digits.
func digestText(rng *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := []byte("sha256:")
	for range 64 {
		b = append(b, hex[rng.IntN(16)])
	}
	return string(b)
}

// ident returns prefix and n random letters and digits, as the ids of
// tool calls are.
func ident(rng *rand.Rand, prefix string, n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte(prefix)
	for range n {
		b = append(b, chars[rng.IntN(len(chars))])
	}
	return string(b)
}

// envelope returns a binding-moment envelope (§4, §6.4 shape), about 1 to
// 2 KB written compact.
func envelope(rng *rand.Rand) object {
	list := func(n, words int) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = text(rng, words+rng.IntN(words))
		}
		return l
	}
	options := make([]any, 2+rng.IntN(3))
	for i := range options {
		options[i] = object{
			{"label", text(rng, 3+rng.IntN(4))},
			{"reasoning", text(rng, 6+rng.IntN(10))},
			{"action_digest", digestText(rng)},
		}
	}
	env := object{
		{"synopsis", text(rng, 6+rng.IntN(8))},
		{"findings", list(2+rng.IntN(3), 6)},
		{"recommendations", list(1+rng.IntN(3), 5)},
		{"offer", text(rng, 4+rng.IntN(4))},
		{"question", object{
			{"stem", text(rng, 5+rng.IntN(6))},
			{"options", options},
			{"recommended_idx", int64(rng.IntN(len(options)))},
			{"hatches", object{{"free_text", rng.IntN(4) != 0}, {"dialogue", rng.IntN(4) != 0}}},
		}},
	}
	if rng.IntN(5) == 0 {
		env = append(env, member{"meta", object{
			{"decision_class", []string{"recompute", "escalate", "confirm"}[rng.IntN(3)]},
			{"calibration_note", text(rng, 8)},
		}})
	}
	return env
}

// toolArgs returns a tool name and its arguments.
func toolArgs(rng *rand.Rand) (string, object) {
	switch rng.IntN(4) {
	case 0:
		guests := make([]any, 1+rng.IntN(3))
		for i := range guests {
			guests[i] = object{{"name", words[rng.IntN(len(words))]}, {"age", int64(1 + rng.IntN(90))}}
		}
		return "book_hotel", object{
			{"city", []string{"Zürich", "São Paulo", "Kraków", "東京", "İstanbul"}[rng.IntN(5)]},
			{"check_in", fmt.Sprintf("2026-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28))},
			{"nights", int64(1 + rng.IntN(14))},
			{"max_price_cents", int64(rng.IntN(100000))},
			{"guests", guests},
			{"notes", text(rng, 3+rng.IntN(8))},
		}
	case 1:
		to := make([]any, 1+rng.IntN(3))
		for i := range to {
			to[i] = ident(rng, "", 6) + "@example.org"
		}
		return "send_email", object{{"to", to}, {"subject", text(rng, 4)}, {"body", text(rng, 20+rng.IntN(40))}}
	case 2:
		return "transfer_funds", object{
			{"from_account", ident(rng, "CH", 19)},
			{"to_account", ident(rng, "DE", 20)},
			{"amount_cents", int64(rng.Int64N(1 << 40))},
			{"currency", []string{"CHF", "EUR", "USD", "JPY"}[rng.IntN(4)]},
			{"memo", text(rng, 5)},
		}
	}
	return "run_query", object{
		{"sql", "SELECT id, total FROM invoices WHERE vendor = $1 AND total > $2"},
		{"params", []any{text(rng, 2), int64(rng.IntN(1 << 20))}},
		{"timeout_ms", int64(1000 * (1 + rng.IntN(30)))},
	}
}

// toolCall returns a tool-call act in one of the three vendor shapes.
func toolCall(rng *rand.Rand, i int64) any {
	name, args := toolArgs(rng)
	switch rng.IntN(3) {
	case 0: // OpenAI-style tool_calls entry: the arguments are a JSON string
		return object{
			{"id", ident(rng, "call_", 24)},
			{"type", "function"},
			{"function", object{{"name", name}, {"arguments", string(appendStyled(nil, args, style{space: rng.IntN(2) == 0}, rng))}}},
		}
	case 1: // Anthropic-style tool_use block
		return object{{"type", "tool_use"}, {"id", ident(rng, "toolu_", 24)}, {"name", name}, {"input", args}}
	}
	// MCP tools/call request (JSON-RPC 2.0)
	return object{
		{"jsonrpc", "2.0"},
		{"id", i},
		{"method", "tools/call"},
		{"params", object{{"name", name}, {"arguments", args}}},
	}
}

// mixedRecord returns a record of a mixed archive; i is its number.
func mixedRecord(rng *rand.Rand, i int64) any {
	switch n := rng.IntN(20); {
	case n < 6:
		return envelope(rng)
	case n < 8: // a tool result carrying an envelope (§8.1)
		return object{
			{"content", []any{object{{"type", "text"}, {"text", text(rng, 10)}}}},
			{"isError", false},
			{"binding_moment", envelope(rng)},
		}
	case n < 14:
		return toolCall(rng, i)
	case n < 17: // a resolution (§7.3)
		res := object{{"envelope_digest", digestText(rng)}}
		switch rng.IntN(4) {
		case 0:
			res = append(res, member{"resolution", "option"}, member{"option_idx", int64(rng.IntN(4))})
		case 1:
			res = append(res, member{"resolution", "answer"}, member{"answer", text(rng, 6)})
		case 2:
			res = append(res, member{"resolution", "question"})
		default:
			res = append(res, member{"resolution", "declined"})
		}
		return object{{"binding_moment_resolution", res}}
	}
	// an enforcement receipt
	return object{{"receipt", object{
		{"seq", i},
		{"ts", fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02dZ", 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60))},
		{"act_digest", digestText(rng)},
		{"decision", []string{"allow", "deny"}[rng.IntN(2)]},
		{"prev", digestText(rng)},
		{"tool", []string{"book_hotel", "send_email", "transfer_funds", "run_query"}[rng.IntN(4)]},
		{"reason", text(rng, 4)},
		{"key_id", "k" + strconv.Itoa(rng.IntN(16))},
	}}}
}
