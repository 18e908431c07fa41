package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/cmdtable"
	"github.com/bbdigest/bbdigest/internal/shell"
)

// compCase is one completion: the words of the command line, the last the
// word being completed, and the candidates the shell should offer.
type compCase struct {
	words []string
	want  []string
	// bashOnly marks what only the bash script does: "--" ending the
	// flags, single-dash flags, and the long-flag aliases in place of a
	// command.
	bashOnly bool
}

// compFiles are the files in the directory the completion tests run in;
// the operands and flag values that are file names complete to them.
var compFiles = []string{"a.json", "b.jsonl", "dir"}

// compCases returns the completions every script must give, made from
// the table and its commands' flag sets, and a few written out.
func compCases() []compCase {
	cases := []compCase{
		{words: []string{"bbdigest", ""}, want: cmdtable.Names(commands)},
		{words: []string{"bbdigest", "ca"}, want: []string{"canon"}},
		{words: []string{"bbdigest", "-"}, want: []string{"--help", "--version"}, bashOnly: true},
		{words: []string{"bbdigest", "canon", "--profile", ""}, want: []string{"rfc8785", "strict"}},
		{words: []string{"bbdigest", "canon", "-profile", ""}, want: []string{"rfc8785", "strict"}, bashOnly: true},
		{words: []string{"bbdigest", "canon", "profile", ""}, want: compFiles},
		{words: []string{"bbdigest", "canon", "--", "--p"}, want: nil, bashOnly: true},
		{words: []string{"bbdigest", "canon", "--workers", ""}, want: nil},
		{words: []string{"bbdigest", "digest", "--"}, want: []string{"--check", "--ignore-missing", "--lines", "--names", "--profile", "--quiet", "--status", "--strict", "--warn", "--workers"}},
		{words: []string{"bbdigest", "envelope", "digest", "--"}, want: nil},
		{words: []string{"bbdigest", "envelope", "validate", "--"}, want: []string{"--json"}},
		{words: []string{"bbdigest", "archive", "rehash", "--progress", ""}, want: []string{"auto", "bar", "json", "off"}},
		{words: []string{"bbdigest", "archive", "gen", "--kind", ""}, want: []string{"claims", "envelopes", "mixed"}},
		{words: []string{"bbdigest", "act", "--shape", "o"}, want: []string{"openai"}},
		{words: []string{"bbdigest", "gate", "--shape", ""}, want: []string{"anthropic", "auto", "mcp", "openai"}},
		{words: []string{"bbdigest", "gate", "--policy", ""}, want: compFiles},
		{words: []string{"bbdigest", "help", "re"}, want: []string{"receipts", "resolution"}},
		{words: []string{"bbdigest", "completion", ""}, want: []string{"bash", "fish", "zsh"}},
	}
	for _, cmd := range commands {
		if cmd.Subs != nil {
			cases = append(cases, compCase{words: []string{"bbdigest", cmd.Name, ""}, want: cmdtable.Names(cmd.Subs)})
		}
	}
	cmdtable.Leaves(commands, func(path string, cmd *command) {
		words := append([]string{"bbdigest"}, strings.Split(path, " ")...)
		with := func(w ...string) []string { return append(slices.Clone(words), w...) }
		var flags []string
		for _, f := range cmd.Flags(flagsOf(path)) {
			flags = append(flags, "--"+f.Name)
			switch {
			case !f.Value:
			case len(f.Words) > 0:
				cases = append(cases, compCase{words: with("--"+f.Name, ""), want: f.Words})
			case f.Files:
				cases = append(cases, compCase{words: with("--"+f.Name, ""), want: compFiles})
			default:
				cases = append(cases, compCase{words: with("--"+f.Name, ""), want: nil})
			}
		}
		cases = append(cases, compCase{words: with("--"), want: flags})
		var operands []string
		switch cmd.Operands {
		case cmdtable.Files:
			operands = compFiles
		case cmdtable.CommandNames:
			operands = cmdtable.Names(commands)
		case cmdtable.ShellNames:
			operands = shells
		}
		cases = append(cases, compCase{words: with(""), want: operands})
	})
	return cases
}

