// Package cmdtable is a command line's table of commands, and what is made
// from it: the lookup of a command by name or path, the overview of the
// commands (their usage lines and summaries), the manual page, and the
// tree that internal/shell writes completion scripts from, each command
// with the flags of its own flag set. bbdigest's table is
// cmd/bbdigest/commands.go; its commands run on the command's own value
// (C, *cli there), which the package never looks into.
//
// Tests: cmdtable_test.go holds the lookups (TestLookup, TestFindPath, TestHelp,
// TestLeaves), the flags of a flag set as completion offers them
// (TestFlags), the overview's and the page's layout over a small table
// (TestOverview, TestManPage), the completion tree (TestCompletionTree) and
// OrList; cmd/bbdigest's tests hold bbdigest's own table to its rules
// (TestTable), its overview, page and scripts byte for byte.
package cmdtable

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/roff"
	"github.com/bbdigest/bbdigest/internal/shell"
)

// Command is one entry of a command table: a command, or a subcommand of
// one, run on a value of type C (the command line's invocation).
type Command[C any] struct {
	// Name is the word that selects the command.
	Name string
	// Aliases are other words that select the command as Name does
	// (--version for version); help and completion know the command by
	// Name alone.
	Aliases []string
	// Summary says in one line what the command does; the overview wraps
	// it.
	Summary string
	// Synopsis are the command's lines in the overview's Usage, after
	// "PROGRAM NAME".
	Synopsis []string
	// Help is the text "PROGRAM help NAME" and "PROGRAM NAME --help"
	// print; a subcommand's is its command's.
	Help string
	// Run runs the command with the arguments after its name. A command
	// with Subs has no Run: the first argument names the subcommand.
	Run func(c C, args []string) int
	// Subs are the subcommands.
	Subs []Command[C]
	// Values lists the values of flags whose value is one of a few words
	// (--profile strict|rfc8785), for completion; a flag listed with no
	// words takes a value that completes to nothing (--server ID). The
	// value of any other flag that takes a string completes to a file
	// name, and the value of a number or duration to nothing.
	Values map[string][]string
	// Operands says what the arguments after the flags are.
	Operands Operands
}

// Operands is what the operands of a command are, for completion.
type Operands uint8

// The kinds of Operands.
const (
	Files        Operands = iota // file names (the default)
	NoOperands                   // none: the command takes no operand
	CommandNames                 // a command name (help)
	ShellNames                   // a shell name (completion)
)

// Lookup returns the command of cmds called name or one of its aliases, or
// nil.
func Lookup[C any](cmds []Command[C], name string) *Command[C] {
	for i := range cmds {
		if cmds[i].Name == name || slices.Contains(cmds[i].Aliases, name) {
			return &cmds[i]
		}
	}
	return nil
}

// FindPath returns the command of cmds at path, its words ("envelope
// validate"), and the top-level command it is in; nil for a path that
// names none. Aliases do not count.
func FindPath[C any](cmds []Command[C], path string) (cmd, top *Command[C]) {
	words := strings.Split(path, " ")
	for i, w := range words {
		j := slices.IndexFunc(cmds, func(c Command[C]) bool { return c.Name == w })
		if j < 0 {
			return nil, nil
		}
		cmd = &cmds[j]
		if i == 0 {
			top = cmd
		}
		cmds = cmd.Subs
	}
	return cmd, top
}

// Help returns the help text of the command of cmds at path, as "PROGRAM
// help NAME" and "PROGRAM NAME --help" print it: a subcommand's
// ("envelope validate", the name of its flag set) is its command's. It
// returns false for a path that names no command.
func Help[C any](cmds []Command[C], path string) (string, bool) {
	cmd, top := FindPath(cmds, path)
	if cmd == nil {
		return "", false
	}
	return top.Help, true
}

// Names returns the names of cmds, in order.
func Names[C any](cmds []Command[C]) []string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	return names
}

