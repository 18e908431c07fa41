package main

// bbdigest approve serve: the approval page (internal/approvepage) over
// the gate's ledger (internal/approvepage/ledgersource, which opens the
// ledger for each operation so that gate --ask processes get it between
// two). The page lists the pending requests and records the principal's
// decisions as approve grant and deny do (gate.Decide), signed with the
// principal's key, which stays in this process.

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/bbdigest/bbdigest/internal/approvepage"
	"github.com/bbdigest/bbdigest/internal/approvepage/ledgersource"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/ledger"
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
	switch {
	case !gnuflag.Given(fs)["key"]:
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
	// A line for each decision: they take turns (the source's calls do),
	// and come only once Serve runs, after the URL's lines.
	src := ledgersource.New(f.ledger, ledgersource.Options{Key: priv, Wait: f.wait, OnDecision: func(r *ledger.Request, grant bool) {
		c.write([]byte(decisionLine(r, grant, priv)))
	}})

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
	c.write(fmt.Appendf(nil, "Serving the approval page of ledger %s, deciding as key %s.\nTo decide, open this URL in a browser:\n\n    %s\n\n", fileField(f.ledger), keyID, h.URL()))
	if err := approvepage.Serve(ctx, ln, h); err != nil {
		c.errorf("%s: %s", cmd, strings.TrimPrefix(err.Error(), "approvepage: "))
		return exitUsage
	}
	return exitOK
}
