package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/selfexec"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/internal/ledgertest"
)

// TestApprovals runs the contract of ledger.Approvals that Memory runs in
// package ledger, then reopens the file: every request is there as it was,
// the file passes the checks of Open with its second bucket, and the open
// request of an act is still the one Ask returns.
func TestApprovals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Approvals(t, l)
	before, err := l.Requests()
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if l, err = Open(path, &Options{MustExist: true}); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	after, err := l.Requests()
	if err != nil || len(after) != len(before) {
		t.Fatalf("after reopening: %d requests, %v; want %d", len(after), err, len(before))
	}
	for i := range before {
		b, a := before[i], after[i]
		if b.EnvelopeDigest != a.EnvelopeDigest || b.State != a.State || !b.EmittedAt.Equal(a.EmittedAt) || !b.DecidedAt.Equal(a.DecidedAt) ||
			!b.ClosedAt.Equal(a.ClosedAt) || b.Closing != a.Closing || !bytes.Equal(b.Decision, a.Decision) || !bytes.Equal(b.Envelope, a.Envelope) ||
			!bytes.Equal(b.Act, a.Act) || b.Tool != a.Tool || b.Class != a.Class {
			t.Errorf("request %d: %+v before, %+v after reopening", i, b, a)
		}
	}
	// The open request of "pay 1999" (e5 in the contract) survives.
	r := &ledger.Request{EnvelopeDigest: hashing.Sum([]byte("e6")), Envelope: []byte("{}"), ActDigest: hashing.Sum([]byte("pay 1999")), Act: []byte("{}")}
	if got, created, err := l.Ask(r); err != nil || created || got.EnvelopeDigest != hashing.Sum([]byte("e5")) {
		t.Fatalf("Ask after reopening = %s, %v, %v; want e5's", got.EnvelopeDigest, created, err)
	}
}

// TestApprovalsLedgerUnchanged: a ledger that never asks holds only the
// envelopes' bucket, as the files of an earlier bbdigest do.
func TestApprovalsLedgerUnchanged(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Emit(hashing.Sum([]byte("a")))
	if rs, err := l.Requests(); err != nil || len(rs) != 0 {
		t.Fatalf("Requests = %v, %v", rs, err)
	}
	if ok, err := l.Finish(hashing.Sum([]byte("a")), "x"); ok || err != nil {
		t.Fatalf("Finish = %v, %v", ok, err)
	}
	l.db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(requestBucket) != nil {
			t.Error("the bucket of requests was created without an Ask")
		}
		return nil
	})
}

func askSample(l *Ledger, act, env string) (ledger.Request, bool, error) {
	return l.Ask(&ledger.Request{EnvelopeDigest: hashing.Sum([]byte(env)), Envelope: []byte(`{"e":1}`), ActDigest: hashing.Sum([]byte(act)), Act: []byte(`{"a":1}`), Tool: "pay"})
}

