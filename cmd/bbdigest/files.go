package main

// The files the CLI reads whole that are not the JSON inputs it
// canonicalizes (those are bounded by the profile, 256 MiB, and a longer
// one is the rejection too-large): keys, the gate's policy, check lists
// and EP vector files (package archive reads its summaries and .resume
// files the same way). Each kind has a size bound that fits what it holds (the table
// below, which README.md and the commands' helps repeat), and reading one
// holds at most that bound plus one byte of it (internal/boundedread): a
// regular file past the bound is refused unread, and anything else,
// /dev/zero say, once the bound is passed.
//
// The kinds the gate depends on, and keys wherever they are read, must be
// regular files. That is checked on the file opened, not on its name
// before opening (a rename in between would defeat it), and the open
// itself does not block (boundedread.OpenNoBlock): a named pipe that never gets a
// writer, a device or a socket is refused before a byte is read, so a
// gate is never stuck on its configuration. The other kinds may be pipes
// (a shell's <(...), or "-" where stdin is taken), and then, like cat,
// they wait for their writer.
//
// A private key file must also give no access to group or others
// (internal/keyfile), as ssh requires of its keys.

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io/fs"
	"time"

	"github.com/bbdigest/bbdigest/internal/boundedread"
	"github.com/bbdigest/bbdigest/internal/keyfile"
	"github.com/bbdigest/bbdigest/receipt"
)

// fileKind is a kind of file the CLI reads whole: what it is called in a
// diagnostic, its size bound, and whether a named one must be a regular
// file (see boundedread.Kind).
type fileKind = boundedread.Kind

// The kinds of files read whole, with their bounds. A check list's bound
// is the profile's input bound (cli.limit), set where it is read. Package
// archive has the kinds of its summaries and .resume files.
var (
	// keyKind: a private or public key (internal/keyfile).
	keyKind = keyfile.Kind
	// policyKind: the gate's --policy, room for tens of thousands of
	// tools.
	policyKind = fileKind{What: "a policy", Limit: 4 << 20, Regular: true}
	// vectorKind: EP-RECEIPT-v1 conformance vectors (EP's own file is
	// some 30 KiB).
	vectorKind = fileKind{What: "a vector file", Limit: 16 << 20}
)

// checkListKind is the kind of a check list of digest --check: its bound
// is limit, the profile's input bound (256 MiB, some 3 million lines).
func checkListKind(limit int) fileKind {
	return fileKind{What: "a check list", Limit: limit}
}

// readBounded reads the whole of the file name, of kind k, and returns it
// with the file's FileInfo (boundedread.ReadFile): a file past k's bound
// is a *boundedread.TooLargeError, and a named pipe, device, socket or
// directory of a kind that must be regular a *boundedread.NotRegularError,
// refused without blocking in the open.
func readBounded(name string, k fileKind) ([]byte, fs.FileInfo, error) {
	return boundedread.ReadFile(name, k)
}

// readBoundedArg is readBounded for an operand that may be "-", stdin,
// which has no FileInfo (nil) and is read under the same bound.
func (c *cli) readBoundedArg(name string, k fileKind) ([]byte, fs.FileInfo, error) {
	if name == "-" {
		b, err := k.Read(c.stdin)
		return b, nil, err
	}
	return readBounded(name, k)
}

// checkPrivateKeyFile reports a private key file whose permissions are too
// open (keyfile.CheckPermissions), unless insecure is set, and returns whether to go
// on. fi is the FileInfo readBoundedArg returned: nil for stdin, which is
// not checked (a pipe has no permissions of its own; the file it came from
// is the caller's to keep).
func (c *cli) checkPrivateKeyFile(prefix, name string, fi fs.FileInfo, insecure bool) bool {
	if fi == nil || insecure {
		return true
	}
	err := keyfile.CheckPermissions(fi)
	if err == nil {
		return true
	}
	c.errorf("%s%s: %v", prefix, fileField(name), err)
	c.hintf("whoever can read a signing key can sign receipts in its name: run 'chmod 600 %s', or pass --insecure-key-permissions to use it as it is", fileField(name))
	return false
}

// privateKey reads the private key in the key file name ("-": stdin, of
// the same bound) and, unless insecure is set, checks the file's
// permissions (checkPrivateKeyFile). A file that holds a public key
// instead gets the hint "FILE holds a public key" followed by rest, which
// says what the command takes. It reports a failure and returns false.
func (c *cli) privateKey(name string, insecure bool, rest string) (ed25519.PrivateKey, bool) {
	src, fi, err := c.readBoundedArg(name, keyKind)
	if err != nil {
		c.ioFailure(name, err)
		return nil, false
	}
	priv, err := receipt.ParsePrivateKey(src)
	if err != nil {
		c.errorf("%s: %v", fileField(name), err)
		if _, perr := receipt.ParsePublicKey(src); perr == nil {
			c.hintf("%s holds a public key%s", fileField(name), rest)
		}
		return nil, false
	}
	if !c.checkPrivateKeyFile("", name, fi, insecure) {
		return nil, false
	}
	return priv, true
}

// callTimeoutError is the cause of the context of a gate whose call did
// not arrive whole within --timeout: the gate denies it (canceled), with
// this as the detail of its receipt.
type callTimeoutError struct {
	name string // the call's FILE, "-" for stdin
	d    time.Duration
}

func (e *callTimeoutError) Error() string {
	from := "stdin"
	if e.name != "-" {
		from = fileField(e.name)
	}
	return fmt.Sprintf("the call on %s did not end within --timeout %v", from, e.d)
}

// readFileCtx is readFile under ctx: when ctx ends before the input is
// read whole (a pipe that is never closed, a named pipe that never gets a
// writer), it returns context.Cause(ctx) at once. The read goes on in the
// background until its reader returns, which, for a command, ends with the
// process.
func (c *cli) readFileCtx(ctx context.Context, name string, limit int) ([]byte, error) {
	if ctx.Done() == nil {
		return c.readFile(nil, name, limit)
	}
	type result struct {
		src []byte
		err error
	}
	done := make(chan result, 1) // the reader never waits to hand over
	go func() {
		src, err := c.readFile(nil, name, limit)
		done <- result{src, err}
	}()
	select {
	case r := <-done:
		return r.src, r.err
	case <-ctx.Done():
		select {
		case r := <-done: // it ended as ctx did: the input is whole
			return r.src, r.err
		default:
			return nil, context.Cause(ctx)
		}
	}
}
