package jsonread_test

import (
	"testing"

	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// BenchmarkNameSetMatch measures NameSet.Match over the names act reads (a call's
// and a message's) for member names it meets that it does not read (id,
// _meta, call_id, status, progressToken), and for spellings of ones it
// does (Tool_Calls, paramſ): the cost act pays per member name.
func BenchmarkNameSetMatch(b *testing.B) {
	s := jsonread.NewNameSet("name", "arguments", "input", "args", "type", "function", "params", "Params", "method", "jsonrpc",
		"choices", "tool_calls", "function_call", "content", "output", "role", "object", "message")
	for _, n := range []string{"id", "_meta", "call_id", "status", "progressToken", "Tool_Calls", "paramſ"} {
		b.Run("name="+n, func(b *testing.B) {
			nb := []byte(n)
			b.SetBytes(int64(len(nb)))
			b.ReportAllocs()
			for b.Loop() {
				s.Match(nb)
			}
		})
	}
}
