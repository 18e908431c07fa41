package main

import (
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

// ledgerHelp is the help of ledger, help/ledger.txt.
var ledgerHelp = helpFile("ledger")

// ledgerInit runs "bbdigest ledger init PATH".
func (c *cli) ledgerInit(args []string) int {
	const cmd = "ledger init"
	set := c.flagSet(cmd)
	operands, code := c.parse(set, args, 1)
	if code >= 0 {
		return code
	}
	switch {
	case len(operands) == 0:
		return c.usageError(cmd, "missing PATH")
	case operands[0] == "":
		return c.usageError(cmd, "empty PATH")
	case operands[0] == "-":
		return c.usageError(cmd, "PATH -: the ledger is a file, not stdout")
	}
	path := operands[0]
	// No other process can hold a file that does not exist yet: there is
	// nothing to wait for.
	l, err := bolt.Create(path, &bolt.Options{})
	if err != nil {
		return c.ledgerFailure(cmd, err)
	}
	if err := l.Close(); err != nil {
		return c.ledgerFailure(cmd, err)
	}
	return exitOK
}
