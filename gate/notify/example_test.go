package notify_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/gate/notify"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// A Go host whose gate asks its principals (Config.Approvals) and tells
// them through a webhook: Wrap sends each new request, after the store
// has it, while the gate denies the call approval_pending without waiting.
// The receiver checks each delivery with the gate's public key and drops
// duplicates by the envelope digest header.
func ExampleWrap() {
	gatePub, gateKey, _ := ed25519.GenerateKey(nil)
	alice, _, _ := ed25519.GenerateKey(nil)

	// The receiver: a relay to chat or a pager, say.
	got := make(chan string, 1)
	seen := map[string]bool{}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		p, err := notify.Verify(gatePub, r.Header, body, time.Now())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest) // not retried
			return
		}
		if d := r.Header.Get(notify.HeaderEnvelopeDigest); !seen[d] {
			seen[d] = true
			got <- fmt.Sprintf("%s wants %s (%s); decide at %s", p.Class, p.Tool, p.Server, p.ApproveURL)
		}
	}))
	defer hook.Close()

	n, err := notify.New(notify.Config{URLs: []string{hook.URL}, Key: gateKey,
		ApproveURL: "http://127.0.0.1:8080/?token=the-page-secret-never-sent-0123456789"})
	if err != nil {
		panic(err)
	}
	defer n.Close(context.Background())

	dir, _ := os.MkdirTemp("", "notify")
	defer os.RemoveAll(dir)
	log, err := receipt.Open(filepath.Join(dir, "receipts.jsonl"), receipt.NewSigner(gateKey), receipt.Options{})
	if err != nil {
		panic(err)
	}
	defer log.Close()
	store := ledger.NewMemory() // the ledger and its approvals
	g, err := gate.New(gate.Config{
		Policy:    &gate.Policy{Version: "v1", Tools: map[string]gate.Class{"pay": gate.Financial}, Server: "shop", Principals: []gate.Principal{{Name: "alice", PublicKey: alice}}},
		Ledger:    store,
		Receipts:  log,
		Approvals: notify.Wrap(store, n),
	})
	if err != nil {
		panic(err)
	}

	call := gate.Call{Src: []byte(`{"type":"tool_use","id":"toolu_1","name":"pay","input":{"amount_cents":25000,"to":"hotel"}}`)}
	fmt.Println(g.Authorize(context.Background(), call).Reason)
	fmt.Println(g.Authorize(context.Background(), call).Reason) // the same request: not sent again
	fmt.Println(<-got)
	// Output:
	// approval_pending
	// approval_pending
	// FINANCIAL wants pay (shop); decide at http://127.0.0.1:8080/
}