// Leaves calls f with the path of each command of cmds that runs (each
// command without subcommands, and each subcommand), in table order.
func Leaves[C any](cmds []Command[C], f func(path string, cmd *Command[C])) {
	var walk func(prefix string, cmds []Command[C])
	walk = func(prefix string, cmds []Command[C]) {
		for i := range cmds {
			path := prefix + cmds[i].Name
			if cmds[i].Subs == nil {
				f(path, &cmds[i])
			} else {
				walk(path+" ", cmds[i].Subs)
			}
		}
	}
	walk("", cmds)
}

// Flag is one flag of a command, as completion offers it.
type Flag struct {
	Name  string
	Value bool     // takes a value
	Files bool     // the value is a file name
	Words []string // the value is one of these
}

// Flags returns the flags of fs, the flag set of the command cmd (nil:
// none), sorted by name, with what their values complete to (Values).
// One-letter flags are left out: each is a short spelling of a long flag
// that is listed.
func (cmd *Command[C]) Flags(fs *flag.FlagSet) []Flag {
	if fs == nil {
		return nil
	}
	var out []Flag
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			return
		}
		cf := Flag{Name: f.Name, Value: true}
		if gnuflag.IsBool(f) {
			cf.Value = false
		} else if words, ok := cmd.Values[f.Name]; ok {
			cf.Words = words
		} else if g, ok := f.Value.(flag.Getter); ok {
			_, cf.Files = g.Get().(string)
		}
		out = append(out, cf)
	})
	return out
}

// OrList returns words as "a, b or c".
func OrList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Doc is what a command line's overview and manual page say besides its
// table: its name and the parts all its commands share, each laid out by
// hand for 80 columns.
type Doc struct {
	Program     string // the command's name, "bbdigest"
	Intro       string // what the program is, first
	Notes       string // after the list of commands
	Diagnostics string // the format of its messages
	Exit        string // its exit codes
	Examples    string
}

