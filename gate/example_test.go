package gate_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// A host loop gating the tool calls of a model's reply (Anthropic's
// Messages API shape here; OpenAI's tool_calls and MCP's tools/call read the
// same way). No call runs unless Authorize allows it, and every decision is
// on disk, signed and chained, before the loop goes on.
func Example() {
	dir, _ := os.MkdirTemp("", "gate")
	defer os.RemoveAll(dir)
	_, key, _ := ed25519.GenerateKey(nil)
	log, err := receipt.Open(filepath.Join(dir, "receipts.jsonl"), receipt.NewSigner(key), receipt.Options{})
	if err != nil {
		panic(err)
	}
	defer log.Close()
	policy := &gate.Policy{Version: "v1", Tools: map[string]gate.Class{"search": gate.ReadOnly, "pay": gate.Financial}}
	g, err := gate.New(gate.Config{Policy: policy, Ledger: ledger.NewMemory(), Receipts: log})
	if err != nil {
		panic(err)
	}

	reply := []byte(`{"content":[
		{"type":"tool_use","id":"toolu_1","name":"search","input":{"q":"hotels in Zürich"}},
		{"type":"tool_use","id":"toolu_2","name":"pay","input":{"amount_cents":25000,"to":"hotel"}}]}`)
	var msg struct{ Content []json.RawMessage }
	json.Unmarshal(reply, &msg)
	for _, block := range msg.Content {
		d := g.Authorize(context.Background(), gate.Call{Src: block})
		if !d.Allow {
			fmt.Println("refused:", d.Reason, "receipt", d.Receipt.Seq) // a tool_result with is_error
			continue
		}
		fmt.Println("invoke", d.Act.Tool, "receipt", d.Receipt.Seq)
	}
	// Output:
	// invoke search receipt 1
	// refused: no_authority receipt 2
}
