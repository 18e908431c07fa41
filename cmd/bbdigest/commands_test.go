package main

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/archivegen"
	"github.com/bbdigest/bbdigest/internal/cmdtable"
)

// runArgs runs bbdigest with args and empty stdin, and returns the exit
// code, stdout and stderr.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// usageBlock returns the lines of the "Usage:" section of a help text.
func usageBlock(text string) []string {
	_, rest, ok := strings.Cut(text, "Usage:\n")
	if !ok {
		return nil
	}
	block, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(block, "\n")
}

// TestHelpUsageLinesOwnCommand checks that every usage line in the help
// of a command is a line of that command ("bbdigest NAME ...", an alias,
// or "bbdigest help NAME"): archive's help listed keygen's and receipts'
// lines.
func TestHelpUsageLinesOwnCommand(t *testing.T) {
	for _, cmd := range commands {
		lines := usageBlock(cmd.Help)
		if len(lines) == 0 {
			t.Errorf("help %s: no Usage section", cmd.Name)
			continue
		}
		own := []string{"bbdigest " + cmd.Name, "bbdigest help " + cmd.Name}
		for _, a := range cmd.Aliases {
			own = append(own, "bbdigest "+a)
		}
		for _, line := range lines {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "bbdigest ") {
				continue // a continuation line
			}
			if !slices.ContainsFunc(own, func(p string) bool { return line == p || strings.HasPrefix(line, p+" ") }) {
				t.Errorf("help %s: usage line of another command: %q", cmd.Name, line)
			}
		}
	}
}

// TestHelpHelpListsEveryCommand checks that 'bbdigest help help' names
// every command: it omitted gate, keygen and receipts.
func TestHelpHelpListsEveryCommand(t *testing.T) {
	code, out, _ := runArgs("help", "help")
	if code != exitOK {
		t.Fatalf("help help: exit code %d", code)
	}
	_, list, _ := strings.Cut(out, "the help of COMMAND:")
	words := strings.FieldsFunc(list, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '\n' })
	for _, name := range cmdtable.Names(commands) {
		if !slices.Contains(words, name) {
			t.Errorf("help help does not list %s:\n%s", name, out)
		}
	}
}

// TestOverviewListsEveryCommand checks that the overview has usage lines
// and a summary for every command, and only those.
func TestOverviewListsEveryCommand(t *testing.T) {
	_, out, _ := runArgs("help")
	_, cmds, _ := strings.Cut(out, "\nCommands:\n")
	var listed []string
	for line := range strings.Lines(cmds) {
		if line == "\n" {
			break
		}
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(line, "  ") && line[2] != ' ' {
			listed = append(listed, f[0])
		}
	}
	if !slices.Equal(listed, cmdtable.Names(commands)) {
		t.Errorf("overview lists commands %q, want %q", listed, cmdtable.Names(commands))
	}
	var used []string
	for _, line := range usageBlock(out) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "bbdigest" && !slices.Contains(used, f[1]) {
			used = append(used, f[1])
		}
	}
	if !slices.Equal(used, cmdtable.Names(commands)) {
		t.Errorf("overview has usage lines of %q, want %q", used, cmdtable.Names(commands))
	}
}

// TestEveryCommandHelp checks that each command and subcommand prints its
// command's help for --help and -h, the help that 'bbdigest help NAME'
// prints: archive gen and archive join printed nothing.
func TestEveryCommandHelp(t *testing.T) {
	cmdtable.Leaves(commands, func(path string, _ *command) {
		top, _, _ := strings.Cut(path, " ")
		want := findCommand(top).Help
		if want == "" {
			t.Errorf("%s: empty help", top)
		}
		for _, args := range [][]string{{"help", top}, append(strings.Fields(path), "--help"), append(strings.Fields(path), "-h")} {
			code, out, errOut := runArgs(args...)
			if code != exitOK || out != want || errOut != "" {
				t.Errorf("bbdigest %s: exit code %d, stderr %q, stdout is the help of %s: %v", strings.Join(args, " "), code, errOut, top, out == want)
			}
		}
	})
	for _, cmd := range commands {
		if cmd.Subs == nil {
			continue
		}
		for _, h := range []string{"help", "-h", "-help", "--help"} {
			if code, out, _ := runArgs(cmd.Name, h); code != exitOK || out != cmd.Help {
				t.Errorf("bbdigest %s %s: exit code %d, help printed: %v", cmd.Name, h, code, out == cmd.Help)
			}
		}
	}
}