// Overview returns the overview of the commands cmds ("PROGRAM help"): the
// intro, the usage lines and the list of the commands with their
// summaries, then the notes, diagnostics, exit status and examples of d.
func Overview[C any](cmds []Command[C], d Doc) string {
	var b strings.Builder
	b.WriteString(d.Intro + "\nUsage:\n")
	for _, line := range synopsisLines(cmds, d.Program) {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("\nCommands:\n")
	for _, cmd := range cmds {
		fmt.Fprintf(&b, "  %-11s %s\n", cmd.Name, roff.Wrap(cmd.Summary, 14, 76))
	}
	b.WriteString("\n" + d.Notes +
		"\nDiagnostics:\n" + d.Diagnostics +
		"\nExit status:\n" + d.Exit +
		"\nExamples:\n" + d.Examples)
	return b.String()
}

// synopsisLines returns the usage lines of the overview, one or more per
// command: "PROGRAM NAME SYNOPSIS", NAME padded to line up the short ones.
func synopsisLines[C any](cmds []Command[C], program string) []string {
	var lines []string
	for _, cmd := range cmds {
		if cmd.Synopsis == nil {
			lines = append(lines, program+" "+cmd.Name)
		}
		for _, s := range cmd.Synopsis {
			lines = append(lines, fmt.Sprintf("%s %-6s %s", program, cmd.Name, s))
		}
	}
	return lines
}

// Man is what a manual page says besides its Doc and its table.
type Man struct {
	Doc
	Date    string // the date of .TH, digits and hyphens, unescaped (mandoc reads it)
	Source  string // the source of .TH, "bbdigest 1.2.3"
	What    string // what the program does, the NAME line after "PROGRAM \-" (escaped here)
	Env     []Var  // the environment variables it reads (ENVIRONMENT)
	SeeAlso string // SEE ALSO, in roff as it is
}

// Var is an environment variable the program reads, and what it does.
type Var struct{ Name, Text string }

// ManPage returns the manual page PROGRAM(1) of the commands cmds, in roff
// with the man macros: NAME, SYNOPSIS (the usage lines), DESCRIPTION (the
// intro, the notes, the commands with their summaries, the diagnostics),
// COMMANDS (each command's help as it prints it), EXIT STATUS,
// ENVIRONMENT, EXAMPLES and SEE ALSO. The texts laid out by hand go in
// no-fill mode, each character escaped for roff (internal/roff).
func ManPage[C any](cmds []Command[C], m Man) string {
	var b strings.Builder
	p := m.Program
	fmt.Fprintf(&b, `.\" %s(1), made by '%s man' from the help of %s.`+"\n", p, p, p)
	fmt.Fprintf(&b, ".TH %s 1 \"%s\" %s \"User Commands\"\n", strings.ToUpper(p), m.Date, roff.Arg(m.Source))

	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff.Escape(p), roff.Escape(m.What))

	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, cmd := range cmds {
		if cmd.Synopsis == nil {
			fmt.Fprintf(&b, "\\fB%s %s\\fR\n", roff.Escape(p), roff.Escape(cmd.Name))
		}
		for _, s := range cmd.Synopsis {
			fmt.Fprintf(&b, "\\fB%s %s\\fR %s\n", roff.Escape(p), roff.Escape(cmd.Name), roff.Escape(s))
		}
	}
	b.WriteString(".fi\n")

	b.WriteString(".SH DESCRIPTION\n")
	roff.Fill(&b, m.Intro)
	b.WriteString(".PP\n")
	roff.Fill(&b, m.Notes)
	b.WriteString(".SS Commands\n")
	for _, cmd := range cmds {
		fmt.Fprintf(&b, ".TP 12n\n.B %s\n", roff.Escape(cmd.Name))
		roff.Fill(&b, cmd.Summary)
	}
	b.WriteString(".SS Diagnostics\n")
	roff.NoFill(&b, roff.Dedent(m.Diagnostics))

	// Each command's help as it prints it, indented less than a
	// section's text, so that its lines, laid out for 80 columns, fit
	// in 80 columns on the page.
	b.WriteString(".SH COMMANDS\n")
	for _, cmd := range cmds {
		fmt.Fprintf(&b, ".SS %s\n.in 3n\n.sp\n", roff.Arg(p+" "+cmd.Name))
		roff.NoFill(&b, cmd.Help)
		b.WriteString(".in\n")
	}

	b.WriteString(".SH EXIT STATUS\n")
	roff.NoFill(&b, roff.Dedent(m.Exit))

	b.WriteString(".SH ENVIRONMENT\n")
	for _, e := range m.Env {
		fmt.Fprintf(&b, ".TP\n.B %s\n", roff.Escape(e.Name))
		roff.Fill(&b, e.Text)
	}

	b.WriteString(".SH EXAMPLES\n")
	roff.NoFill(&b, roff.Dedent(m.Examples))

	b.WriteString(".SH SEE ALSO\n" + m.SeeAlso)
	return b.String()
}

// CompletionTree returns the commands cmds for completion (internal/shell),
// with the flags of each command that runs, as flagsOf returns its flag
// set (nil: none), shells the words of a ShellNames operand, and the
// aliases of the commands that are long flags (--help, --version), which
// completion offers in place of a command.
func CompletionTree[C any](cmds []Command[C], flagsOf func(path string) *flag.FlagSet, shells []string) shell.Tree {
	var tree func(prefix string, cmds []Command[C]) []shell.Command
	tree = func(prefix string, cmds []Command[C]) []shell.Command {
		var nodes []shell.Command
		for i := range cmds {
			cmd := &cmds[i]
			n := shell.Command{Name: cmd.Name, Summary: cmd.Summary, Path: prefix + cmd.Name}
			switch cmd.Operands {
			case Files:
				n.Operands.Files = true
			case CommandNames:
				n.Operands.Commands = true
			case ShellNames:
				n.Operands.Words = shells
			}
			if cmd.Subs != nil {
				n.Subs = tree(n.Path+" ", cmd.Subs)
			} else {
				for _, f := range cmd.Flags(flagsOf(n.Path)) {
					n.Flags = append(n.Flags, shell.Flag{Name: f.Name, Value: f.Value, Files: f.Files, Words: f.Words})
				}
			}
			nodes = append(nodes, n)
		}
		return nodes
	}
	t := shell.Tree{Commands: tree("", cmds)}
	for _, cmd := range cmds {
		for _, a := range cmd.Aliases {
			if strings.HasPrefix(a, "--") {
				t.Flags = append(t.Flags, a)
			}
		}
	}
	return t
}
