package gate_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// The calls of these tests, in Anthropic's shape.
const (
	payCall    = `{"type":"tool_use","id":"toolu_01","name":"pay","input":{"amount_cents":1999,"to":"acct-7"}}`
	payOther   = `{"type":"tool_use","id":"toolu_02","name":"pay","input":{"amount_cents":99999,"to":"acct-7"}}`
	searchCall = `{"type":"tool_use","id":"toolu_03","name":"search","input":{"q":"hotels"}}`
	rebootCall = `{"type":"tool_use","id":"toolu_04","name":"reboot","input":{}}`
)

// payOpenAI and payMCP are payCall in the other vendors' shapes.
const (
	payOpenAI = `{"id":"call_9","type":"function","function":{"name":"pay","arguments":"{\"to\":\"acct-7\",\"amount_cents\":1999}"}}`
	payMCP    = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pay","arguments":{"to":"acct-7","amount_cents":1999},"_meta":{"progressToken":3}}}`
)

var testPolicy = &gate.Policy{
	Version: "test-1",
	Tools:   map[string]gate.Class{"pay": gate.Financial, "search": gate.ReadOnly, "note": gate.Ordinary},
}

type fixture struct {
	t      *testing.T
	g      *gate.Gate
	ledger ledger.Ledger
	log    *receipt.Log
	path   string
	pub    ed25519.PublicKey
	now    time.Time
}

func newSigner(t testing.TB) (*receipt.Signer, ed25519.PublicKey) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return receipt.NewSigner(priv), pub
}

func newFixture(t *testing.T, l ledger.Ledger) *fixture {
	t.Helper()
	return newFixtureWith(t, l, testPolicy)
}

