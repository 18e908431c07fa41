//go:build !wasm

// bbolt does not build for wasm: elsewhere, the Resolver's tests run over
// the bolt ledger too.

package envelope

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

func init() {
	resLedgers = append(resLedgers, resLedger{"bolt", func(t testing.TB) ledger.Ledger {
		l, err := bolt.Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}})
}

// TestResolverClosedLedger: a Resolver over a closed ledger returns its
// error, and no authority.
func TestResolverClosedLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	d := env.Digest()
	l.Emit(d)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := NewResolver(l).Resolve(context.Background(), env, resJSON(d.String(), "option", `"option_idx":0`), []byte(resAction0))
	if !errors.Is(err, ledger.ErrClosed) || res.Authorizes() {
		t.Errorf("Resolver after Close = %+v, %v", res, err)
	}
	// The bolt ledger's own *ledger.Error, as it is.
	if le, ok := errors.AsType[*ledger.Error](err); !ok || err != error(le) || le.Path != path {
		t.Errorf("Resolver after Close: %v, want the ledger's *ledger.Error", err)
	}
}
