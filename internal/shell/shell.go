// Package shell writes for shells: a word quoted for a POSIX shell or for
// fish, and the completion scripts of bbdigest for bash, zsh and fish,
// made from its tree of commands (the command's table, which the command
// turns into a Tree). Each script completes the commands, the
// subcommands, the flags of each command, the values of flags that are
// enumerations, and file names where a command takes files. The scripts
// hold what they complete: they never run bbdigest.
package shell

import (
	"fmt"
	"strings"
)

// Tree is what a completion script completes: the commands of the
// program, and the long flags that stand for a command (--help,
// --version), offered in place of one.
type Tree struct {
	Commands []Command
	Flags    []string
}

// Command is one command, or subcommand, of a Tree.
type Command struct {
	Name, Summary string
	Path          string    // its words after the program's name: "envelope validate"
	Flags         []Flag    // the flags of a command without Subs, by name
	Operands      Operands  // what its arguments after the flags are
	Subs          []Command // its subcommands; the first argument names one
}

// Flag is one flag of a Command.
type Flag struct {
	Name  string   // without its dashes
	Value bool     // takes a value
	Files bool     // the value is a file name
	Words []string // the value is one of these
}

// Operands is what the arguments of a Command after its flags complete
// to: file names, one of Words, the name of a command of the Tree
// (Commands), or nothing (the zero Operands).
type Operands struct {
	Files    bool
	Words    []string
	Commands bool
}

// operandWords returns the words the operands o complete to, and whether
// they are file names instead.
func (t Tree) operandWords(o Operands) (words []string, files bool) {
	switch {
	case o.Files:
		return nil, true
	case o.Commands:
		return names(t.Commands), false
	}
	return o.Words, false
}

// names returns the names of cmds.
func names(cmds []Command) []string {
	var out []string
	for _, n := range cmds {
		out = append(out, n.Name)
	}
	return out
}

// Quote returns s as one word of a POSIX shell: as it is when it holds
// only characters that are never special, else in single quotes, each
// single quote in it ending them, escaped, and starting them again:
//
//	it's  ->  'it'\''s'
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Bash returns the bash completion script of t.
//
// It is a function of COMP_WORDS and COMP_CWORD alone, so that it works
// without the bash-completion package: word 1 is the command, word 2 the
// subcommand of a command that has them; a word after a flag that takes
// a value is that value ("--profile=" too: bash splits the word at "=",
// which is in COMP_WORDBREAKS); a word after "--" is an operand.
func Bash(t Tree) string {
	nodes := t.Commands
	var b strings.Builder
	b.WriteString(`# bash completion for bbdigest, made by 'bbdigest completion bash' from
# its command table; see 'bbdigest help completion'.

_bbdigest_words() {
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2")
}

_bbdigest_files() {
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$1")
}

_bbdigest() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= flag= path=${COMP_WORDS[1]-} first=2 i
	(( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	if (( COMP_CWORD == 1 )); then
		if [[ $cur == -* ]]; then
`)
	fmt.Fprintf(&b, "\t\t\t_bbdigest_words %s \"$cur\"\n\t\telse\n\t\t\t_bbdigest_words %s \"$cur\"\n\t\tfi\n\t\treturn\n\tfi\n",
		Quote(strings.Join(t.Flags, " ")), Quote(strings.Join(names(nodes), " ")))
	b.WriteString("\tcase $path in\n")
	for _, n := range nodes {
		if n.Subs == nil {
			continue
		}
		fmt.Fprintf(&b, "\t%s)\n\t\tif (( COMP_CWORD == 2 )); then\n\t\t\t_bbdigest_words %s \"$cur\"\n\t\t\treturn\n\t\tfi\n\t\tpath+=\" ${COMP_WORDS[2]}\" first=3\n\t\t;;\n",
			n.Name, Quote(strings.Join(names(n.Subs), " ")))
	}
	b.WriteString(`	esac
	if [[ $cur == = && $prev == -* ]]; then
		flag=$prev cur=
	elif [[ $prev == = ]] && (( COMP_CWORD > first )); then
		flag=${COMP_WORDS[COMP_CWORD-2]}
	elif [[ $prev == -* ]]; then
		flag=$prev
	fi
	flag=${flag#-} flag=${flag#-}
	for (( i = first; i < COMP_CWORD; i++ )); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			flag=--
			break
		fi
	done
	case $path in
`)
	var leaf func(n Command)
	leaf = func(n Command) {
		if n.Subs != nil {
			for _, s := range n.Subs {
				leaf(s)
			}
			return
		}
		fmt.Fprintf(&b, "\t%s)\n", Quote(n.Path))
		var values []string
		for _, f := range n.Flags {
			switch {
			case !f.Value:
				continue
			case len(f.Words) > 0:
				values = append(values, fmt.Sprintf("\t\t%s) _bbdigest_words %s \"$cur\"; return ;;\n", f.Name, Quote(strings.Join(f.Words, " "))))
			case f.Files:
				values = append(values, fmt.Sprintf("\t\t%s) _bbdigest_files \"$cur\"; return ;;\n", f.Name))
			default:
				values = append(values, fmt.Sprintf("\t\t%s) return ;;\n", f.Name))
			}
		}
		if len(values) > 0 {
			b.WriteString("\t\tcase $flag in\n" + strings.Join(values, "") + "\t\tesac\n")
		}
		if len(n.Flags) > 0 {
			var flags []string
			for _, f := range n.Flags {
				flags = append(flags, "--"+f.Name)
			}
			fmt.Fprintf(&b, "\t\tif [[ $flag != -- && $cur == -* ]]; then\n\t\t\t_bbdigest_words %s \"$cur\"\n\t\t\treturn\n\t\tfi\n",
				Quote(strings.Join(flags, " ")))
		}
		switch words, files := t.operandWords(n.Operands); {
		case files:
			b.WriteString("\t\t_bbdigest_files \"$cur\"\n")
		case words != nil:
			fmt.Fprintf(&b, "\t\t_bbdigest_words %s \"$cur\"\n", Quote(strings.Join(words, " ")))
		}
		b.WriteString("\t\t;;\n")
	}
	for _, n := range nodes {
		leaf(n)
	}
	b.WriteString("\tesac\n}\n\ncomplete -F _bbdigest bbdigest\n")
	return b.String()
}

