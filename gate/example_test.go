package gate_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
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

	// The authorities the principal has given, by tool_use id: none yet
	// (ExampleGate_Authorize has one).
	held := map[string]*gate.Authority{}

	reply := []byte(`{"content":[
		{"type":"tool_use","id":"toolu_1","name":"search","input":{"q":"hotels in Zürich"}},
		{"type":"tool_use","id":"toolu_2","name":"pay","input":{"amount_cents":25000,"to":"hotel"}}]}`)
	var msg struct {
		Content []json.RawMessage
	}
	if err := json.Unmarshal(reply, &msg); err != nil {
		panic(err)
	}
	for _, block := range msg.Content {
		var id struct{ ID string }
		json.Unmarshal(block, &id) // a block that is not an object: Authorize denies it as malformed_call
		d := g.Authorize(context.Background(), gate.Call{Src: block, Authority: held[id.ID]})
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

// A call at or above the threshold passes only on an authority: the
// principal's resolution of an envelope the host emitted, whose selected
// option's action is this call's act. Authorize consumes it in the ledger,
// so it allows the call once; presented again, it is denied.
func ExampleGate_Authorize() {
	dir, err := os.MkdirTemp("", "gate")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		log.Fatal(err)
	}
	receipts, err := receipt.Open(filepath.Join(dir, "receipts.jsonl"), receipt.NewSigner(key), receipt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer receipts.Close()
	l := ledger.NewMemory() // bolt.Open for a ledger on disk
	policy := &gate.Policy{Version: "v1", Tools: map[string]gate.Class{"pay": gate.Financial}}
	g, err := gate.New(gate.Config{Policy: policy, Ledger: l, Receipts: receipts})
	if err != nil {
		log.Fatal(err)
	}

	// The host asks before it pays: option 0's action is the act of the
	// call it will make, and the envelope is recorded as emitted.
	pay, err := act.New("", "pay", []byte(`{"amount_cents":25000,"to":"hotel"}`))
	if err != nil {
		log.Fatal(err)
	}
	b := &envelope.Builder{Synopsis: "Book the hotel.", Offer: "Ask before paying.", Stem: "Pay the hotel 250.00?"}
	b.AddOption("Pay", "The room is held until noon.", pay.Canonical)
	b.AddOption("Wait", "Prices may drop.", []byte(`{"wait":true}`))
	env, err := b.Build()
	if err != nil {
		log.Fatal(err)
	}
	if err := l.Emit(env.Digest()); err != nil {
		log.Fatal(err)
	}

	// The principal selects option 0; the model's call carries the same
	// act (members in any order: the act is canonical).
	authority := &gate.Authority{
		Envelope:   env,
		Resolution: fmt.Appendf(nil, `{"envelope_digest":%q,"resolution":"option","option_idx":0}`, env.Digest()),
		Expires:    time.Now().Add(time.Hour),
	}
	call := []byte(`{"name":"pay","arguments":{"to":"hotel","amount_cents":25000}}`)
	for range 2 {
		d := g.Authorize(context.Background(), gate.Call{Src: call, Authority: authority})
		fmt.Println(d.Allow, d.Reason, "receipt", d.Receipt.Seq)
	}
	// Output:
	// true authority receipt 1
	// false consumed receipt 2
}

// ParsePolicy reads the policy a host configures; a misspelt member is an
// error, never ignored.
func ExampleParsePolicy() {
	p, err := gate.ParsePolicy([]byte(`{
		"policy_version": "2026-12-01",
		"threshold": "FINANCIAL",
		"tools": {"search_hotels": "READ_ONLY", "book_hotel": "FINANCIAL"}
	}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Version, p.Tools["search_hotels"], p.Tools["book_hotel"])

	_, err = gate.ParsePolicy([]byte(`{"policy_version":"v1","tools":{},"treshold":"READ_ONLY"}`))
	fmt.Println(err)
	// Output:
	// 2026-12-01 READ_ONLY FINANCIAL
	// gate: policy: "/treshold": unknown member (want policy_version, server, threshold, tools, number_profiles, principals, max_authority_age, elicitation)
}

// A gate that asks: with Config.Approvals, a call that needs authority and
// carries none becomes an approval request, a binding-moment envelope for
// its act, and is denied (approval_pending). The host shows the envelope to
// a principal and records the principal's signed decision in the store
// (here alice grants it, in process; bbdigest approve grant does it from a
// terminal); the agent's retry of the identical call is then allowed once,
// and the next one asks again.
func ExampleConfig_approvals() {
	dir, err := os.MkdirTemp("", "gate")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	_, gateKey, _ := ed25519.GenerateKey(nil)
	alicePub, alice, _ := ed25519.GenerateKey(nil) // the principal's key, kept from the agent
	receipts, err := receipt.Open(filepath.Join(dir, "receipts.jsonl"), receipt.NewSigner(gateKey), receipt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer receipts.Close()
	policy := &gate.Policy{
		Version:    "v1",
		Tools:      map[string]gate.Class{"pay": gate.Financial},
		Principals: []gate.Principal{{Name: "alice", PublicKey: alicePub}},
	}
	store := ledger.NewMemory() // the envelopes and the approval requests; ledger/bolt on disk
	g, err := gate.New(gate.Config{Policy: policy, Ledger: store, Receipts: receipts, Approvals: store})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	call := gate.Call{Src: []byte(`{"type":"tool_use","id":"toolu_1","name":"pay","input":{"amount_cents":25000,"to":"hotel"}}`)}

	d := g.Authorize(ctx, call)
	fmt.Println(d.Reason)

	// The host's interface shows the request (envelope.RenderText) and
	// alice chooses "Allow this call once".
	env, err := gate.RequestEnvelope(d.Approval)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %q or %q\n", env.Stem(), env.Options()[gate.AllowOption].Label, env.Options()[gate.DenyOption].Label)
	// Her decision, signed with her key and recorded in the store:
	if err := gate.Decide(store, d.Approval, true, gate.AllowOption, alice, time.Now()); err != nil {
		log.Fatal(err)
	}

	d = g.Authorize(ctx, call) // the agent retries
	fmt.Println(d.Allow, d.Reason, d.PrincipalName)
	d = g.Authorize(ctx, call) // and again: a new question
	fmt.Println(d.Allow, d.Reason)
	// Output:
	// approval_pending
	// Should the call of tool "pay" run once, as listed?: "Allow this call once" or "Deny"
	// true authority alice
	// false approval_pending
}
