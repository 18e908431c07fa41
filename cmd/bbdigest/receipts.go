package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"

	"github.com/bbdigest/bbdigest/internal/epvector"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/receipt"
)

// receiptsHelp is the help of receipts and its subcommands, help/receipts.txt.
var receiptsHelp = helpFile("receipts")

// receiptsVerify runs "bbdigest receipts verify".
func (c *cli) receiptsVerify(args []string) int {
	const cmd = "receipts verify"
	set := c.flagSet(cmd)
	key := set.String("key", "", "")
	insecureKey := set.Bool("insecure-key-permissions", false, "")
	hwm := set.String("hwm", "", "")
	workers := new(workersFlag)
	set.Var(workers, "workers", "")
	operands, code := c.parse(set, args, 1)
	if code >= 0 {
		return code
	}
	hwmGiven := gnuflag.Given(set)["hwm"]
	switch {
	case *key == "":
		return c.usageError(cmd, "--key KEY is required")
	case len(operands) == 0:
		return c.usageError(cmd, "missing FILE (\"-\" for stdin)")
	case hwmGiven && (*hwm == "" || *hwm == "-"):
		return c.usageError(cmd, "--hwm takes the log's high-water file, FILE.hwm")
	}
	pub, ok := c.publicKey(*key, *insecureKey)
	if !ok {
		return exitUsage
	}
	name := operands[0]
	var mark *receipt.Mark
	if hwmGiven {
		m, err := receipt.ReadMark(*hwm)
		if err != nil {
			c.errorf("--hwm: %v", err)
			if errors.Is(err, receipt.ErrMark) {
				return exitRejected // damaged: the log cannot be vouched for
			}
			return exitUsage
		}
		mark = &m
	}
	r, done, err := c.open(name)
	if err != nil {
		if mark != nil && errors.Is(err, fs.ErrNotExist) {
			c.errorf("%s: missing, but the high-water mark in %s records seq %d (through offset %d): the log was deleted or moved", fileField(name), fileField(*hwm), mark.Seq, mark.Size)
			return exitRejected
		}
		c.ioFailure(name, err)
		return exitUsage
	}
	defer done()
	sum, err := receipt.Verify(context.Background(), r, pub, receipt.VerifyOptions{Workers: int(*workers), Mark: mark})
	if ce, ok := errors.AsType[*receipt.ChainError](err); ok {
		seq := ""
		if ce.Seq != 0 {
			seq = fmt.Sprintf(" (seq %d)", ce.Seq)
		}
		c.errorf("%s: line %d%s at offset %d: %s", fileField(name), ce.Line, seq, ce.Offset, ce.What)
		switch {
		case sum.Records == 1:
			c.hintf("the record before it verifies: seq %d, last %v", sum.FirstSeq, sum.Last)
		case sum.Records > 1:
			c.hintf("the %d records before it verify: seq %d to %d, last %v", sum.Records, sum.FirstSeq, sum.LastSeq, sum.Last)
		}
		switch {
		case errors.Is(err, receipt.ErrTruncated):
			c.hintf("the high-water mark in %s records seq %d: acknowledged receipts are missing from the end of %s (truncated, deleted, or an older copy); the gate refuses to open it", fileField(*hwm), mark.Seq, fileField(name))
		case errors.Is(err, receipt.ErrReplaced):
			c.hintf("%s is not the log that %s was written for, or it was rewritten; the gate refuses to open it", fileField(name), fileField(*hwm))
		case errors.Is(err, receipt.ErrUnacknowledged):
			c.hintf("a record past the high-water mark was never acknowledged (a crash, or a failed write or fsync, before the mark was updated): its decision did not take effect, and the gate's next run cuts it off into FILE.torn")
		case errors.Is(err, receipt.ErrTorn):
			c.hintf("a torn record is what a crash during an append leaves; the log's next Open keeps it in FILE.torn and cuts it off")
		case errors.Is(err, receipt.ErrKeyID) && ce.Line == 1:
			c.hintf("is --key the key that signs this log? its key id is %s", receipt.KeyID(pub))
		}
		return exitRejected
	}
	if err != nil {
		c.ioFailure(name, err)
		return exitUsage
	}
	checked := "; not checked against a high-water mark\n"
	if mark != nil {
		checked = fmt.Sprintf("; checked against the high-water mark in %s, seq %d\n", fileField(*hwm), mark.Seq)
	}
	if sum.Records == 0 {
		return c.write([]byte("verified 0 records" + checked))
	}
	return c.write(fmt.Appendf(nil, "verified %s, seq %d to %d, last %v%s", plural(sum.Records, "record", "records"), sum.FirstSeq, sum.LastSeq, sum.Last, checked))
}

// publicKey reads the --key argument: a file holding the public key or the
// private key (whose public key it derives, as the gate's signer does, and
// says so in a hint), or the public key itself. The file is a key file
// (keyKind: regular, bounded); a private key file's permissions are
// checked unless insecure is set. It reports a failure and returns false.
func (c *cli) publicKey(arg string, insecure bool) (ed25519.PublicKey, bool) {
	text, fi, err := readBounded(arg, keyKind)
	if err != nil {
		if _, ok := errors.AsType[*fs.PathError](err); ok {
			if pub, perr := receipt.ParsePublicKey([]byte(arg)); perr == nil {
				return pub, true
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			c.errorf("--key: %s is neither a file nor a public key in EP's form (base64url SPKI)", quote(arg))
		} else {
			c.errorf("--key: %s: %s", fileField(arg), ioMessage(err))
		}
		return nil, false
	}
	pub, err := receipt.ParsePublicKey(text)
	if err == nil {
		return pub, true
	}
	if bytes.Contains(text, []byte("-----BEGIN PRIVATE KEY-----")) {
		priv, perr := receipt.ParsePrivateKey(text)
		if perr != nil {
			c.errorf("--key: %s: %v", fileField(arg), perr)
			return nil, false
		}
		if !c.checkPrivateKeyFile("--key: ", arg, fi, insecure) {
			return nil, false
		}
		pub = receipt.NewSigner(priv).Public()
		c.hintf("--key %s is a private key file: verifying with the public key derived from it, key id %s ('bbdigest keygen -y KEYFILE' prints it)", fileField(arg), receipt.KeyID(pub))
		return pub, true
	}
	c.errorf("--key: %s: %v", fileField(arg), err)
	return nil, false
}

// receiptsVerifyEP runs "bbdigest receipts verify-ep".
func (c *cli) receiptsVerifyEP(args []string) int {
	const cmd = "receipts verify-ep"
	set := c.flagSet(cmd)
	operands, code := c.parse(set, args, 1)
	if code >= 0 {
		return code
	}
	if len(operands) == 0 {
		return c.usageError(cmd, "missing VECTORS.json")
	}
	name := operands[0]
	src, _, err := c.readBoundedArg(name, vectorKind)
	if err != nil {
		c.ioFailure(name, err)
		return exitUsage
	}
	out, failed, err := epvector.Run(nil, src)
	if err != nil {
		c.errorf("%s: %v", fileField(name), err)
		return exitUsage
	}
	if code := c.write(out); code != exitOK {
		return code
	}
	if failed > 0 {
		return exitRejected
	}
	return exitOK
}