// Zsh returns the zsh completion script of t: a
// function for the completion system, with _arguments, that works both
// autoloaded from a file _bbdigest in $fpath and sourced.
func Zsh(t Tree) string {
	var b strings.Builder
	b.WriteString(`#compdef bbdigest
# zsh completion for bbdigest, made by 'bbdigest completion zsh' from its
# command table; see 'bbdigest help completion'.

_bbdigest() {
	local curcontext=$curcontext state state_descr line ret=1
	local -a commands
	typeset -A opt_args
`)
	t.zshCommands(&b, "\t", "bbdigest", t.Commands)
	b.WriteString("\treturn ret\n}\n\n" + `if [[ $funcstack[1] == _bbdigest ]]; then
	_bbdigest "$@"
else
	compdef _bbdigest bbdigest
fi
`)
	return b.String()
}

// zshCommands writes the zsh code that completes one of the commands
// nodes, the subcommands of what (a command, or "bbdigest"), and then
// its arguments, each line indented by in.
func (t Tree) zshCommands(b *strings.Builder, in, what string, nodes []Command) {
	b.WriteString(in + "commands=(\n")
	for _, n := range nodes {
		b.WriteString(in + "\t" + Quote(zshEscape(n.Name)+":"+zshEscape(n.Summary)) + "\n")
	}
	b.WriteString(in + ")\n")
	b.WriteString(in + "_arguments -C '1: :->command' '*:: :->args' && ret=0\n")
	b.WriteString(in + "case $state in\n")
	fmt.Fprintf(b, "%scommand)\n%s\t_describe -t commands %s commands && ret=0\n%s\t;;\n", in, in, Quote(what+" command"), in)
	b.WriteString(in + "args)\n")
	b.WriteString(in + "\tcase $words[1] in\n")
	for _, n := range nodes {
		b.WriteString(in + "\t" + Quote(n.Name) + ")\n")
		if n.Subs != nil {
			t.zshCommands(b, in+"\t\t", n.Path, n.Subs)
		} else {
			t.zshArguments(b, in+"\t\t", n)
		}
		b.WriteString(in + "\t\t;;\n")
	}
	b.WriteString(in + "\tesac\n")
	b.WriteString(in + "\t;;\n")
	b.WriteString(in + "esac\n")
}

