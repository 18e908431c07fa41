package main

import (
	"encoding/json"
	"fmt"

	"github.com/bbdigest/bbdigest/hashing"
)

// cpu prints the CPU features found and the SHA-256 paths chosen for
// single messages and for batches, as text or (--json) as one JSON object.
func (c *cli) cpu(args []string) int {
	fs := c.flagSet("cpu")
	asJSON := fs.Bool("json", false, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	d := hashing.Describe()
	if *asJSON {
		b, err := json.Marshal(d)
		if err != nil {
			c.errorf("cpu: %v", err)
			return exitUsage
		}
		fmt.Fprintf(c.stdout, "%s\n", b)
		return exitOK
	}
	fmt.Fprintln(c.stdout, d.String())
	if d.Warning != "" {
		c.hintf("%s", d.Warning)
	}
	return exitOK
}
