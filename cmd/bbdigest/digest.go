package main

import (
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/sumcheck"
	"github.com/bbdigest/bbdigest/internal/sumline"
)

// digestHelp is the help of digest, help/digest.txt, whose two %s are
// the profile option and the lines options.
var digestHelp = fill(fill(helpFile("digest"), profileOption), fill(linesOption, "digest"))

// digest is "bbdigest digest": the digest of each input, one "DIGEST  NAME"
// line per input for several (or --names); with --lines (and --workers) the
// digest of each line (lines.go), with --check (-c) the answers to lists of
// digests (check.go).
func (c *cli) digest(args []string) int {
	const cmd = "digest"
	fs := c.flagSet(cmd)
	profile := fs.String("profile", "strict", "")
	lines, workers := linesFlags(fs)
	names := fs.Bool("names", false, "")
	check, opt := sumcheck.Flags(fs)
	operands, code := c.parse(fs, args, -1)
	if code >= 0 {
		return code
	}
	switch {
	case *lines && *names:
		return c.usageError(cmd, "--lines and --names do not go together: --lines writes no names")
	case *check && (*lines || *names):
		return c.usageError(cmd, "--check does not go with --lines or --names")
	case !*check && c.checkFlagsWithoutCheck(fs):
		return exitUsage
	case c.workersWithoutLines(fs, *lines):
		return exitUsage
	case *lines && len(operands) > 1:
		c.errorf("digest: --lines reads one input, not %d", len(operands))
		c.hintf("run bbdigest digest --lines once per file")
		return exitUsage
	}
	p, ok := c.profile(*profile)
	if !ok {
		return exitUsage
	}
	if *lines {
		name := "-"
		if len(operands) == 1 {
			name = operands[0]
		}
		return c.lines(p, name, true, int(*workers))
	}
	cz := canon.New(p)
	if *check {
		return c.check(cz, operands, *opt)
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	named := *names || len(operands) > 1
	status := exitOK
	var line []byte
	for _, name := range operands {
		out, code := c.canonicalize(cz, name)
		if code != exitOK {
			status = max(status, code)
			continue
		}
		line = appendDigest(line[:0], out)
		if named {
			line = sumline.AppendName(append(line, "  "...), name)
		}
		if code := c.write(append(line, '\n')); code != exitOK {
			return code // stdout is gone: no point going on
		}
	}
	return status
}

// appendDigest appends the digest string of the canonical bytes, "sha256:"
// and 64 lowercase hexadecimal characters, to dst. It does not allocate
// when dst has room.
//
// This is the only place the CLI computes a digest, but for --lines, whose
// digests package batch computes (lines.go).
func appendDigest(dst, canonical []byte) []byte {
	return hashing.Sum(canonical).AppendTo(dst)
}
