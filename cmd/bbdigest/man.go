package main

// bbdigest man: the manual page bbdigest(1), in roff with the man macros,
// made from the help texts and the command table (cmdtable.ManPage), so
// that it says what 'bbdigest help' says.

import (
	"github.com/bbdigest/bbdigest/internal/buildinfo"
	"github.com/bbdigest/bbdigest/internal/cmdtable"
)

// manHelp is the help of man, help/man.txt.
var manHelp = helpFile("man")

// environment lists the environment variables that bbdigest reads, for
// the page's ENVIRONMENT (TestManEnvironment holds it to the os.Getenv
// and os.LookupEnv calls of the packages bbdigest is built from).
var environment = []cmdtable.Var{
	{Name: "BBDIGEST_SHA256", Text: "Force a SHA-256 path: generic, shani, avx2, avx512 or arm64. An unknown name, or a path this CPU or build cannot run, is not fatal: bbdigest runs the detected path, and 'bbdigest cpu' prints a warning that says why."},
	{Name: "JOB_COMPLETION_INDEX", Text: "The index of the shard that archive rehash and archive verify answer with --shards N, as a Kubernetes Indexed Job sets it in each pod."},
}

// man is "bbdigest man": it prints the manual page.
func (c *cli) man(args []string) int {
	fs := c.flagSet("man")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	return c.write([]byte(manPage()))
}

// manPage returns the manual page bbdigest(1). Its date is the day of the
// commit built, when the build recorded it, so that the same build always
// writes the same page; else today's.
func manPage() string {
	return cmdtable.ManPage(commands, cmdtable.Man{Doc: doc, Date: buildinfo.Date(), Source: "bbdigest " + version(),
		What: "canonicalize JSON with RFC 8785 (JCS) and print SHA-256 digests", Env: environment,
		SeeAlso: `.BR sha256sum (1)
.PP
RFC 8785, JSON Canonicalization Scheme (JCS);
RFC 6901, JavaScript Object Notation (JSON) Pointer;
draft\-morrison\-binding\-moment\-envelope\-04, the binding\-moment envelope.
`})
}
