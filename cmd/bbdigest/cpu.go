package main

import (
	"fmt"
	"strings"

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
		return c.writeJSON(d)
	}
	// The text holds names from the environment (BBDIGEST_SHA256) and the
	// CPU: escape each line as any diagnostic.
	for line := range strings.Lines(d.String() + "\n") {
		fmt.Fprintln(c.stdout, safeText(strings.TrimSuffix(line, "\n")))
	}
	if d.Warning != "" {
		c.hintf("%s", d.Warning)
	}
	return exitOK
}
