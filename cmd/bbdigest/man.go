package main

// bbdigest man: the manual page bbdigest(1), in roff with the man macros,
// made from the help texts and the command table, so that it says what
// 'bbdigest help' says. The help texts are laid out by hand (tables,
// aligned examples), so they go into the page as they are, in no-fill
// mode, each character escaped for roff (internal/roff).

import (
	"fmt"
	"strings"

	"github.com/bbdigest/bbdigest/internal/buildinfo"
	"github.com/bbdigest/bbdigest/internal/roff"
)

// manHelp is the help of man, help/man.txt.
var manHelp = helpFile("man")

// environment lists the environment variables that bbdigest reads, for
// the page's ENVIRONMENT (TestManEnvironment holds it to the os.Getenv
// and os.LookupEnv calls of the packages bbdigest is built from).
var environment = []struct{ name, text string }{
	{"BBDIGEST_SHA256", "Force a SHA-256 path: generic, shani, avx2, avx512 or arm64. An unknown name, or a path this CPU or build cannot run, is not fatal: bbdigest runs the detected path, and 'bbdigest cpu' prints a warning that says why."},
	{"JOB_COMPLETION_INDEX", "The index of the shard that archive rehash and archive verify answer with --shards N, as a Kubernetes Indexed Job sets it in each pod."},
}

// man is "bbdigest man": it prints the manual page.
func (c *cli) man(args []string) int {
	fs := c.flagSet("man")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	return c.write([]byte(manPage()))
}

// manPage returns the manual page bbdigest(1).
func manPage() string {
	var b strings.Builder
	b.WriteString(`.\" bbdigest(1), made by 'bbdigest man' from the help of bbdigest.` + "\n")
	// The date, digits and hyphens, goes unescaped: mandoc reads it. It is
	// the day of the commit built, when the build recorded it, so that the
	// same build always writes the same page; else today's.
	fmt.Fprintf(&b, ".TH BBDIGEST 1 \"%s\" %s \"User Commands\"\n", buildinfo.Date(), roff.Arg("bbdigest "+version()))

	b.WriteString(".SH NAME\nbbdigest \\- canonicalize JSON with RFC 8785 (JCS) and print SHA\\-256 digests\n")

	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, cmd := range commands {
		if cmd.synopsis == nil {
			fmt.Fprintf(&b, "\\fBbbdigest %s\\fR\n", roff.Escape(cmd.name))
		}
		for _, s := range cmd.synopsis {
			fmt.Fprintf(&b, "\\fBbbdigest %s\\fR %s\n", roff.Escape(cmd.name), roff.Escape(s))
		}
	}
	b.WriteString(".fi\n")

	b.WriteString(".SH DESCRIPTION\n")
	roff.Fill(&b, overviewIntro)
	b.WriteString(".PP\n")
	roff.Fill(&b, overviewNotes)
	b.WriteString(".SS Commands\n")
	for _, cmd := range commands {
		fmt.Fprintf(&b, ".TP 12n\n.B %s\n", roff.Escape(cmd.name))
		roff.Fill(&b, cmd.summary)
	}
	b.WriteString(".SS Diagnostics\n")
	roff.NoFill(&b, roff.Dedent(overviewDiagnostics))

	// Each command's help as it prints it, indented less than a
	// section's text, so that its lines, laid out for 80 columns, fit
	// in 80 columns on the page.
	b.WriteString(".SH COMMANDS\n")
	for _, cmd := range commands {
		fmt.Fprintf(&b, ".SS %s\n.in 3n\n.sp\n", roff.Arg("bbdigest "+cmd.name))
		roff.NoFill(&b, cmd.help)
		b.WriteString(".in\n")
	}

	b.WriteString(".SH EXIT STATUS\n")
	roff.NoFill(&b, roff.Dedent(overviewExit))

	b.WriteString(".SH ENVIRONMENT\n")
	for _, e := range environment {
		fmt.Fprintf(&b, ".TP\n.B %s\n", roff.Escape(e.name))
		roff.Fill(&b, e.text)
	}

	b.WriteString(".SH EXAMPLES\n")
	roff.NoFill(&b, roff.Dedent(overviewExamples))

	b.WriteString(`.SH SEE ALSO
.BR sha256sum (1)
.PP
RFC 8785, JSON Canonicalization Scheme (JCS);
RFC 6901, JavaScript Object Notation (JSON) Pointer;
draft\-morrison\-binding\-moment\-envelope\-04, the binding\-moment envelope.
`)
	return b.String()
}
