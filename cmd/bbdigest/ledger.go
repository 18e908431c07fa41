package main

import (
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

const ledgerHelp = `Usage:
  bbdigest ledger init PATH
  bbdigest help ledger

ledger init creates an empty single-use ledger at PATH: the bbolt file PATH
and its high-water file PATH.hwm, both mode 0600, each synced to disk
before it returns. It prints nothing. It never replaces anything: when
PATH exists (a ledger or any other file) or PATH.hwm does (left by a
ledger deleted without it), it changes nothing and fails. Killed while it
runs, it leaves nothing, or an empty ledger that the other commands open.

The ledger is where a host records the envelopes it emits ('bbdigest
envelope emit --ledger PATH', which creates a missing ledger too) and
where 'bbdigest resolution verify --ledger PATH' and 'bbdigest gate
--ledger PATH' consume their resolutions. Those two never create one: a
PATH with no ledger is an error (exit 3), so that a typo cannot pass for
an empty ledger. Run ledger init once, when setting up, so that they find
a ledger before the first envelope is emitted.

Keep both files, and their directory, writable only by the host, and
never restore them from a backup (see --ledger in 'bbdigest help
resolution'). Deleting both forgets which envelopes were consumed.

Exit status:
  0  the ledger was created
  2  usage error, or PATH or PATH.hwm exists: nothing was changed
  3  the ledger could not be created (a missing directory, no permission,
     I/O error); what was created is removed

Examples:
  bbdigest ledger init /var/lib/bbdigest/ledger.db
  bbdigest envelope emit --ledger /var/lib/bbdigest/ledger.db envelope.json
`

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
