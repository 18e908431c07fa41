package main

// bbdigest approve serve: the approval page (internal/approvepage) over
// the gate's ledger. The page lists the pending requests and records the
// principal's decisions as approve grant and deny do (decideRequest),
// signed with the principal's key, which stays in this process.
//
// The ledger is a bbolt file that one process at a time may hold (flock),
// and every gate --ask call is a process of its own that opens it: serve
// never keeps it open. It opens it for each decision and for a listing
// (which a page asks for every second) when the ledger has changed since
// the last one, under the --wait bound as the other commands do, and
// closes it at once, one operation at a time. Opening the ledger reads
// and checks all of it, and so does listing its requests: tens of
// milliseconds for a ledger of a few hundred requests, which the gate
// would otherwise wait out every second (BenchmarkLedgerSourcePending).

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/internal/approvepage"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// defaultServeListen is the address approve serve listens on without
// --listen: loopback, on a port the system picks.
const defaultServeListen = "127.0.0.1:0"

// approveServe runs "bbdigest approve serve --ledger PATH --key KEYFILE
// [--listen ADDR] [--allow-remote] [--wait D]" until SIGINT or SIGTERM.
func (c *cli) approveServe(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done() // a signal, or stop
		stop()       // a second Ctrl-C kills at once
	}()
	return c.serveApprovals(ctx, args)
}

// serveApprovals is approve serve until ctx is done.
func (c *cli) serveApprovals(ctx context.Context, args []string) int {
	const cmd = "approve serve"
	fs, f := c.approveFlagSet(cmd)
	keyFile := fs.String("key", "", "")
	insecureKey := fs.Bool("insecure-key-permissions", false, "")
	listen := fs.String("listen", defaultServeListen, "")
	allowRemote := fs.Bool("allow-remote", false, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	keyGiven := false
	fs.Visit(func(fl *flag.Flag) { keyGiven = keyGiven || fl.Name == "key" })
	switch {
	case !keyGiven:
		return c.usageError(cmd, "missing --key KEYFILE, the principal's private key")
	case *keyFile == "":
		return c.usageError(cmd, "empty --key KEYFILE")
	case *listen == "":
		return c.usageError(cmd, "empty --listen ADDR")
	}
	if host, _, err := net.SplitHostPort(*listen); *allowRemote && err == nil {
		if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
			// The page checks each request's Host against the address
			// it is served at, which every interface is not.
			return c.usageError(cmd, "--listen "+quote(*listen)+": every interface has no address the browser is pointed at; name this host's address, such as 192.0.2.7:8080")
		}
	}
	// The key first, then the ledger, then the address: nothing listens
	// for a key that does not load or a ledger that does not open.
	priv, ok := c.principalKey(*keyFile, *insecureKey)
	if !ok {
		return exitUsage
	}
	l, code := c.openApprovals(cmd, fs, f)
	if code >= 0 {
		return code
	}
	if err := l.Close(); err != nil {
		return c.ledgerFailure(cmd, err)
	}
	src := newLedgerSource(f.ledger, f.wait, priv, func(line string) { c.write([]byte(line)) })

	ln, err := approvepage.Listen(ctx, *listen, approvepage.ListenOptions{AllowRemote: *allowRemote})
	if err != nil {
		c.errorf("%s: --listen %s: %s", cmd, quote(*listen), strings.TrimPrefix(err.Error(), "approvepage: "))
		if !*allowRemote && strings.Contains(err.Error(), "not loopback") {
			c.hintf("--allow-remote serves other hosts too; read 'bbdigest help approve' for what that risks")
		}
		return exitUsage
	}
	defer ln.Close()
	h, err := approvepage.New(src, ln.Addr().String(), nil)
	if err != nil {
		c.errorf("%s: --listen %s: %s", cmd, quote(*listen), strings.TrimPrefix(err.Error(), "approvepage: "))
		return exitUsage
	}

	keyID := receipt.KeyID(priv.Public().(ed25519.PublicKey))
	c.hintf("the URL carries a secret token: whoever has it can grant or deny as key %s while this server runs; give it to no one else. Ctrl-C stops the server", keyID)
	if *allowRemote {
		c.hintf("--allow-remote: the page is served to other hosts over plain HTTP, and the token travels in clear")
	}
	src.write(fmt.Sprintf("Serving the approval page of ledger %s, deciding as key %s.\nTo decide, open this URL in a browser:\n\n    %s\n\n", fileField(f.ledger), keyID, h.URL()))
	if err := approvepage.Serve(ctx, ln, h); err != nil {
		c.errorf("%s: %s", cmd, strings.TrimPrefix(err.Error(), "approvepage: "))
		return exitUsage
	}
	return exitOK
}

