package main

import (
	"fmt"
	"strings"

	"github.com/bbdigest/bbdigest/internal/cpureport"
)

// cpuHelp is the help of cpu (help/cpu.txt).
var cpuHelp = helpFile("cpu")

// cpu prints the CPU features found, the SHA-256 paths chosen for single
// messages and for batches, and canon's kernels, as text or (--json) as one
// JSON object.
func (c *cli) cpu(args []string) int {
	fs := c.flagSet("cpu")
	asJSON := fs.Bool("json", false, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	r := cpureport.New()
	if *asJSON {
		return c.writeJSON(r)
	}
	// The text holds names from the environment (BBDIGEST_SHA256) and the
	// CPU: escape each line as any diagnostic.
	for line := range strings.Lines(r.String() + "\n") {
		fmt.Fprintln(c.stdout, safeText(strings.TrimSuffix(line, "\n")))
	}
	if r.Warning != "" {
		c.hintf("%s", r.Warning)
	}
	return exitOK
}
