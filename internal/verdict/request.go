package verdict

import (
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// Request is an approval request as "approve list --json" prints it, one
// JSON line each: the times in RFC 3339 with nanoseconds, UTC, those not
// reached yet left out.
type Request struct {
	EnvelopeDigest hashing.Digest `json:"envelope_digest"`
	State          string         `json:"state"`
	Tool           string         `json:"tool"`
	Server         string         `json:"server"`
	Class          string         `json:"class"`
	ActDigest      hashing.Digest `json:"act_digest"`
	Emitted        string         `json:"emitted"`
	Decided        string         `json:"decided,omitempty"`
	Closed         string         `json:"closed,omitempty"`
	Closing        string         `json:"closing,omitempty"`
}

// Summary returns r as approve list --json prints it.
func Summary(r *ledger.Request) Request {
	t := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return Request{
		EnvelopeDigest: r.EnvelopeDigest, State: r.State.String(), Tool: r.Tool, Server: r.Server, Class: r.Class,
		ActDigest: r.ActDigest, Emitted: t(r.EmittedAt), Decided: t(r.DecidedAt), Closed: t(r.ClosedAt), Closing: r.Closing,
	}
}

// Status returns r's state as approve list and show print it: "pending",
// "granted", or "closed (authority)", the state followed by why the gate
// closed it.
func Status(r *ledger.Request) string {
	if r.Closing != "" {
		return r.State.String() + " (" + r.Closing + ")"
	}
	return r.State.String()
}