// newFixtureWith is newFixture with policy p, whose Version must be
// testPolicy's (check compares the receipts' with it).
func newFixtureWith(t *testing.T, l ledger.Ledger, p *gate.Policy) *fixture {
	t.Helper()
	s, pub := newSigner(t)
	path := filepath.Join(t.TempDir(), "receipts.jsonl")
	log, err := receipt.Open(path, s, receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	if l == nil {
		l = ledger.NewMemory()
	}
	f := &fixture{t: t, ledger: l, log: log, path: path, pub: pub, now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	f.g, err = gate.New(gate.Config{Policy: p, Ledger: l, Receipts: log, Now: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// parseAct reads a call as the gate does.
func parseAct(t testing.TB, call string) *act.Act {
	t.Helper()
	a, err := act.Parse([]byte(call), act.ShapeAuto, "")
	if err != nil {
		t.Fatalf("act.Parse(%s): %v", call, err)
	}
	return a
}

// authority builds and emits an envelope whose first option's action is the
// act of call and whose second is another act, and returns an authority
// selecting option idx, valid for an hour from f.now.
func (f *fixture) authority(call string, idx int) *gate.Authority {
	f.t.Helper()
	a := parseAct(f.t, call)
	other := parseAct(f.t, payOther)
	if bytes.Equal(a.Canonical, other.Canonical) {
		other = parseAct(f.t, searchCall)
	}
	b := &envelope.Builder{
		Synopsis:        "Pay the invoice from acct-7 today.",
		Findings:        []string{"The invoice is due today."},
		Recommendations: []string{"Pay it now."},
		Offer:           "Ask for the invoice.",
		Stem:            "Should the invoice be paid?",
		Hatches:         envelope.Hatches{FreeText: true, Dialogue: true},
	}
	b.AddOption("Pay 19.99", "It is due.", a.Canonical)
	b.AddOption("Pay the other amount", "A different act.", other.Canonical)
	env, err := b.Build()
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.ledger.Emit(env.Digest()); err != nil {
		f.t.Fatal(err)
	}
	res := fmt.Sprintf(`{"envelope_digest":%q,"resolution":"option","option_idx":%d}`, env.Digest(), idx)
	return &gate.Authority{Envelope: env, Resolution: []byte(res), Expires: f.now.Add(time.Hour)}
}

func (f *fixture) authorize(call string, auth *gate.Authority) gate.Decision {
	return f.g.Authorize(context.Background(), gate.Call{Src: []byte(call), Authority: auth})
}

// check asserts d's verdict and reason, and that its receipt is in the log
// with the same decision.
func (f *fixture) check(d gate.Decision, allow bool, reason gate.Reason) {
	f.t.Helper()
	if d.Allow != allow || d.Reason != reason {
		f.t.Fatalf("decision = %v (%s: %s), want allow=%v reason %s", d.Allow, d.Reason, d.Detail, allow, reason)
	}
	if reason == gate.ReasonReceiptError {
		if d.Receipt != nil {
			f.t.Fatalf("receipt error with a receipt: %+v", d.Receipt)
		}
		return
	}
	if d.Receipt == nil {
		f.t.Fatalf("decision %s has no receipt", reason)
	}
	p := d.Receipt.Payload
	wantResult := "FAIL"
	if allow {
		wantResult = "PASS"
	}
	if p.Result != wantResult || p.Reason != string(reason) || p.PolicyVersion != testPolicy.Version || p.Class != d.Class.String() {
		f.t.Fatalf("receipt payload %+v does not match decision %s %s", p, wantResult, reason)
	}
	if d.Act != nil && (p.ActDigest != d.Act.Digest || p.Tool != d.Act.Tool || p.ArgumentsDigest != d.Act.ArgumentsDigest()) {
		f.t.Fatalf("receipt payload %+v does not name act %s", p, d.Act.Digest)
	}
	if !bytes.Contains(f.file(), append(d.Receipt.Line, '\n')) {
		f.t.Fatalf("receipt %d is not in the log", d.Receipt.Seq)
	}
}

func (f *fixture) file() []byte {
	b, err := os.ReadFile(f.path)
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

// verify checks the whole receipts file and returns the number of records.
func (f *fixture) verify() int64 {
	f.t.Helper()
	s, err := receipt.Verify(context.Background(), bytes.NewReader(f.file()), f.pub, receipt.VerifyOptions{})
	if err != nil {
		f.t.Fatalf("receipts do not verify: %v", err)
	}
	return int64(s.Records)
}

func TestPolicyAllow(t *testing.T) {
	f := newFixture(t, nil)
	d := f.authorize(searchCall, nil)
	f.check(d, true, gate.ReasonPolicy)
	if d.Class != gate.ReadOnly {
		t.Errorf("class = %v", d.Class)
	}
	// An authority presented below the threshold is not consumed.
	auth := f.authority(searchCall, 0)
	f.check(f.authorize(searchCall, auth), true, gate.ReasonPolicy)
	if e, _ := f.ledger.Lookup(auth.Envelope.Digest()); e.State != ledger.StateEmitted {
		t.Errorf("an authority below the threshold was consumed: %v", e.State)
	}
	if n := f.verify(); n != 2 {
		t.Errorf("%d receipts, want 2", n)
	}
}

// TestPolicyAllowDetail holds the detail of a policy allow, which the
// gate builds without fmt, to the text it had from fmt: "tool %q is %v,
// below the threshold %v" (a tool name that needs escapes, and the longest
// one act reads, 256 bytes, whose detail is still under the 1024-byte cut).
func TestPolicyAllowDetail(t *testing.T) {
	for _, tool := range []string{"search", "s\"é\x01\u2028", strings.Repeat("é", 128)} {
		p := &gate.Policy{Version: testPolicy.Version, Tools: map[string]gate.Class{tool: gate.ReadOnly, "pay": gate.Financial}}
		f := newFixtureWith(t, nil, p)
		d := f.g.Authorize(context.Background(), gate.Call{Tool: tool, Arguments: []byte(`{}`)})
		f.check(d, true, gate.ReasonPolicy)
		want := fmt.Sprintf("tool %q is %v, below the threshold %v", tool, gate.ReadOnly, gate.Financial)
		if d.Detail != want {
			t.Errorf("tool %.20q: detail\n%q, want\n%q", tool, d.Detail, want)
		}
	}
}

func TestAuthorityAllowsOnce(t *testing.T) {
	f := newFixture(t, nil)
	auth := f.authority(payCall, 0)
	d := f.authorize(payCall, auth)
	f.check(d, true, gate.ReasonAuthority)
	if d.Outcome != envelope.OutcomeAuthority || d.EnvelopeDigest != auth.Envelope.Digest() {
		t.Errorf("decision %+v", d)
	}
	if p := d.Receipt.Payload; p.EnvelopeDigest != auth.Envelope.Digest() || p.ResolutionOutcome != "authority" || p.Class != "FINANCIAL" {
		t.Errorf("receipt payload %+v", p)
	}
	if e, _ := f.ledger.Lookup(auth.Envelope.Digest()); e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeAuthority {
		t.Errorf("ledger entry after allow: %+v", e)
	}
	// The same authority again: consumed.
	f.check(f.authorize(payCall, auth), false, gate.ReasonConsumed)
	if n := f.verify(); n != 2 {
		t.Errorf("%d receipts, want 2", n)
	}
}

// TestAuthorityEachShape: an envelope built from the act of the Anthropic
// call authorizes the same call arriving in every vendor's shape.
func TestAuthorityEachShape(t *testing.T) {
	for _, call := range []string{payCall, payOpenAI, payMCP} {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		f.check(f.authorize(call, auth), true, gate.ReasonAuthority)
	}
}

// TestFailClosed: every path that cannot prove authority denies, with a
// receipt where one can be written.
func TestFailClosed(t *testing.T) {
	t.Run("no authority", func(t *testing.T) {
		f := newFixture(t, nil)
		f.check(f.authorize(payCall, nil), false, gate.ReasonNoAuthority)
	})
	t.Run("incomplete authority", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		auth.Resolution = nil
		f.check(f.authorize(payCall, auth), false, gate.ReasonNoAuthority)
	})
	t.Run("unconfigured tool", func(t *testing.T) {
		f := newFixture(t, nil)
		d := f.authorize(rebootCall, nil)
		f.check(d, false, gate.ReasonUnconfiguredTool)
		if d.Class != gate.Unconfigured || d.Receipt.Payload.Class != "UNCONFIGURED" {
			t.Errorf("class %v, receipt %q", d.Class, d.Receipt.Payload.Class)
		}
	})
	t.Run("unconfigured tool with authority", func(t *testing.T) {
		// Not in the policy, but the principal authorized this very act.
		f := newFixture(t, nil)
		f.check(f.authorize(rebootCall, f.authority(rebootCall, 0)), true, gate.ReasonAuthority)
	})
	t.Run("consumed", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		if ok, err := f.ledger.Resolve(auth.Envelope.Digest(), ledger.OutcomeAuthority); !ok || err != nil {
			t.Fatal(ok, err)
		}
		f.check(f.authorize(payCall, auth), false, gate.ReasonConsumed)
	})
	t.Run("never emitted", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		other := newFixture(t, nil) // a gate whose ledger never saw it
		other.check(other.authorize(payCall, auth), false, gate.ReasonConsumed)
	})
	t.Run("expired", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		auth.Expires = f.now
		f.check(f.authorize(payCall, auth), false, gate.ReasonExpired)
		if e, _ := f.ledger.Lookup(auth.Envelope.Digest()); e.State != ledger.StateEmitted {
			t.Errorf("an expired authority was consumed: %v", e.State)
		}
	})
	t.Run("no expiry", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		auth.Expires = time.Time{}
		f.check(f.authorize(payCall, auth), false, gate.ReasonExpired)
	})
	t.Run("mismatched digest", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 1) // selects the other act
		d := f.authorize(payCall, auth)
		f.check(d, false, gate.ReasonNotActBound)
		if d.Outcome != envelope.OutcomeRecord {
			t.Errorf("outcome %v", d.Outcome)
		}
		// The principal's authority for the other act is intact.
		f.check(f.authorize(payOther, auth), true, gate.ReasonAuthority)
	})
	t.Run("changed argument", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		changed := strings.Replace(payCall, "acct-7", "acct-8", 1)
		f.check(f.authorize(changed, auth), false, gate.ReasonNotActBound)
	})
	t.Run("declined", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		auth.Resolution = fmt.Appendf(nil, `{"envelope_digest":%q,"resolution":"declined"}`, auth.Envelope.Digest())
		f.check(f.authorize(payCall, auth), false, gate.ReasonNotAuthority)
	})
	t.Run("malformed resolution", func(t *testing.T) {
		f := newFixture(t, nil)
		auth := f.authority(payCall, 0)
		auth.Resolution = []byte(`{"envelope_digest":"sha256:00","resolution":"option"}`)
		f.check(f.authorize(payCall, auth), false, gate.ReasonNotAuthority)
	})
	t.Run("malformed call", func(t *testing.T) {
		f := newFixture(t, nil)
		for _, call := range []string{
			`{"type":"tool_use","id":"x","name":"pay","input":{"amount_cents":1999,"amount_cents":1}}`,
			`{"type":"tool_use","id":"x","name":"pay","input":{"amount":19.99}}`,
			`{"type":"tool_use","id":"x","name":"pay","input":{"to":"\ud800"}}`,
			`{"id":"c","type":"function","function":{"name":"pay","arguments":"{\"to\":"}}`,
			`not json`,
		} {
			d := f.authorize(call, f.authority(payCall, 0))
			f.check(d, false, gate.ReasonMalformedCall)
			var ae *act.Error
			if !errors.As(d.Err, &ae) {
				t.Errorf("%s: Err = %v, want an *act.Error", call, d.Err)
			}
		}
	})
	t.Run("huge names", func(t *testing.T) {
		// A call built to make its receipt too long to write: its
		// deny is receipted all the same.
		f := newFixture(t, nil)
		huge := strings.Repeat("x", 1100<<10) // past receipt.MaxLineSize
		for _, call := range []string{
			`{"type":"tool_use","id":"x","name":"pay","input":{"` + huge + `":1.5}}`,
			`{"type":"tool_use","id":"x","name":"` + huge + `","input":{}}`,
		} {
			d := f.authorize(call, nil)
			f.check(d, false, gate.ReasonMalformedCall)
			if len(d.Detail) > 1024 || !utf8.ValidString(d.Detail) {
				t.Errorf("detail of %d bytes", len(d.Detail))
			}
		}
	})
	t.Run("unparsable authority JSON", func(t *testing.T) {
		f := newFixture(t, nil)
		d := f.g.Authorize(context.Background(), gate.Call{Src: []byte(payCall), AuthorityJSON: []byte(`{"envelope":{}}`)})
		f.check(d, false, gate.ReasonNoAuthority)
	})
	t.Run("authority error", func(t *testing.T) {
		f := newFixture(t, nil)
		d := f.g.Authorize(context.Background(), gate.Call{Src: []byte(payCall), AuthorityErr: errors.New("vault down")})
		f.check(d, false, gate.ReasonNoAuthority)
	})
	t.Run("canceled", func(t *testing.T) {
		f := newFixture(t, nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		d := f.g.Authorize(ctx, gate.Call{Src: []byte(searchCall)})
		f.check(d, false, gate.ReasonCanceled)
	})
	t.Run("canceled with a cause", func(t *testing.T) {
		// A host whose deadline passed before it had the call (bbdigest
		// gate --timeout) says why through the context's cause: the
		// receipt's detail is that cause, and Err is still ctx.Err().
		f := newFixture(t, nil)
		cause := errors.New("the call on stdin did not end within --timeout 5s")
		ctx, cancel := context.WithTimeoutCause(context.Background(), 0, cause)
		defer cancel()
		d := f.g.Authorize(ctx, gate.Call{})
		f.check(d, false, gate.ReasonCanceled)
		if d.Detail != cause.Error() || d.Receipt.Payload.Detail != cause.Error() || !errors.Is(d.Err, context.DeadlineExceeded) {
			t.Errorf("detail %q, receipt detail %q, err %v; want the cause %q and context.DeadlineExceeded", d.Detail, d.Receipt.Payload.Detail, d.Err, cause)
		}
		if d.Act != nil || d.Receipt.Payload.Tool != "" {
			t.Errorf("a call never read names act %v, tool %q", d.Act, d.Receipt.Payload.Tool)
		}
	})
	t.Run("canceled while consuming", func(t *testing.T) {
		// The caller's ctx ends while the ledger consumes the authority:
		// no allow, and the deny is receipted, naming the authority that
		// it consumed, so that the ledger's consumption has its receipt.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f := newFixture(t, cancelingLedger{ledger.NewMemory(), cancel})
		auth := f.authority(payCall, 0)
		d := f.g.Authorize(ctx, gate.Call{Src: []byte(payCall), Authority: auth})
		f.check(d, false, gate.ReasonCanceled)
		if e, _ := f.ledger.Lookup(auth.Envelope.Digest()); e.State != ledger.StateResolved {
			t.Errorf("envelope %v, want consumed", e.State)
		}
		if p := d.Receipt.Payload; p.EnvelopeDigest != auth.Envelope.Digest() || p.ResolutionOutcome != "authority" {
			t.Errorf("receipt names envelope %v, outcome %q", p.EnvelopeDigest, p.ResolutionOutcome)
		}
	})
	t.Run("ledger error", func(t *testing.T) {
		f := newFixture(t, failingLedger{ledger.NewMemory()})
		auth := f.authority(payCall, 0)
		d := f.authorize(payCall, auth)
		f.check(d, false, gate.ReasonLedgerError)
		if !errors.Is(d.Err, errDisk) {
			t.Errorf("Err = %v", d.Err)
		}
	})
	t.Run("ledger closed", func(t *testing.T) {
		bl, err := bolt.Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		f := newFixture(t, bl)
		auth := f.authority(payCall, 0)
		bl.Close()
		d := f.authorize(payCall, auth)
		f.check(d, false, gate.ReasonLedgerError)
	})
	t.Run("receipt unwritable", func(t *testing.T) {
		for _, call := range []string{searchCall, payCall} {
			f := newFixture(t, nil)
			auth := f.authority(payCall, 0)
			f.log.Close()
			d := f.authorize(call, auth)
			f.check(d, false, gate.ReasonReceiptError)
			if d.Err == nil {
				t.Error("receipt error without its error")
			}
		}
	})
	t.Run("receipt append fails", func(t *testing.T) {
		g, err := gate.New(gate.Config{Policy: testPolicy, Ledger: ledger.NewMemory(), Receipts: failingReceipts{}})
		if err != nil {
			t.Fatal(err)
		}
		d := g.Authorize(context.Background(), gate.Call{Src: []byte(searchCall)})
		if d.Allow || d.Reason != gate.ReasonReceiptError || d.Receipt != nil || !errors.Is(d.Err, errDisk) {
			t.Fatalf("decision %+v", d)
		}
	})
}

