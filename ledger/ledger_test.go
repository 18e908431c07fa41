package ledger_test

import (
	"testing"

	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/internal/ledgertest"
)

// The bolt ledger runs the same checks in its own package.

func TestLedgerStates(t *testing.T) {
	ledgertest.States(t, ledger.NewMemory())
	for s, name := range map[ledger.State]string{0: "unknown", 1: "emitted", 2: "resolved", 3: "invalid"} {
		if s.String() != name {
			t.Errorf("State(%d) = %q, want %q", s, s, name)
		}
	}
}

// TestLedgerRecordsOutcome: each outcome that consumes an envelope is the
// one Lookup reports.
func TestLedgerRecordsOutcome(t *testing.T) {
	l := ledger.NewMemory()
	ledgertest.RecordOutcomes(t, l)
	ledgertest.CheckOutcomes(t, l)
}

// TestOutcomeNames: the names and the values are those package envelope's
// Resolver records and the bolt ledger stores; only the four are valid.
func TestOutcomeNames(t *testing.T) {
	want := map[ledger.Outcome]string{
		0:                       "invalid",
		ledger.OutcomeAuthority: "authority",
		ledger.OutcomeDeclined:  "declined",
		ledger.OutcomeAnswer:    "answer",
		ledger.OutcomeQuestion:  "question",
		5:                       "invalid",
		255:                     "invalid",
	}
	for o, name := range want {
		if o.String() != name || o.Valid() != (name != "invalid") {
			t.Errorf("Outcome(%d) = %q, valid %v; want %q", uint8(o), o, o.Valid(), name)
		}
	}
	for o, code := range map[ledger.Outcome]uint8{ledger.OutcomeAuthority: 1, ledger.OutcomeDeclined: 2, ledger.OutcomeAnswer: 3, ledger.OutcomeQuestion: 4} {
		if uint8(o) != code {
			t.Errorf("%v = %d, want the stored code %d", o, uint8(o), code)
		}
	}
}

func TestApprovals(t *testing.T) {
	ledgertest.Approvals(t, ledger.NewMemory())
	for s, name := range map[ledger.RequestState]string{0: "invalid", 1: "pending", 2: "granted", 3: "denied", 4: "closed", 5: "invalid"} {
		if s.String() != name || s.Valid() != (name != "invalid") {
			t.Errorf("RequestState(%d) = %q, valid %v; want %q", s, s, s.Valid(), name)
		}
	}
}