// TestSubcommandErrors checks the usage errors of a command with
// subcommands, made from the table.
func TestSubcommandErrors(t *testing.T) {
	var cases []runCase
	for _, cmd := range commands {
		if cmd.Subs == nil {
			continue
		}
		hint := `bbdigest: hint: run 'bbdigest help ` + cmd.Name + `' for usage\n$`
		cases = append(cases,
			runCase{name: cmd.Name, args: []string{cmd.Name}, code: exitUsage,
				errRE: `^bbdigest: error: ` + cmd.Name + `: missing subcommand \(` + regexp.QuoteMeta(cmdtable.OrList(cmdtable.Names(cmd.Subs))) + `\)\n` + hint},
			runCase{name: cmd.Name + " x", args: []string{cmd.Name, "x"}, code: exitUsage,
				errRE: `^bbdigest: error: ` + cmd.Name + `: unknown subcommand "x"\n` + hint})
	}
	runCases(t, cases)
}

// TestAliases checks that every alias runs its command.
func TestAliases(t *testing.T) {
	for _, cmd := range commands {
		for _, a := range cmd.Aliases {
			_, want, _ := runArgs(cmd.Name)
			if code, out, _ := runArgs(a); code != exitOK || out != want {
				t.Errorf("bbdigest %s: exit code %d, stdout %q, want that of bbdigest %s, %q", a, code, out, cmd.Name, want)
			}
		}
	}
}

// TestTable checks the table's own rules: names unique among their
// siblings and aliases, a help and a summary for every command, run or
// subcommands, one level of subcommands (what completion handles), and
// values that name flags of their command.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, cmd := range commands {
		for _, n := range append([]string{cmd.Name}, cmd.Aliases...) {
			if seen[n] {
				t.Errorf("%s: name used twice", n)
			}
			seen[n] = true
		}
		if cmd.Help == "" || cmd.Summary == "" {
			t.Errorf("%s: no help or no summary", cmd.Name)
		}
		if (cmd.Run == nil) == (cmd.Subs == nil) {
			t.Errorf("%s: want run or subs, not both or neither", cmd.Name)
		}
		subSeen := map[string]bool{}
		for _, s := range cmd.Subs {
			if s.Run == nil || s.Subs != nil || s.Summary == "" || s.Help != "" || subSeen[s.Name] {
				t.Errorf("%s %s: a subcommand runs, has a summary, and has no subcommands and no help of its own", cmd.Name, s.Name)
			}
			subSeen[s.Name] = true
		}
	}
	cmdtable.Leaves(commands, func(path string, cmd *command) {
		fs := flagsOf(path)
		for name := range cmd.Values {
			if fs == nil || fs.Lookup(name) == nil {
				t.Errorf("%s: values of --%s, which is not a flag of it", path, name)
			}
		}
	})
}

// TestFlagsOf checks that flagsOf finds the flag set of every command
// without running it: the probe stops at parse's help, writing only the
// help.
func TestFlagsOf(t *testing.T) {
	cmdtable.Leaves(commands, func(path string, _ *command) {
		c := &cli{stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: new(bytes.Buffer)}
		code := c.main(append(strings.Split(path, " "), "--help"))
		want, _ := cmdtable.Help(commands, path)
		if code != exitOK || c.stdout.(*bytes.Buffer).String() != want || c.stderr.(*bytes.Buffer).Len() != 0 {
			t.Errorf("%s --help: exit code %d, stderr %q: not the help alone", path, code, c.stderr)
		}
		if fs := flagsOf(path); fs == nil || fs.Name() != path {
			t.Errorf("%s: flagsOf gives no flag set named %q", path, path)
		}
	})
	if got := flagsOf("canon"); got.Lookup("profile") == nil || got.Lookup("lines") == nil || got.Lookup("workers") == nil {
		t.Errorf("canon's flags are not --profile, --lines, --workers")
	}
}

