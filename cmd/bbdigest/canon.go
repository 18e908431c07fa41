package main

import "github.com/bbdigest/bbdigest/canon"

// canonHelp is the help of canon, help/canon.txt, whose two %s are the
// profile option and the lines options.
var canonHelp = fill(fill(helpFile("canon"), profileOption), fill(linesOption, "canonical form"))

// canon is "bbdigest canon [--profile NAME] [--lines [--workers N]]
// [FILE|-]": it writes the canonical form of one input (with --lines, of
// each line, lines.go) to stdout.
func (c *cli) canon(args []string) int {
	fs := c.flagSet("canon")
	profile := fs.String("profile", "strict", "")
	lines, workers := linesFlags(fs)
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	if c.workersWithoutLines(fs, *lines) {
		return exitUsage
	}
	p, ok := c.profile(*profile)
	if !ok {
		return exitUsage
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	if *lines {
		return c.lines(p, name, false, int(*workers))
	}
	out, code := c.canonicalize(canon.New(p), name)
	if code != exitOK {
		return code
	}
	return c.write(out)
}
