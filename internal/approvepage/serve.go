package approvepage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// ListenOptions configures Listen. The zero value listens on loopback only.
type ListenOptions struct {
	// AllowRemote lets Listen open an address that is not loopback (all
	// interfaces, a LAN address). Anyone who can reach the address and has
	// the URL can then decide, and the token travels in clear HTTP.
	AllowRemote bool
}

// Listen opens a TCP listener on addr (host:port; port 0 picks a free one)
// for the approval page. Without opts.AllowRemote it refuses an address that
// is not loopback: an empty host or 0.0.0.0 (every interface), an IP that is
// not loopback, or a name that resolves to one. The listener's address
// (ln.Addr().String()) is the addr to give New.
func Listen(ctx context.Context, addr string, opts ListenOptions) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("approvepage: listen address %q: %w", addr, err)
	}
	if !opts.AllowRemote {
		if host == "" {
			return nil, fmt.Errorf("approvepage: listen address %q is every interface, not loopback; give 127.0.0.1:PORT (or allow a remote address explicitly)", addr)
		}
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("approvepage: listen address %q: %w", addr, err)
		}
		for _, ip := range ips {
			if !ip.IsLoopback() {
				return nil, fmt.Errorf("approvepage: listen address %q is not loopback (%s); give 127.0.0.1:PORT (or allow a remote address explicitly)", addr, ip)
			}
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("approvepage: %w", err)
	}
	if !opts.AllowRemote {
		// The name could have resolved differently for the listen itself.
		ap, err := netip.ParseAddrPort(ln.Addr().String())
		if err != nil || !ap.Addr().IsLoopback() {
			ln.Close()
			return nil, fmt.Errorf("approvepage: listen address %q opened %s, which is not loopback", addr, ln.Addr())
		}
	}
	return ln, nil
}

// Serve serves h on ln until ctx is done, then shuts the server down (giving
// requests in flight five seconds) and returns nil. It returns an error if
// the server fails. The server bounds the time to read a request and the
// size of its header, so a slow or hostile client cannot hold it.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("approvepage: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdown)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("approvepage: %w", serr)
	}
	if err != nil {
		return fmt.Errorf("approvepage: shutting down: %w", err)
	}
	return nil
}