// TestFlagsDocumented checks that every flag of a command is in its help,
// and that every flag in the overview's usage lines is a flag of the
// command.
func TestFlagsDocumented(t *testing.T) {
	flags := map[string][]string{} // top-level command: its flags
	cmdtable.Leaves(commands, func(path string, cmd *command) {
		top, _, _ := strings.Cut(path, " ")
		help, _ := cmdtable.Help(commands, path)
		for _, f := range cmd.Flags(flagsOf(path)) {
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(help) {
				t.Errorf("%s: --%s is not in the help of %s", path, f.Name, top)
			}
			flags[top] = append(flags[top], f.Name)
		}
	})
	flagRE := regexp.MustCompile(`--([a-z][a-z-]*)`)
	for _, cmd := range commands {
		for _, s := range cmd.Synopsis {
			s, _, _ = strings.Cut(s, "(") // "(also bbdigest --version ...)"
			for _, m := range flagRE.FindAllStringSubmatch(s, -1) {
				if !slices.Contains(flags[cmd.Name], m[1]) {
					t.Errorf("overview: bbdigest %s %s: --%s is not a flag of %s", cmd.Name, s, m[1], cmd.Name)
				}
			}
		}
	}
}

// TestFlagValuesAccepted checks that the enumerations completion offers
// are exactly the names the flags' parsers accept.
func TestFlagValuesAccepted(t *testing.T) {
	var profiles []string
	for _, p := range []canon.Profile{canon.Strict, canon.RFC8785} {
		profiles = append(profiles, p.Name())
	}
	var shapes []string
	for s := act.Shape(0); !strings.HasPrefix(s.String(), "shape("); s++ {
		shapes = append(shapes, s.String())
	}
	var kinds []string
	for k := archivegen.Kind(0); !strings.HasPrefix(k.String(), "Kind("); k++ {
		kinds = append(kinds, k.String())
	}
	for _, tt := range []struct {
		name        string
		values      []string
		want        []string
		parse       func(string) bool
		unknownName string
	}{
		{"profile", profileValues, profiles, func(v string) bool { _, err := canon.ProfileByName(v); return err == nil }, "jcs"},
		{"shape", shapeValues, shapes, func(v string) bool { _, err := act.ParseShape(v); return err == nil }, "gemini"},
		{"kind", kindValues, kinds, func(v string) bool { _, err := archivegen.ParseKind(v); return err == nil }, "tools"},
		{"progress", progressValues, []string{"auto", "bar", "json", "off"}, func(v string) bool { _, ok := progressMode(v, io.Discard); return ok }, "quiet"},
	} {
		if !slices.Equal(tt.values, tt.want) {
			t.Errorf("--%s completes to %q, want %q", tt.name, tt.values, tt.want)
		}
		for _, v := range tt.values {
			if !tt.parse(v) {
				t.Errorf("--%s %s: refused by its parser", tt.name, v)
			}
		}
		if tt.parse(tt.unknownName) {
			t.Errorf("--%s %s: accepted, so the check of the others proves nothing", tt.name, tt.unknownName)
		}
	}
}

// TestHelpHint checks that a subcommand's hint names its command's help.
func TestHelpHint(t *testing.T) {
	for cmd, want := range map[string]string{
		"canon":           "run 'bbdigest help canon' for usage",
		"archive gen":     "run 'bbdigest help archive' for usage",
		"envelope emit":   "run 'bbdigest help envelope' for usage",
		"receipts verify": "run 'bbdigest help receipts' for usage",
	} {
		if got := helpHint(cmd); got != want {
			t.Errorf("helpHint(%q) = %q, want %q", cmd, got, want)
		}
	}
}