// ledgerSource is the approval page's Source over the bolt ledger at path:
// the requests pending in it, and decisions signed with priv and recorded
// in it by decideRequest, as approve grant and deny record them. It opens
// the ledger for each decision, and for a listing when the ledger has
// changed (ledgerStamp), waiting up to wait for another process that holds
// it, and closes it before it returns, so that the gate's processes can
// open it between two calls; its calls take turns.
type ledgerSource struct {
	path string
	wait time.Duration
	priv ed25519.PrivateKey
	// turn is held by the call that has the ledger open: calls of one
	// process would otherwise wait on each other's file lock, which is
	// polled, not queued.
	turn chan struct{}
	// listed is the last listing and the stamp of the ledger it was read
	// from; valid is false until there is one, and after a decision.
	// Held with turn.
	listed struct {
		valid bool
		stamp ledgerStamp
		at    time.Time
		items []approvepage.Item
	}
	// mu serializes log.
	mu  sync.Mutex
	log func(line string) // a line for each decision recorded
	now func() time.Time
}

// relistAfter is how long Pending answers from its last listing while the
// ledger's stamp stays the same: it bounds what a change the stamp missed
// (see ledgerStamp) can hide.
const relistAfter = 10 * time.Second

// ledgerStamp tells a ledger changed since it was last read from one that
// is not, without opening it: the file's identity, size and modification
// time, and the bytes of its high-water file PATH.hwm, which package bolt
// rewrites with the transaction id after every commit. A commit that has
// written the file but not yet its high-water file within one tick of the
// file system's clock is missed until the high-water file is written, at
// the next listing.
type ledgerStamp struct {
	file os.FileInfo
	hwm  []byte
}

// stampLedger returns the stamp of the ledger at path, false when it
// cannot be read (the listing then opens the ledger, which says why).
func stampLedger(path string) (ledgerStamp, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return ledgerStamp{}, false
	}
	hwmPath := path
	if p, err := filepath.EvalSymlinks(path); err == nil {
		hwmPath = p // as package bolt finds it
	}
	hwm, err := os.ReadFile(hwmPath + ".hwm")
	if err != nil || len(hwm) == 0 {
		return ledgerStamp{}, false
	}
	return ledgerStamp{file: info, hwm: hwm}, true
}

// same reports whether s and t are the stamps of an unchanged ledger.
func (s ledgerStamp) same(t ledgerStamp) bool {
	return os.SameFile(s.file, t.file) && s.file.Size() == t.file.Size() &&
		s.file.ModTime().Equal(t.file.ModTime()) && bytes.Equal(s.hwm, t.hwm)
}

// newLedgerSource returns the Source of the ledger at path, deciding with
// priv, and writing a line to log for each decision it records.
func newLedgerSource(path string, wait time.Duration, priv ed25519.PrivateKey, log func(string)) *ledgerSource {
	if log == nil {
		log = func(string) {}
	}
	return &ledgerSource{path: path, wait: wait, priv: priv, turn: make(chan struct{}, 1), log: log, now: time.Now}
}