var errDisk = errors.New("disk on fire")

// failingLedger records emissions but cannot look anything up.
type failingLedger struct{ *ledger.Memory }

func (failingLedger) Lookup(hashing.Digest) (ledger.Entry, error) { return ledger.Entry{}, errDisk }
func (failingLedger) Resolve(hashing.Digest, ledger.Outcome) (bool, error) {
	return false, errDisk
}

// cancelingLedger ends a caller's context once it has resolved an
// envelope: the caller leaves while its authority is being consumed.
type cancelingLedger struct {
	*ledger.Memory
	cancel context.CancelFunc
}

func (l cancelingLedger) Resolve(d hashing.Digest, o ledger.Outcome) (bool, error) {
	ok, err := l.Memory.Resolve(d, o)
	l.cancel()
	return ok, err
}

type failingReceipts struct{}

func (failingReceipts) Append(context.Context, receipt.Payload) (receipt.Receipt, error) {
	return receipt.Receipt{}, errDisk
}

// TestOneAuthorityManyCallers: 64 goroutines present one authority at once;
// exactly one is allowed, every decision is receipted, and the chain holds.
func TestOneAuthorityManyCallers(t *testing.T) {
	f := newFixture(t, nil)
	auth := f.authority(payCall, 0)
	const n = 64
	var wg sync.WaitGroup
	decisions := make([]gate.Decision, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			decisions[i] = f.authorize(payCall, auth)
		})
	}
	close(start)
	wg.Wait()
	allowed := 0
	for _, d := range decisions {
		if d.Allow {
			allowed++
			f.check(d, true, gate.ReasonAuthority)
		} else {
			f.check(d, false, gate.ReasonConsumed)
		}
	}
	if allowed != 1 {
		t.Fatalf("%d calls allowed on one authority, want 1", allowed)
	}
	if got := f.verify(); got != n {
		t.Fatalf("%d receipts, want %d", got, n)
	}
}