// zshArguments writes the _arguments call that completes the flags and
// operands of the command n.
func (t Tree) zshArguments(b *strings.Builder, in string, n Command) {
	var specs []string
	for _, f := range n.Flags {
		switch {
		case !f.Value:
			specs = append(specs, "--"+f.Name)
		case len(f.Words) > 0:
			specs = append(specs, "--"+f.Name+"=:"+f.Name+":("+strings.Join(f.Words, " ")+")")
		case f.Files:
			specs = append(specs, "--"+f.Name+"=:"+f.Name+":_files")
		default:
			specs = append(specs, "--"+f.Name+"=:"+f.Name+": ")
		}
	}
	switch words, files := t.operandWords(n.Operands); {
	case files:
		specs = append(specs, "*:file:_files")
	case words != nil:
		specs = append(specs, "1:argument:("+strings.Join(words, " ")+")")
	}
	if len(specs) == 0 {
		b.WriteString(in + "_message 'no arguments' && ret=0\n")
		return
	}
	b.WriteString(in + "_arguments")
	for _, s := range specs {
		b.WriteString(" \\\n" + in + "\t" + Quote(s))
	}
	b.WriteString(" && ret=0\n")
}

// zshEscape escapes the colons of s, which _describe would take for the
// end of a name.
func zshEscape(s string) string { return strings.ReplaceAll(s, ":", `\:`) }

// FishQuote returns s in single quotes for fish, which escapes a quote
// and a backslash in them with a backslash.
func FishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// Fish returns the fish completion script of t.
// Each completion holds for one command path, which __bbdigest_path reads
// from the command line: "envelope digest" and "digest" are different
// commands with different flags.
func Fish(t Tree) string {
	nodes := t.Commands
	var b strings.Builder
	var parents []string
	for _, n := range nodes {
		if n.Subs != nil {
			parents = append(parents, n.Name)
		}
	}
	fmt.Fprintf(&b, `# fish completion for bbdigest, made by 'bbdigest completion fish' from
# its command table; see 'bbdigest help completion'.

function __bbdigest_path --description 'Print the bbdigest command, and its subcommand, being completed'
	set -l words (commandline -opc)
	set -e words[1]
	if set -q words[2]; and contains -- $words[1] %s
		echo "$words[1] $words[2]"
	else if set -q words[1]
		echo $words[1]
	end
end

function __bbdigest_at --description 'Test whether the bbdigest command being completed is argv[1]'
	set -l path (__bbdigest_path)
	test "$path" = "$argv[1]"
end

complete -c bbdigest -f
`, strings.Join(parents, " "))
	at := func(path string) string {
		return "complete -c bbdigest -n " + FishQuote("__bbdigest_at "+FishQuote(path))
	}
	var node func(parent string, n Command)
	node = func(parent string, n Command) {
		fmt.Fprintf(&b, "%s -a %s -d %s\n", at(parent), FishQuote(n.Name), FishQuote(n.Summary))
		for _, s := range n.Subs {
			node(n.Path, s)
		}
		if n.Subs != nil {
			return
		}
		for _, f := range n.Flags {
			switch {
			case !f.Value:
				fmt.Fprintf(&b, "%s -l %s\n", at(n.Path), f.Name)
			case len(f.Words) > 0:
				fmt.Fprintf(&b, "%s -l %s -x -a %s\n", at(n.Path), f.Name, FishQuote(strings.Join(f.Words, " ")))
			case f.Files:
				fmt.Fprintf(&b, "%s -l %s -r -F\n", at(n.Path), f.Name)
			default:
				fmt.Fprintf(&b, "%s -l %s -x\n", at(n.Path), f.Name)
			}
		}
		switch words, files := t.operandWords(n.Operands); {
		case files:
			fmt.Fprintf(&b, "%s -F\n", at(n.Path))
		case n.Operands.Commands:
			for _, cmd := range t.Commands {
				fmt.Fprintf(&b, "%s -a %s -d %s\n", at(n.Path), FishQuote(cmd.Name), FishQuote(cmd.Summary))
			}
		case words != nil:
			fmt.Fprintf(&b, "%s -a %s\n", at(n.Path), FishQuote(strings.Join(words, " ")))
		}
	}
	for _, n := range nodes {
		node("", n)
	}
	return b.String()
}
