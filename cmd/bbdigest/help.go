package main

// The help texts: "bbdigest help" is the overview, and documents what all
// commands share (the diagnostic format, the rejection classes, the exit
// codes); each command has its own, printed by "bbdigest help COMMAND" and
// "bbdigest COMMAND --help". The texts are in help/, one file a command,
// named after it (help/digest.txt), embedded; each command's file here
// names its help (digestHelp in digest.go).

import (
	"embed"
	"io"
	"strings"

	"github.com/bbdigest/bbdigest/internal/cmdtable"
)

// help prints the overview, or with one argument that command's help.
func (c *cli) help(args []string) int {
	fs := c.flagSet("help")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	if len(operands) == 0 {
		io.WriteString(c.stdout, usage)
		return exitOK
	}
	text, ok := cmdtable.Help(commands, operands[0])
	if !ok || strings.Contains(operands[0], " ") {
		c.errorf("help: unknown command %s", quote(operands[0]))
		c.hintf("run 'bbdigest help' for usage")
		return exitUsage
	}
	io.WriteString(c.stdout, text)
	return exitOK
}

// The parts of the overview, "bbdigest help", that are not made from the
// command table (overview puts them together); the man page has them too.
var (
	overviewIntro       = helpFile("overview-intro")
	overviewNotes       = helpFile("overview-notes")
	overviewDiagnostics = helpFile("overview-diagnostics")
	overviewExit        = helpFile("overview-exit")
	overviewExamples    = helpFile("overview-examples")
)

// overview returns the overview, usage: the intro, the usage lines and
// the list of the commands of the table, then what all commands share.
func overview() string { return cmdtable.Overview(commands, doc) }

// doc is what the overview and the man page say besides the table.
var doc = cmdtable.Doc{Program: "bbdigest", Intro: overviewIntro, Notes: overviewNotes,
	Diagnostics: overviewDiagnostics, Exit: overviewExit, Examples: overviewExamples}

// profileOption and linesOption document the options canon and digest
// share; linesOption's %s is what a line is answered with.
var (
	profileOption = helpFile("profile-option")
	linesOption   = helpFile("lines-option")
)

// helpHelp is the help of help; the %s is a paragraph that lists the
// commands of the table (init fills it).
var helpHelp = helpFile("help")

// fill replaces the one "%s" of a help text with s.
func fill(text, s string) string { return strings.Replace(text, "%s", s, 1) }

// helpFiles holds the help texts, help/NAME.txt for the command NAME (and
// the parts of the overview and the options that several share), laid out
// by hand for 80 columns.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpFile returns the text of help/NAME.txt.
func helpFile(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("BUG: no help text " + name + ": " + err.Error())
	}
	return string(b)
}