// TestApprovalsCorrupt: a damaged request, and an index of open requests
// that disagrees with the requests, are found when the file is opened
// (ledger.ErrCorrupt), and while it is open by the call that reads them.
func TestApprovalsCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(b *bbolt.Bucket, env, act hashing.Digest) error
	}{
		{"request checksum", func(b *bbolt.Bucket, env, act hashing.Digest) error {
			k := key(requestKey, env)
			v := bytes.Clone(b.Get(k))
			v[len(v)/2] ^= 1
			return b.Put(k, v)
		}},
		{"request state", func(b *bbolt.Bucket, env, act hashing.Digest) error {
			k := key(requestKey, env)
			r, _ := decodeRequest(k, b.Get(k))
			r.State = 9
			return b.Put(k, appendRequest(nil, k, &r))
		}},
		{"granted without a decision", func(b *bbolt.Bucket, env, act hashing.Digest) error {
			k := key(requestKey, env)
			r, _ := decodeRequest(k, b.Get(k))
			r.State = ledger.RequestGranted
			return b.Put(k, appendRequest(nil, k, &r))
		}},
		{"open index checksum", func(b *bbolt.Bucket, env, act hashing.Digest) error {
			k := key(openKey, act)
			v := bytes.Clone(b.Get(k))
			v[0] ^= 1
			return b.Put(k, v)
		}},
		{"open index to another request", func(b *bbolt.Bucket, env, act hashing.Digest) error {
			k := key(openKey, act)
			return b.Put(k, appendOpen(nil, k, hashing.Sum([]byte("elsewhere"))))
		}},
		{"open index missing", func(b *bbolt.Bucket, env, act hashing.Digest) error {
			return b.Delete(key(openKey, act))
		}},
		{"a key of no kind", func(b *bbolt.Bucket, env, act hashing.Digest) error {
			return b.Put([]byte("zz"), []byte("x"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			l, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, _, err := askSample(l, "act", "env")
			if err != nil {
				t.Fatal(err)
			}
			// Written as a commit of the ledger, so the high-water file follows.
			if err := l.write(func(tx *bbolt.Tx) error {
				return tc.damage(tx.Bucket(requestBucket), r.EnvelopeDigest, r.ActDigest)
			}); err != nil {
				t.Fatal(err)
			}
			l.Close()
			_, err = Open(path, nil)
			if !errors.Is(err, ledger.ErrCorrupt) || !strings.Contains(err.Error(), string(requestBucket)) && !strings.Contains(err.Error(), "request") {
				t.Fatalf("Open = %v; want ErrCorrupt naming the requests", err)
			}
		})
	}
}

// TestApprovalsCorruptWhileOpen: a request damaged under an open ledger is
// refused by the call that reads it, and the ledger refuses every call
// after.
func TestApprovalsCorruptWhileOpen(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r, _, err := askSample(l, "act", "env")
	if err != nil {
		t.Fatal(err)
	}
	l.db.Update(func(tx *bbolt.Tx) error {
		k := key(requestKey, r.EnvelopeDigest)
		v := bytes.Clone(tx.Bucket(requestBucket).Get(k))
		v[5] ^= 1
		return tx.Bucket(requestBucket).Put(k, v)
	})
	if _, _, err := askSample(l, "act", "env2"); !errors.Is(err, ledger.ErrCorrupt) {
		t.Fatalf("Ask = %v; want ErrCorrupt", err)
	}
	if _, err := l.Lookup(hashing.Sum([]byte("x"))); !errors.Is(err, ledger.ErrCorrupt) {
		t.Fatalf("Lookup after corruption = %v", err)
	}
}

// TestApprovalsOnClosedLedger: every call of a closed ledger fails with
// ledger.ErrClosed.
func TestApprovalsOnClosedLedger(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	d := hashing.Sum([]byte("x"))
	_, _, err1 := askSample(l, "a", "e")
	_, err2 := l.Decide(d, ledger.RequestGranted, []byte("x"))
	_, err3 := l.Finish(d, "x")
	_, _, err4 := l.Request(d)
	_, err5 := l.Requests()
	for i, err := range []error{err1, err2, err3, err4, err5} {
		if !errors.Is(err, ledger.ErrClosed) {
			t.Errorf("call %d on a closed ledger: %v", i+1, err)
		}
	}
}

// askChildEnv, when set, makes TestApprovalsTwoProcesses the child: it
// opens the ledger it names, waiting for the lock, asks for the act "race"
// with an envelope of its own, and prints the envelope it got.
const askChildEnv = "BBDIGEST_LEDGER_ASK_CHILD"

// childDeadline bounds each child of TestApprovalsTwoProcesses: one waits
// for the lock at most 30 s (its Options.Wait), and asks in milliseconds.
const childDeadline = 2 * time.Minute

// TestApprovalsTwoProcesses: processes that ask for one act at once end
// with one request, which each of them gets: the file's lock puts them in
// turn, and Ask's test and store are one transaction.
func TestApprovalsTwoProcesses(t *testing.T) {
	if spec := os.Getenv(askChildEnv); spec != "" {
		path, env, _ := strings.Cut(spec, "|")
		l, err := Open(path, &Options{Wait: 30 * time.Second})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		r, created, err := askSample(l, "race", env)
		l.Close()
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Printf("%s %v\n", r.EnvelopeDigest, created)
		os.Exit(0)
	}
	if testing.Short() {
		// Like the other tests that re-execute the test binary. CI's
		// 32-bit step runs -short under qemu-user, where three emulated
		// children started at once hung one CI run until the package's
		// timeout (golang/go#67355 and #70329 report Go processes hanging
		// under qemu-user); the native steps run this test in full.
		t.Skip("re-executes the test binary")
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	const n = 3
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := selfexec.Command("-test.run=^TestApprovalsTwoProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), askChildEnv+"="+path+"|child-"+strconv.Itoa(i))
			var out bytes.Buffer
			cmd.Stdout = &out
			if errs[i] = cmd.Start(); errs[i] != nil {
				return
			}
			// A child that hangs fails the test in bounded time, with its
			// name, instead of holding the package until go test's timeout.
			hung := time.AfterFunc(childDeadline, func() { cmd.Process.Kill() })
			errs[i] = cmd.Wait()
			if !hung.Stop() {
				errs[i] = fmt.Errorf("still running after %v, killed: %v", childDeadline, errs[i])
			}
			outs[i] = out.String()
		})
	}
	wg.Wait()
	created, digest := 0, ""
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("child %d: %v: %s", i, errs[i], outs[i])
		}
		var d string
		var made bool
		if _, err := fmt.Sscanf(outs[i], "%s %v", &d, &made); err != nil {
			t.Fatalf("child %d printed %q", i, outs[i])
		}
		if digest == "" {
			digest = d
		}
		if d != digest {
			t.Fatalf("children got envelopes %s and %s for one act", digest, d)
		}
		if made {
			created++
		}
	}
	if created != 1 {
		t.Fatalf("%d children created a request, want 1", created)
	}
	if l, err = Open(path, nil); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if rs, err := l.Requests(); err != nil || len(rs) != 1 || rs[0].EnvelopeDigest.String() != digest {
		t.Fatalf("Requests = %+v, %v; want the one request %s", rs, err, digest)
	}
}

