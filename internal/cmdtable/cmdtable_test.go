package cmdtable

import (
	"flag"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/shell"
)

// run is the value the commands of the test table run on.
type run struct{}

// runs is what they run.
func runs(*run, []string) int { return 0 }

// table is a small table: a command with flags and an alias, one with
// subcommands, help.
func table() []Command[*run] {
	return []Command[*run]{
		{Name: "canon", Summary: "write the canonical form", Synopsis: []string{"[--profile NAME] [FILE|-]"}, Help: "Usage:\n  prog canon\n",
			Run: runs, Values: map[string][]string{"profile": {"strict", "rfc8785"}, "server": {}}},
		{Name: "ledger", Summary: "create a ledger", Synopsis: []string{"init PATH"}, Help: "Usage:\n  prog ledger init PATH\n",
			Subs: []Command[*run]{{Name: "init", Summary: "create it", Run: runs}, {Name: "drop", Summary: "remove it", Run: runs, Operands: NoOperands}}},
		{Name: "completion", Summary: "print a script", Help: "Usage:\n  prog completion SHELL\n", Run: runs, Operands: ShellNames},
		{Name: "help", Aliases: []string{"-h", "--help"}, Summary: "print the help", Run: runs, Operands: CommandNames},
	}
}

func TestLookup(t *testing.T) {
	cmds := table()
	for name, want := range map[string]string{"canon": "canon", "--help": "help", "-h": "help", "init": "", "": "", "Canon": ""} {
		got := Lookup(cmds, name)
		if (got == nil) != (want == "") || got != nil && got.Name != want {
			t.Errorf("Lookup(%q) = %v, want %q", name, got, want)
		}
	}
	if got := Lookup(cmds, "ledger"); got != &cmds[1] {
		t.Errorf("Lookup returns a copy, not the table's entry")
	}
	if got := Lookup(cmds[1].Subs, "drop"); got == nil || got.Name != "drop" {
		t.Errorf("Lookup among subcommands: %v", got)
	}
}

func TestFindPath(t *testing.T) {
	cmds := table()
	for path, want := range map[string][2]string{
		"canon": {"canon", "canon"}, "ledger": {"ledger", "ledger"}, "ledger init": {"init", "ledger"},
		"ledger x": {}, "x": {}, "--help": {}, "canon init": {}, "ledger init x": {},
	} {
		cmd, top := FindPath(cmds, path)
		switch {
		case want[0] == "" && (cmd != nil || top != nil):
			t.Errorf("FindPath(%q) = %v, %v, want nil", path, cmd, top)
		case want[0] != "" && (cmd == nil || top == nil || cmd.Name != want[0] || top.Name != want[1]):
			t.Errorf("FindPath(%q) = %v, %v, want %s in %s", path, cmd, top, want[0], want[1])
		}
	}
}