func TestNewRefuses(t *testing.T) {
	s, _ := newSigner(t)
	log, err := receipt.Open(filepath.Join(t.TempDir(), "r"), s, receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	l := ledger.NewMemory()
	// Each refusal is typed: a *ConfigError naming the Config field, or
	// the *PolicyError naming the policy member by its JSON Pointer.
	for _, tc := range []struct {
		c              gate.Config
		field, pointer string
	}{
		{gate.Config{Ledger: l, Receipts: log}, "", ""},
		{gate.Config{Policy: testPolicy, Receipts: log}, "Ledger", ""},
		{gate.Config{Policy: testPolicy, Ledger: l}, "Receipts", ""},
		{gate.Config{Policy: &gate.Policy{Threshold: gate.Physical, Tools: map[string]gate.Class{}}, Ledger: l, Receipts: log}, "", "/threshold"},
		{gate.Config{Policy: &gate.Policy{Threshold: gate.Unconfigured, Tools: map[string]gate.Class{}}, Ledger: l, Receipts: log}, "", "/threshold"},
		{gate.Config{Policy: &gate.Policy{Tools: map[string]gate.Class{"x": 0}}, Ledger: l, Receipts: log}, "", "/tools/x"},
		{gate.Config{Policy: &gate.Policy{Tools: map[string]gate.Class{"": gate.ReadOnly}}, Ledger: l, Receipts: log}, "", "/tools/"},
		{gate.Config{Policy: &gate.Policy{Tools: map[string]gate.Class{"x": gate.Unconfigured}}, Ledger: l, Receipts: log}, "", "/tools/x"},
	} {
		_, err := gate.New(tc.c)
		if err == nil {
			t.Errorf("New(%+v) succeeded", tc.c)
			continue
		}
		ce, isConfig := errors.AsType[*gate.ConfigError](err)
		pe, isPolicy := errors.AsType[*gate.PolicyError](err)
		switch {
		case tc.field != "" && (!isConfig || ce.Field != tc.field || err.Error() != "gate: "+ce.Reason):
			t.Errorf("New(%+v): %v, want a *ConfigError for %s", tc.c, err, tc.field)
		case tc.field == "" && (!isPolicy || pe.Pointer != tc.pointer):
			t.Errorf("New(%+v): %v, want a *PolicyError at %q", tc.c, err, tc.pointer)
		}
	}
}

// TestThresholdReadOnly: a policy may demand authority for everything.
func TestThresholdReadOnly(t *testing.T) {
	s, _ := newSigner(t)
	log, err := receipt.Open(filepath.Join(t.TempDir(), "r"), s, receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	p := &gate.Policy{Version: "strict", Threshold: gate.ReadOnly, Tools: map[string]gate.Class{"search": gate.ReadOnly}}
	g, err := gate.New(gate.Config{Policy: p, Ledger: ledger.NewMemory(), Receipts: log})
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Authorize(context.Background(), gate.Call{Src: []byte(searchCall)}); d.Allow || d.Reason != gate.ReasonNoAuthority {
		t.Fatalf("decision %v %s", d.Allow, d.Reason)
	}
	// The policy given to New is copied.
	p.Threshold = gate.Financial
	if d := g.Authorize(context.Background(), gate.Call{Src: []byte(searchCall)}); d.Allow {
		t.Fatal("a change to the policy after New reached the gate")
	}
}

// TestServerBinding: a gate with a server identity binds it, and refuses an
// act that binds another.
func TestServerBinding(t *testing.T) {
	s, _ := newSigner(t)
	log, err := receipt.Open(filepath.Join(t.TempDir(), "r"), s, receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	p := &gate.Policy{Version: "v", Server: "mcp://pay.example", Tools: map[string]gate.Class{"search": gate.ReadOnly}}
	g, err := gate.New(gate.Config{Policy: p, Ledger: ledger.NewMemory(), Receipts: log})
	if err != nil {
		t.Fatal(err)
	}
	d := g.Authorize(context.Background(), gate.Call{Src: []byte(searchCall)})
	if !d.Allow || d.Act.Server != p.Server || d.Receipt.Payload.Server != p.Server {
		t.Fatalf("decision %+v", d)
	}
	if d := g.Authorize(context.Background(), gate.Call{Act: parseAct(t, searchCall)}); d.Allow || d.Reason != gate.ReasonMalformedCall {
		t.Fatalf("an act for no server passed a gate for %s: %v %s", p.Server, d.Allow, d.Reason)
	}
	// search is READ_ONLY, below the threshold: its acts are read under
	// rfc8785 (Policy.NumberProfiles' default).
	ap := act.Parser{Server: p.Server, Profile: canon.RFC8785}
	a, err := ap.New("search", []byte(`{"q":"hotels"}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Authorize(context.Background(), gate.Call{Tool: "search", Arguments: []byte(` { "q" : "hotels" } `)}); !d.Allow || d.Act.Digest != a.Digest {
		t.Fatalf("split call: %v %s, act %v want %v", d.Allow, d.Reason, d.Act, a.Digest)
	}
}
