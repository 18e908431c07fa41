package main

import (
	"errors"
	"time"

	"github.com/bbdigest/bbdigest"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
)

// resolutionSign is "bbdigest resolution sign --key KEYFILE --envelope FILE
// --resolution FILE --action FILE": it signs the principal's selection with
// the principal's key (gate.SignResolution) and prints the signed
// resolution document, for a gate whose policy names the principal.
func (c *cli) resolutionSign(args []string) int {
	const cmd = "resolution sign"
	fs := c.flagSet(cmd)
	keyFile := fs.String("key", "", "")
	envFile := fs.String("envelope", "", "")
	resFile := fs.String("resolution", "", "")
	actionFile := fs.String("action", "", "")
	insecureKey := fs.Bool("insecure-key-permissions", false, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	given := gnuflag.Given(fs)
	stdin := 0
	for _, f := range []struct{ name, value string }{{"key", *keyFile}, {"envelope", *envFile}, {"resolution", *resFile}, {"action", *actionFile}} {
		switch {
		case !given[f.name]:
			return c.usageError(cmd, "missing --"+f.name+" FILE")
		case f.value == "":
			// What an unset shell variable gives: never a default.
			return c.usageError(cmd, "empty --"+f.name+" FILE")
		case f.value == "-":
			stdin++
		}
	}
	if stdin > 1 {
		return c.usageError(cmd, "only one input can be stdin (-)")
	}

	// The principal's private key: a regular file of at most keyKind's
	// bound (or stdin), open to no one else unless
	// --insecure-key-permissions.
	priv, ok := c.principalKey(*keyFile, *insecureKey)
	if !ok {
		return exitUsage
	}

	// The envelope, the resolution and the action, each refused as the
	// other commands refuse it.
	envSrc, rejected, code := c.readInput(*envFile)
	if code >= 0 {
		return code
	}
	env, err := parseEnvelope(envSrc, rejected)
	if err != nil {
		c.reject(*envFile, err)
		return exitRejected
	}
	resSrc, rejected, code := c.readInput(*resFile)
	if code >= 0 {
		return code
	}
	if rejected != nil {
		c.reject(*resFile, rejected)
		return exitRejected
	}
	res, err := envelope.ParseResolution(resSrc)
	if err != nil {
		if me, ok := errors.AsType[*envelope.MalformedResolutionError](err); ok {
			for _, p := range me.Problems {
				c.rejection(*resFile, p.Pointer, p.Reason)
			}
			if me.Omitted > 0 {
				c.rejection(*resFile, "", "and "+plural(me.Omitted, "more problem", "more problems")+", not listed")
			}
		} else {
			c.reject(*resFile, err)
		}
		return exitRejected
	}
	actionSrc, rejected, code := c.readInput(*actionFile)
	if code >= 0 {
		return code
	}
	if rejected != nil {
		c.reject(*actionFile, rejected)
		return exitRejected
	}
	actDigest, err := bbdigest.Digest(actionSrc)
	if err != nil {
		c.reject(*actionFile, err)
		return exitRejected
	}

	doc, err := gate.SignResolution(env, res, actDigest, priv, time.Now())
	if err != nil {
		c.errorf("%v", err)
		return exitRejected
	}
	return c.write(append(doc, '\n'))
}
