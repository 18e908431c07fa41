// Package escbitstest holds what the tests and benchmarks of the vector
// paths over escape-dense strings share (canon's escrun kernel and
// jsonread's AVX-512 unquote, both built on escbits): a generator of such
// strings, each test with its own alphabet, and the OpenAI arguments
// string of the act benchmarks.
package escbitstest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"

	"github.com/bbdigest/bbdigest/internal/demo"
)

// Dense returns about n bytes (at least n, less than n plus the longest
// part) of parts drawn from common, and from rare with probability mix
// out of 100: the body of an escape-dense JSON string when common holds
// mostly \" and \\ escapes (JSON text held in a string).
func Dense(r *rand.Rand, n, mix int, common, rare []string) []byte {
	var b []byte
	for len(b) < n {
		if r.IntN(100) < mix {
			b = append(b, rare[r.IntN(len(rare))]...)
		} else {
			b = append(b, common[r.IntN(len(common))]...)
		}
	}
	return b
}

// Arguments returns the arguments of the demo tool call (internal/demo's
// tool-call.json) made compact and written as one JSON string, quotes
// included: the arguments string of an OpenAI call, as act's benchmarks
// give it (\" and \\ escapes every few bytes, \\u escapes, a surrogate
// pair, \\/).
func Arguments() string {
	var call struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(demo.ToolCall(), &call); err != nil {
		panic("escbitstest: the demo tool call: " + err.Error())
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, call.Params.Arguments); err != nil {
		panic("escbitstest: the demo arguments: " + err.Error())
	}
	q, err := json.Marshal(compact.String())
	if err != nil {
		panic("escbitstest: " + err.Error())
	}
	return string(q)
}