// TestRequestEncoding: a request reads back as written, under its key
// only; every cut of its value, a value of another format, and a value
// with one byte changed are refused, never read as another request.
func TestRequestEncoding(t *testing.T) {
	r := ledger.Request{
		EnvelopeDigest: hashing.Sum([]byte("e")), Envelope: []byte(`{"e":1}`), ActDigest: hashing.Sum([]byte("a")), Act: []byte(`{"a":1}`),
		Tool: "pay", Server: "shop", Class: "FINANCIAL", State: ledger.RequestGranted, EmittedAt: time.Unix(0, 1e18),
		Decision: []byte("doc"), DecidedAt: time.Unix(0, 1e18+1),
	}
	k := key(requestKey, r.EnvelopeDigest)
	v := appendRequest(nil, k, &r)
	got, err := decodeRequest(k, v)
	if err != nil || got.EnvelopeDigest != r.EnvelopeDigest || got.State != r.State || !got.EmittedAt.Equal(r.EmittedAt) ||
		!got.DecidedAt.Equal(r.DecidedAt) || string(got.Decision) != "doc" || got.Tool != "pay" || got.Server != "shop" || got.Class != "FINANCIAL" {
		t.Fatalf("decodeRequest = %+v, %v", got, err)
	}
	if _, err := decodeRequest(key(requestKey, hashing.Sum([]byte("other"))), v); err == nil {
		t.Fatal("a request decodes under another key")
	}
	if _, err := decodeRequest(key(openKey, r.EnvelopeDigest), v); err == nil {
		t.Fatal("a request decodes under an open-request key")
	}
	for n := range len(v) {
		if got, err := decodeRequest(k, v[:n]); err == nil {
			t.Fatalf("%d of %d bytes decode as %+v", n, len(v), got)
		}
	}
	for i := range v {
		w := bytes.Clone(v)
		w[i] ^= 0x20
		if got, err := decodeRequest(k, w); err == nil {
			t.Fatalf("byte %d changed decodes as %+v", i, got)
		}
	}
	ok := key(openKey, r.ActDigest)
	ov := appendOpen(nil, ok, r.EnvelopeDigest)
	if d, err := decodeOpen(ok, ov); err != nil || d != r.EnvelopeDigest {
		t.Fatalf("decodeOpen = %s, %v", d, err)
	}
	for n := range len(ov) {
		if _, err := decodeOpen(ok, ov[:n]); err == nil {
			t.Fatalf("%d of %d bytes of an open-request value decode", n, len(ov))
		}
	}
}
