package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"

	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/keyfile"
	"github.com/bbdigest/bbdigest/receipt"
)

// keygenHelp is the help of keygen, help/keygen.txt.
var keygenHelp = helpFile("keygen")

// keygen runs "bbdigest keygen".
func (c *cli) keygen(args []string) int {
	set := c.flagSet("keygen")
	out := set.String("out", "", "")
	public := set.Bool("y", false, "")
	insecureKey := set.Bool("insecure-key-permissions", false, "")
	operands, code := c.parse(set, args, 1)
	if code >= 0 {
		return code
	}
	outSet := gnuflag.Given(set)["out"]
	switch {
	case *insecureKey && !*public:
		return c.usageError("keygen", "--insecure-key-permissions goes with -y, which reads a key file")
	case *public && outSet:
		return c.usageError("keygen", "-y prints a public key to stdout: no --out")
	case *public && len(operands) == 0:
		return c.usageError("keygen", "-y needs KEYFILE, the private key file (\"-\" for stdin)")
	case *public:
		return c.keygenPublic(operands[0], *insecureKey)
	case len(operands) > 0:
		return c.usageError("keygen", "unexpected argument "+quote(operands[0])+" (-y KEYFILE prints the public key of a private key file)")
	case outSet && (*out == "" || *out == "-"):
		return c.usageError("keygen", "--out needs a file name (without --out the key goes to stdout)")
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		c.errorf("keygen: %v", err)
		return exitUsage
	}
	pemText, err := receipt.MarshalPrivateKey(priv)
	if err != nil {
		c.errorf("keygen: %v", err)
		return exitUsage
	}
	id, pubText := receipt.KeyID(pub), receipt.MarshalPublicKey(pub)
	if !outSet {
		if f, ok := c.stdout.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				c.errorf("keygen: stdout is a terminal: not writing a private key there")
				c.hintf("write it to a file with --out KEYFILE, or redirect stdout")
				return exitUsage
			}
		}
		text := "# key id: " + id + "\n# public key: " + pubText + "\n" + string(pemText)
		return c.write([]byte(text))
	}
	if err := keyfile.WritePair(*out, pemText, []byte(pubText+"\n")); err != nil {
		if e, ok := errors.AsType[*keyfile.ExistsError](err); ok {
			c.errorf("keygen: %s exists: not overwriting a key", fileField(e.Path))
		} else if e, ok := errors.AsType[*keyfile.PathError](err); ok {
			c.ioFailure(e.Path, e.Err)
		}
		return exitUsage
	}
	return c.write([]byte(id + "\n"))
}

// keygenPublic runs "bbdigest keygen -y KEYFILE": it prints the public key
// of the private key in the file name ("-": stdin), in EP's form, as
// keygen --out writes it to KEYFILE.pub. It derives the public key as the
// gate's signer does (receipt.NewSigner), from the seed.
func (c *cli) keygenPublic(name string, insecure bool) int {
	priv, ok := c.privateKey(name, insecure, " already: -y reads a private key file")
	if !ok {
		return exitUsage
	}
	return c.write([]byte(receipt.MarshalPublicKey(receipt.NewSigner(priv).Public()) + "\n"))
}