// compDir returns a directory holding compFiles and a file of the script
// of shell.
func compDir(t *testing.T, shell string) (dir, script string) {
	t.Helper()
	dir = t.TempDir()
	for _, f := range compFiles {
		var err error
		if f == "dir" {
			err = os.Mkdir(filepath.Join(dir, f), 0o777)
		} else {
			err = os.WriteFile(filepath.Join(dir, f), nil, 0o666)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runArgs("completion", shell)
	if code != exitOK || errOut != "" {
		t.Fatalf("completion %s: exit code %d, stderr %q", shell, code, errOut)
	}
	script = filepath.Join(t.TempDir(), "bbdigest."+shell)
	if err := os.WriteFile(script, []byte(out), 0o666); err != nil {
		t.Fatal(err)
	}
	return dir, script
}

// needShell returns the path of the shell, or skips the test.
func needShell(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed: its completion script is not tried (apt-get install %s)", shell, shell)
	}
	return path
}

// runShell runs shell with args in dir, and returns its stdout split at
// the record separators that the program prints before each case.
func runShell(t *testing.T, dir string, shell string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(shell, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s: %v\n%s", shell, err, stderr)
	}
	return strings.Split(string(out), "\x1e\n")
}

// checkCandidates compares the candidates a shell offered for a case,
// in any order, with the case's.
func checkCandidates(t *testing.T, shell string, c compCase, got []string) {
	t.Helper()
	got = slices.Sorted(slices.Values(got))
	want := slices.Sorted(slices.Values(c.want))
	if !slices.Equal(got, want) {
		t.Errorf("%s: %q completes to %q, want %q", shell, strings.Join(c.words, " "), got, want)
	}
}

// lines returns the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSuffix(l, "\n"); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestCompletionBash loads the bash script into bash, checks with
// complete -p that it completes bbdigest, and calls the function it names
// as bash does on Tab, with COMP_WORDS and COMP_CWORD set: bash splits
// --flag=value into "--flag", "=", "value" (COMP_WORDBREAKS), and so do
// the cases.
func TestCompletionBash(t *testing.T) {
	bash := needShell(t, "bash")
	dir, script := compDir(t, "bash")
	cases := compCases()
	// --flag=VALUE, as bash splits it, for every enumeration.
	cmdtable.Leaves(commands, func(path string, cmd *command) {
		for _, f := range cmd.Flags(flagsOf(path)) {
			if len(f.Words) > 0 {
				words := append(append([]string{"bbdigest"}, strings.Split(path, " ")...), "--"+f.Name, "=")
				cases = append(cases,
					compCase{words: append(slices.Clone(words), ""), want: f.Words},
					compCase{words: append(slices.Clone(words), f.Words[0]), want: []string{f.Words[0]}})
				// "--flag=" with the cursor after "=": bash gives "=" as the word.
				cases = append(cases, compCase{words: append(slices.Clone(words[:len(words)-1]), "="), want: f.Words})
			}
		}
	})
	var prog strings.Builder
	prog.WriteString(`set -u
source "$1"
complete -p bbdigest
read -ra spec <<< "$(complete -p bbdigest)"
for (( i = 0; i < ${#spec[@]}; i++ )); do [[ ${spec[i]} == -F ]] && fn=${spec[i+1]}; done
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	"$fn" bbdigest "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	printf '\x1e\n'
	(( ${#COMPREPLY[@]} == 0 )) || printf '%s\n' "${COMPREPLY[@]}"
}
`)
	for _, c := range cases {
		prog.WriteString("comp")
		for _, w := range c.words {
			prog.WriteString(" " + shell.Quote(w))
		}
		prog.WriteString("\n")
	}
	prog.WriteString("printf '\\x1e\\n'\n")
	out := runShell(t, dir, bash, "-c", prog.String(), "bash", script)
	if want := "complete -F _bbdigest bbdigest\n"; out[0] != want {
		t.Errorf("complete -p bbdigest: %q, want %q", out[0], want)
	}
	if len(out) != len(cases)+2 {
		t.Fatalf("bash answered %d cases, want %d", len(out)-2, len(cases))
	}
	for i, c := range cases {
		checkCandidates(t, "bash", c, lines(out[i+1]))
	}
}

// TestCompletionFish checks the fish script with fish -n, then has fish
// complete each case with complete -C, as it does on Tab.
func TestCompletionFish(t *testing.T) {
	fish := needShell(t, "fish")
	dir, script := compDir(t, "fish")
	if out, err := exec.Command(fish, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("fish -n: %v\n%s", err, out)
	}
	var cases []compCase
	for _, c := range compCases() {
		if !c.bashOnly {
			cases = append(cases, c)
		}
	}
	// --flag=VALUE is one word for fish.
	cmdtable.Leaves(commands, func(path string, cmd *command) {
		for _, f := range cmd.Flags(flagsOf(path)) {
			if len(f.Words) > 0 {
				words := append(append([]string{"bbdigest"}, strings.Split(path, " ")...), "--"+f.Name+"=")
				cases = append(cases, compCase{words: words, want: f.Words})
			}
		}
	})
	var prog strings.Builder
	prog.WriteString("source " + shell.FishQuote(script) + "\n")
	for _, c := range cases {
		prog.WriteString("printf '\\x1e\\n'\ncomplete -C " + shell.FishQuote(strings.Join(c.words, " ")) + "\n")
	}
	prog.WriteString("printf '\\x1e\\n'\n")
	out := runShell(t, dir, fish, "--no-config", "-c", prog.String())
	if len(out) != len(cases)+2 {
		t.Fatalf("fish answered %d cases, want %d", len(out)-2, len(cases))
	}
	for i, c := range cases {
		var got []string
		last := c.words[len(c.words)-1]
		for _, l := range lines(out[i+1]) {
			l, _, _ = strings.Cut(l, "\t") // the description
			if strings.HasSuffix(last, "=") {
				l = strings.TrimPrefix(l, last) // fish offers --flag=VALUE
			}
			got = append(got, strings.TrimSuffix(l, "/")) // dir/
		}
		checkCandidates(t, "fish", c, got)
	}
}

// TestCompletionZsh checks the zsh script with zsh -n, and then runs it
// in zsh with the functions of the completion system that it calls
// replaced by ones that print what they are given (_arguments, which
// only a live zle can run, moves to the next word as '*:: :->args' does),
// so that each case checks that the script reaches the right command and
// hands _arguments its flags and operands.
func TestCompletionZsh(t *testing.T) {
	zsh := needShell(t, "zsh")
	dir, script := compDir(t, "zsh")
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	var cases []compCase
	for _, c := range compCases() {
		// The stubs do not filter the candidates by the word being
		// completed: only cases of an empty word, or of "--" for the
		// flags.
		if last := c.words[len(c.words)-1]; !c.bashOnly && (last == "" || last == "--") {
			cases = append(cases, c)
		}
	}
	var prog strings.Builder
	prog.WriteString(`_arguments() {
	if (( ${@[(Ie)1: :->command]} )); then
		if (( CURRENT == 2 )); then
			state=command
		else
			state=args
			shift words
			(( CURRENT-- ))
		fi
		return 0
	fi
	print -rl -- "ARG "${^@}
}
_describe() {
	local -a list
	list=("${(@P)4}")
	print -rl -- "DESCRIBE "${^list%%:*}
}
_message() { print -r -- "MESSAGE $*" }
compdef() { print -r -- "COMPDEF $*" }
source "$1"
`)
	for _, c := range cases {
		prog.WriteString("print '\\x1e'\nwords=(")
		for _, w := range c.words {
			prog.WriteString(" " + shell.Quote(w))
		}
		prog.WriteString(" )\nCURRENT=" + strconv.Itoa(len(c.words)) + "\n_bbdigest\n")
	}
	prog.WriteString("print '\\x1e'\n")
	out := runShell(t, dir, zsh, "-f", "-c", prog.String(), "zsh", script)
	if out[0] != "COMPDEF _bbdigest bbdigest\n" {
		t.Errorf("sourced, the script runs %q, want compdef _bbdigest bbdigest", out[0])
	}
	if len(out) != len(cases)+2 {
		t.Fatalf("zsh answered %d cases, want %d", len(out)-2, len(cases))
	}
	for i, c := range cases {
		var got, specs []string
		for _, l := range lines(out[i+1]) {
			switch kind, arg, _ := strings.Cut(l, " "); kind {
			case "DESCRIBE":
				got = append(got, arg)
			case "ARG":
				specs = append(specs, arg)
			}
		}
		if c.words[len(c.words)-1] == "--" {
			for _, s := range specs {
				if name, _, _ := strings.Cut(s, "="); strings.HasPrefix(name, "--") {
					got = append(got, name)
				}
			}
		} else if specs != nil {
			got = zshCandidates(specs, c.words[len(c.words)-2])
		}
		checkCandidates(t, "zsh", c, got)
	}
}

// zshCandidates returns what _arguments, given specs, completes an empty
// word to after the word prev: the values of the flag prev when it takes
// one, else the operands.
func zshCandidates(specs []string, prev string) []string {
	action := ""
	for _, s := range specs {
		if name, rest, value := strings.Cut(s, "=:"); value && name == prev {
			_, action, _ = strings.Cut(rest, ":") // after the message
			break
		}
		if !strings.HasPrefix(s, "--") {
			action = strings.SplitN(s, ":", 3)[2] // "*:file:_files", "1:argument:(...)"
		}
	}
	switch {
	case action == "_files":
		return compFiles
	case strings.HasPrefix(action, "(") && strings.HasSuffix(action, ")"):
		return strings.Fields(action[1 : len(action)-1])
	}
	return nil
}
