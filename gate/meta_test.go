package gate_test

import (
	"testing"

	"github.com/bbdigest/bbdigest/gate"
)

// TestMetaAuthority: the authority's JSON text found in each form of an
// MCP call (a JSON-RPC request, its bare params, docker/mcp-gateway's
// Params), nil where there is none, and the errors of a _meta that is not
// an object and of a call with both params and Params.
func TestMetaAuthority(t *testing.T) {
	const a = `{"envelope":{"x":1},"resolution":{}}`
	for _, tc := range []struct {
		name, src, want, err string
	}{
		{"json-rpc", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{},"_meta":{"dev.bbdigest/authority":` + a + `}}}`, a, ""},
		{"bare params", `{"name":"pay","arguments":{},"_meta":{"other":1,"dev.bbdigest/authority":` + a + `}}`, a, ""},
		{"gateway", `{"Params":{"name":"pay","_meta":{"dev.bbdigest/authority":` + a + `}},"Session":{}}`, a, ""},
		{"not an object", `{"params":{"name":"pay","_meta":{"dev.bbdigest/authority":"text"}}}`, `"text"`, ""},
		{"no key", `{"params":{"name":"pay","_meta":{"progressToken":1}}}`, "", ""},
		{"null meta", `{"params":{"name":"pay","_meta":null}}`, "", ""},
		{"no meta", `{"params":{"name":"pay"}}`, "", ""},
		{"params not an object", `{"params":[1]}`, "", ""},
		{"no params, no name", `{"type":"tool_use","input":{}}`, "", ""},
		{"not JSON", `{"params":`, "", ""},
		{"meta an array", `{"params":{"name":"pay","_meta":[1]}}`, "", "params._meta is not an object"},
		{"meta a string", `{"name":"pay","_meta":"x"}`, "", "params._meta is not an object"},
		{"both params", `{"params":{"name":"pay"},"Params":{"name":"pay"}}`, "", "both params and Params: which carries the authority?"},
	} {
		got, err := gate.MetaAuthority([]byte(tc.src))
		if string(got) != tc.want || (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("%s: MetaAuthority = %q, %v; want %q, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}