// write writes line to the source's log.
func (s *ledgerSource) write(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log(line)
}

// open opens the ledger, runs fn on it and closes it; the caller has the
// turn.
func (s *ledgerSource) open(fn func(l *bolt.Ledger) error) (err error) {
	l, err := bolt.Open(s.path, ledgerOptions(s.wait, true))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := l.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(l)
}

// Pending implements approvepage.Source: the requests pending in the
// ledger, oldest first. It answers from its last listing while the
// ledger's stamp is unchanged, for up to relistAfter.
func (s *ledgerSource) Pending(ctx context.Context) ([]approvepage.Item, error) {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-s.turn }()
	stamp, stamped := stampLedger(s.path)
	now := time.Now()
	if last := &s.listed; stamped && last.valid && last.stamp.same(stamp) && now.Sub(last.at) < relistAfter {
		return slices.Clone(last.items), nil
	}
	s.listed.valid = false
	items, err := s.pending()
	if err != nil {
		return nil, err
	}
	if stamped {
		s.listed.valid, s.listed.stamp, s.listed.at, s.listed.items = true, stamp, now, items
	}
	return slices.Clone(items), nil
}

// pending reads the pending requests from the ledger; the caller has the
// turn.
func (s *ledgerSource) pending() ([]approvepage.Item, error) {
	var items []approvepage.Item
	err := s.open(func(l *bolt.Ledger) error {
		rs, err := l.Requests()
		if err != nil {
			return err
		}
		for i := range rs {
			r := &rs[i]
			if r.State != ledger.RequestPending {
				continue
			}
			items = append(items, approvepage.Item{
				EnvelopeDigest: r.EnvelopeDigest, Tool: r.Tool, Server: r.Server,
				ActDigest: r.ActDigest, Emitted: r.EmittedAt, Envelope: r.Envelope,
			})
		}
		return nil
	})
	if err != nil {
		return nil, sourceError(err)
	}
	return items, nil
}

// Decide implements approvepage.Source: it signs d with the principal's
// key and records it in the ledger (decideRequest), refusing a request
// that is not pending any more.
func (s *ledgerSource) Decide(ctx context.Context, d approvepage.Decision) error {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-s.turn }()
	s.listed.valid = false // whatever becomes of the decision
	var line string
	err := s.open(func(l *bolt.Ledger) error {
		r, ok, err := l.Request(d.Envelope)
		if err != nil {
			return err
		}
		if !ok {
			return &refusal{msg: fmt.Sprintf("no approval request %s in ledger %s", d.Envelope, fileField(s.path))}
		}
		if err := gate.Decide(l, &r, !d.Deny, d.Option, s.priv, s.now()); err != nil {
			return err
		}
		line = decisionLine(&r, !d.Deny, s.priv)
		return nil
	})
	if err != nil {
		return sourceError(err)
	}
	s.write(line)
	return nil
}

// sourceError is err as the page shows it: a refusal with its hint, a
// ledger's failure without the package's name, as the commands say them.
func sourceError(err error) error {
	if de, ok := errors.AsType[*gate.DecideError](err); ok {
		if de.Hint != "" {
			return fmt.Errorf("%s (%s)", de.Reason, de.Hint)
		}
		return &shownError{msg: de.Reason, err: err}
	}
	if ref, ok := errors.AsType[*refusal](err); ok {
		if ref.hint != "" {
			return fmt.Errorf("%s (%s)", ref.msg, ref.hint)
		}
		return ref
	}
	if _, ok := errors.AsType[*ledger.Error](err); ok {
		return &shownError{msg: ledgerMessage(err), err: err}
	}
	return err
}

// shownError is an error with the message the page shows for it.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }

var _ approvepage.Source = (*ledgerSource)(nil)

// refusal is a decision refused for a request the ledger does not hold.
type refusal struct{ msg, hint string }

func (e *refusal) Error() string { return e.msg }
