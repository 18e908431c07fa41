package gate

import (
	"encoding/json"
	"errors"
)

// MetaAuthority returns the JSON text of params._meta[MetaKey] in the
// MCP request src (a JSON-RPC request, its params, or docker/mcp-gateway's
// {"Params":...}), nil when there is none. An input that is not such a
// request has none: the act, read by the gate, says what is wrong with it.
// A _meta that is there but not an object is an error, as is a request
// with both params and Params. Its answer is a Call's AuthorityJSON and
// AuthorityErr, as bbdigest gate fills them for the call on its stdin.
func MetaAuthority(src []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(src, &top) != nil {
		return nil, nil
	}
	params, lower := top["params"]
	if p, ok := top["Params"]; ok {
		if lower {
			return nil, errors.New("both params and Params: which carries the authority?")
		}
		params = p
	}
	if params == nil {
		if _, ok := top["name"]; !ok {
			return nil, nil
		}
		params = src // bare params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return nil, nil
	}
	raw, ok := p["_meta"]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
		return nil, errors.New("params._meta is not an object")
	}
	a, ok := meta[MetaKey]
	if !ok {
		return nil, nil
	}
	return a, nil
}