func TestHelp(t *testing.T) {
	cmds := table()
	for path, want := range map[string]string{"canon": cmds[0].Help, "ledger": cmds[1].Help, "ledger init": cmds[1].Help, "help": ""} {
		if got, ok := Help(cmds, path); !ok || got != want {
			t.Errorf("Help(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
	for _, path := range []string{"ledger x", "--help", "x"} {
		if got, ok := Help(cmds, path); ok || got != "" {
			t.Errorf("Help(%q) = %q, %v; want none", path, got, ok)
		}
	}
}

func TestLeaves(t *testing.T) {
	var paths []string
	Leaves(table(), func(path string, cmd *Command[*run]) {
		if !strings.HasSuffix(path, cmd.Name) {
			t.Errorf("%s: command %s", path, cmd.Name)
		}
		paths = append(paths, path)
	})
	if want := []string{"canon", "ledger init", "ledger drop", "completion", "help"}; !slices.Equal(paths, want) {
		t.Errorf("Leaves: %q, want %q", paths, want)
	}
	if got := Names(table()); !slices.Equal(got, []string{"canon", "ledger", "completion", "help"}) {
		t.Errorf("Names: %q", got)
	}
}

// flagSet is the flag set of the table's canon.
func flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("canon", flag.ContinueOnError)
	fs.String("profile", "strict", "")
	fs.String("server", "", "")
	fs.String("out", "", "")
	fs.Bool("json", false, "")
	fs.Bool("c", false, "")
	fs.Int("workers", 0, "")
	fs.Duration("wait", time.Second, "")
	return fs
}

func TestFlags(t *testing.T) {
	cmds := table()
	want := []Flag{
		{Name: "json"},
		{Name: "out", Value: true, Files: true},
		{Name: "profile", Value: true, Words: []string{"strict", "rfc8785"}},
		{Name: "server", Value: true, Words: []string{}},
		{Name: "wait", Value: true},
		{Name: "workers", Value: true},
	}
	if got := cmds[0].Flags(flagSet()); !reflect.DeepEqual(got, want) {
		t.Errorf("Flags:\n got %+v\nwant %+v", got, want)
	}
	if got := cmds[0].Flags(nil); got != nil {
		t.Errorf("Flags(nil) = %v", got)
	}
}

var doc = Doc{Program: "prog", Intro: "prog does things.\n", Notes: "Notes.\n", Diagnostics: "  prog: error: ...\n", Exit: "  0 ok\n", Examples: "  prog canon x\n"}

func TestOverview(t *testing.T) {
	want := `prog does things.

Usage:
  prog canon  [--profile NAME] [FILE|-]
  prog ledger init PATH
  prog completion
  prog help

Commands:
  canon       write the canonical form
  ledger      create a ledger
  completion  print a script
  help        print the help

Notes.

Diagnostics:
  prog: error: ...

Exit status:
  0 ok

Examples:
  prog canon x
`
	if got := Overview(table(), doc); got != want {
		t.Errorf("Overview:\n%s\nwant:\n%s", got, want)
	}
}

func TestManPage(t *testing.T) {
	page := ManPage(table(), Man{Doc: doc, Date: "2026-12-04", Source: "prog 1.0", What: "do JSON-things",
		Env: []Var{{"PROG_X", "Sets x."}}, SeeAlso: ".BR sh (1)\n"})
	for _, want := range []string{
		`.\" prog(1), made by 'prog man' from the help of prog.` + "\n.TH PROG 1 \"2026-12-04\" \"prog 1.0\" \"User Commands\"\n.SH NAME\nprog \\- do JSON\\-things\n",
		".SH SYNOPSIS\n.nf\n\\fBprog canon\\fR [\\-\\-profile NAME] [FILE|\\-]\n\\fBprog ledger\\fR init PATH\n\\fBprog completion\\fR\n\\fBprog help\\fR\n.fi\n",
		".SS Commands\n.TP 12n\n.B canon\nwrite the canonical form\n",
		".SH COMMANDS\n.SS \"prog canon\"\n.in 3n\n.sp\n",
		".SH ENVIRONMENT\n.TP\n.B PROG_X\nSets x.\n.SH EXAMPLES\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no\n%s\n---- page:\n%s", want, page)
		}
	}
	if !strings.HasSuffix(page, "\n.SH SEE ALSO\n.BR sh (1)\n") {
		t.Errorf("the page does not end in SEE ALSO:\n%s", page)
	}
	var sections []string
	for line := range strings.Lines(page) {
		if name, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), ".SH "); ok {
			sections = append(sections, name)
		}
	}
	if want := []string{"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "EXAMPLES", "SEE ALSO"}; !slices.Equal(sections, want) {
		t.Errorf("sections %q, want %q", sections, want)
	}
}

func TestCompletionTree(t *testing.T) {
	var asked []string
	tree := CompletionTree(table(), func(path string) *flag.FlagSet {
		asked = append(asked, path)
		if path == "canon" {
			return flagSet()
		}
		return nil
	}, []string{"bash", "zsh"})
	if want := []string{"canon", "ledger init", "ledger drop", "completion", "help"}; !slices.Equal(asked, want) {
		t.Errorf("flag sets asked for %q, want %q", asked, want)
	}
	if !slices.Equal(tree.Flags, []string{"--help"}) {
		t.Errorf("tree flags %q, want the long alias --help", tree.Flags)
	}
	c := tree.Commands
	if len(c) != 4 || c[0].Path != "canon" || !c[0].Operands.Files || len(c[0].Flags) != 6 ||
		!reflect.DeepEqual(c[0].Flags[2], shell.Flag{Name: "profile", Value: true, Words: []string{"strict", "rfc8785"}}) {
		t.Fatalf("canon: %+v", c[0])
	}
	if len(c[1].Subs) != 2 || c[1].Subs[0].Path != "ledger init" || !c[1].Subs[0].Operands.Files || c[1].Subs[1].Operands.Files || c[1].Flags != nil {
		t.Errorf("ledger: %+v", c[1])
	}
	if !slices.Equal(c[2].Operands.Words, []string{"bash", "zsh"}) || c[2].Operands.Files || !c[3].Operands.Commands {
		t.Errorf("completion, help: %+v, %+v", c[2].Operands, c[3].Operands)
	}
}

func TestOrList(t *testing.T) {
	for words, want := range map[string]string{"": "", "a": "a", "a b": "a or b", "a b c": "a, b or c"} {
		if got := OrList(strings.Fields(words)); got != want {
			t.Errorf("OrList(%q) = %q, want %q", words, got, want)
		}
	}
}
