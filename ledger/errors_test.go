package ledger_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// TestErrorDetail: an *Error's message is "ledger: " and its Detail, which
// names the operation and the file when there are some, and wraps its
// cause for errors.Is.
func TestErrorDetail(t *testing.T) {
	cause := fmt.Errorf("%w by another process (waited 1s)", ledger.ErrLocked)
	for _, tc := range []struct {
		e      *ledger.Error
		detail string
	}{
		{&ledger.Error{Op: "open", Path: "agent.db", Err: cause}, "open ledger agent.db: locked by another process (waited 1s)"},
		{&ledger.Error{Path: "agent.db", Err: fs.ErrNotExist}, "ledger agent.db: file does not exist"},
		{&ledger.Error{Op: "close", Err: ledger.ErrClosed}, "close: closed"},
		{&ledger.Error{Err: ledger.ErrCorrupt}, "corrupt"},
	} {
		if got := tc.e.Detail(); got != tc.detail {
			t.Errorf("%#v: Detail() = %q, want %q", tc.e, got, tc.detail)
		}
		if got := tc.e.Error(); got != "ledger: "+tc.detail {
			t.Errorf("%#v: Error() = %q", tc.e, got)
		}
		if !errors.Is(tc.e, tc.e.Err) {
			t.Errorf("%#v does not wrap its cause", tc.e)
		}
	}
}

// TestMemoryErrors: Memory's errors are *Errors, with the sentinel behind.
func TestMemoryErrors(t *testing.T) {
	l := ledger.NewMemory()
	d := hashing.Sum([]byte("e"))
	l.Emit(d)
	if ok, err := l.Resolve(d, 0); ok || err == nil {
		t.Fatalf("Resolve with outcome 0: %v, %v", ok, err)
	} else if e, isErr := errors.AsType[*ledger.Error](err); !isErr || e.Detail() != "outcome invalid does not resolve an envelope" {
		t.Errorf("Resolve with outcome 0: %v", err)
	}
	l.Resolve(d, ledger.OutcomeAuthority)
	err := l.Emit(d)
	e, ok := errors.AsType[*ledger.Error](err)
	if !ok || !errors.Is(err, ledger.ErrAlreadyResolved) || err.Error() != "ledger: envelope already resolved: "+d.String() {
		t.Errorf("Emit of a resolved envelope: %v (%#v)", err, e)
	}
}
