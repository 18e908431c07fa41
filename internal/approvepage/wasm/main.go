//go:build js && wasm

// Command wasm is the part of the approval page that runs in the principal's
// browser: bbdigest's own envelope parser, canon (strict profile) and hashing,
// compiled to WebAssembly (GOOS=js GOARCH=wasm), so that the page computes the
// digest of the envelope bytes it was sent and renders those same bytes,
// instead of taking the server's word for either.
//
// It sets one global, bbdigestApprovePage, an object with two functions:
//
//	check(bytes: Uint8Array) -> {
//	  ok: boolean,           // the bytes are a well-formed envelope
//	  error: string,         // why not, when ok is false (escaped, one line)
//	  digest: string,        // the envelope digest, "sha256:" + 64 hex (§6.2)
//	  text: string,          // envelope.RenderText: the §9 plain-text rendering
//	  options: number,       // the number of options (slot 6)
//	  recommended: number,   // recommended_idx (slot 7)
//	  labels: string[],      // each option's label, quoted and escaped
//	  freeText: boolean,     // the hatches of slot 8
//	  dialogue: boolean,
//	}
//	quote(s: string) -> string // s in double quotes with every control,
//	                           // format (bidi) and unassigned character escaped
//
// The generated module is internal/approvepage/assets/approve.wasm; see gen.go
// there for how it is built.
package main

import (
	"syscall/js"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/internal/diag"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("check", js.FuncOf(check))
	api.Set("quote", js.FuncOf(quote))
	js.Global().Set("bbdigestApprovePage", api)
	select {} // serve calls from the page until it is closed
}

// check reads args[0], a Uint8Array holding the envelope's bytes as recorded.
func check(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeObject || !args[0].InstanceOf(js.Global().Get("Uint8Array")) {
		return map[string]any{"ok": false, "error": "approve page: check takes one Uint8Array"}
	}
	src := make([]byte, args[0].Get("length").Int())
	js.CopyBytesToGo(src, args[0])
	e, err := envelope.Parse(src)
	if err != nil {
		return map[string]any{"ok": false, "error": diag.Text(err.Error())}
	}
	labels := make([]any, e.NumOptions())
	for i, o := range e.Options() {
		labels[i] = diag.Quote(o.Label)
	}
	h := e.Hatches()
	return map[string]any{
		"ok":          true,
		"error":       "",
		"digest":      e.Digest().String(),
		"text":        envelope.RenderText(e),
		"options":     e.NumOptions(),
		"recommended": e.RecommendedIdx(),
		"labels":      labels,
		"freeText":    h.FreeText,
		"dialogue":    h.Dialogue,
	}
}

// quote returns args[0], a string, quoted and escaped by diag.Quote.
func quote(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeString {
		return diag.Quote("")
	}
	return diag.Quote(args[0].String())
}
