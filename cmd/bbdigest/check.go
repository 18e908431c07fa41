package main

// digest --check: the lists of digests read, and internal/sumcheck's
// Checker over them (the flags, the answers, the warnings, whether a list
// passes, after GNU sha256sum --check), with the command's diagnostics and
// exit code.

import (
	"flag"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/sumcheck"
)

// checkFlagsWithoutCheck reports a flag of sumcheck.Only given without
// --check (the first by name), and whether there was one.
func (c *cli) checkFlagsWithoutCheck(set *flag.FlagSet) bool {
	var given string
	set.Visit(func(f *flag.Flag) {
		for _, name := range sumcheck.Only {
			if f.Name == name && given == "" {
				given = "--" + name
				if len(name) == 1 {
					given = "-" + name
				}
			}
		}
	})
	if given != "" {
		c.usageError(set.Name(), given+" goes with --check")
	}
	return given != ""
}

// check is "bbdigest digest --check [LIST...]": for each line of each LIST
// ("-" or none: stdin), a digest and a NAME in one of the forms
// sumline.Parse reads, it digests NAME and answers "NAME: OK",
// "NAME: FAILED", "NAME: FAILED open or read" or "NAME: FAILED rejected",
// then sums up each LIST in warnings, as sha256sum -c does.
func (c *cli) check(cz *canon.Canonicalizer, lists []string, opt sumcheck.Options) int {
	if len(lists) == 0 {
		lists = []string{"-"}
	}
	k := sumcheck.Checker{Options: opt, Out: c.stdout, Report: checkReport{c},
		Digest: func(dst []byte, name string) ([]byte, error) {
			out, err := c.canonical(cz, name)
			if err != nil {
				return dst, err
			}
			return appendDigest(dst, out), nil
		}}
	status := exitOK
	for _, list := range lists {
		src, _, err := c.readBoundedArg(list, checkListKind(c.limit()))
		if err != nil {
			c.ioFailure(list, err)
			status = max(status, exitUsage)
			continue
		}
		ok, err := k.Check(list, src)
		if err != nil {
			c.errorf("%v", err)
			return exitUsage // stdout is gone: no point going on
		}
		if !ok {
			status = max(status, exitRejected)
		}
	}
	return status
}

// checkReport is the cli as the Reporter of a sumcheck.Checker.
type checkReport struct{ c *cli }

func (r checkReport) Errorf(format string, args ...any) { r.c.errorf(format, args...) }
func (r checkReport) Hintf(format string, args ...any)  { r.c.hintf(format, args...) }
func (r checkReport) Warnf(format string, args ...any)  { r.c.warnf(format, args...) }
func (r checkReport) Reject(name string, err error)     { r.c.reject(name, err) }
func (r checkReport) IOFailure(name string, err error)  { r.c.ioFailure(name, err) }
