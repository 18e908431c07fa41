package main

import (
	"strconv"

	"github.com/bbdigest/bbdigest/internal/archivegen"
	"github.com/bbdigest/bbdigest/internal/diag"
)

// archiveGen is "bbdigest archive gen --records N [--kind K] [--seed S]
// [--wrong N] [--canonical]": it writes a generated archive to stdout.
func (c *cli) archiveGen(args []string) int {
	fs := c.flagSet("archive gen")
	records := fs.Int64("records", -1, "")
	kind := fs.String("kind", "envelopes", "")
	seed := fs.Uint64("seed", 1, "")
	wrong := fs.Int64("wrong", 0, "")
	canonical := fs.Bool("canonical", false, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	if *records < 0 {
		return c.usageError(fs.Name(), "--records N is required (N >= 0)")
	}
	k, err := archivegen.ParseKind(*kind)
	if err != nil {
		return c.usageError(fs.Name(), "unknown --kind "+quote(*kind)+" (envelopes, mixed or claims)")
	}
	switch {
	case *wrong != 0 && k != archivegen.Claims:
		return c.usageError(fs.Name(), "--wrong needs --kind claims")
	case *wrong < 0 || *wrong > *records:
		return c.usageError(fs.Name(), "--wrong must be within 0.."+strconv.FormatInt(*records, 10))
	}
	err = archivegen.Write(stdoutWriter{c.stdout}, archivegen.Options{Kind: k, Records: *records, Seed: *seed, Wrong: *wrong, Canonical: *canonical})
	if err != nil {
		c.errorf("%s", diag.WriteMessage(err))
		return exitUsage
	}
	return exitOK
}
