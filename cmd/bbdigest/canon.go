package main

import "github.com/bbdigest/bbdigest/canon"

// canon is "bbdigest canon [--profile NAME] [--lines] [FILE|-]": it writes
// the canonical form of one input (with --lines, of each line) to stdout.
func (c *cli) canon(args []string) int {
	fs := c.flagSet("canon")
	profile := fs.String("profile", "strict", "")
	lines := fs.Bool("lines", false, "")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	p, ok := c.profile(*profile)
	if !ok {
		return exitUsage
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	cz := canon.New(p)
	if *lines {
		return c.lines(cz, name, false)
	}
	out, code := c.canonicalize(cz, name)
	if code != exitOK {
		return code
	}
	return c.write(out)
}
