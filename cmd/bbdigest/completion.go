package main

// bbdigest completion: shell completion scripts for bash, zsh and fish,
// made from the command table (commands.go). Each script completes the
// commands, the subcommands, the flags of each command as its flag set
// defines them, the values of flags that are enumerations, and file names
// where a command takes files. The scripts hold what they complete: they
// never run bbdigest.

import (
	"fmt"
	"strings"
)

// completionHelp is the help of completion, help/completion.txt.
var completionHelp = helpFile("completion")

// shells are the shells completion writes a script for (shellScript).
var shells = []string{"bash", "zsh", "fish"}

// shellScript returns the function that writes the completion script of
// the shell called name, or nil.
func shellScript(name string) func([]compNode) string {
	switch name {
	case "bash":
		return bashScript
	case "zsh":
		return zshScript
	case "fish":
		return fishScript
	}
	return nil
}

// completion is "bbdigest completion SHELL": it prints SHELL's script.
func (c *cli) completion(args []string) int {
	const cmd = "completion"
	fs := c.flagSet(cmd)
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	if len(operands) == 0 {
		return c.usageError(cmd, "missing shell ("+orList(shells)+")")
	}
	script := shellScript(operands[0])
	if script == nil {
		return c.usageError(cmd, "unknown shell "+quote(operands[0])+" (want "+orList(shells)+")")
	}
	return c.write([]byte(script(completionTree())))
}

// compNode is what completion knows of one command or subcommand.
type compNode struct {
	name, summary string
	path          string // its words, as "envelope validate"
	flags         []cmdFlag
	operands      operandKind
	subs          []compNode
}

// completionTree returns the commands of the table for completion, with
// the flags of each command that runs.
func completionTree() []compNode {
	var tree func(prefix string, cmds []command) []compNode
	tree = func(prefix string, cmds []command) []compNode {
		var nodes []compNode
		for i := range cmds {
			cmd := &cmds[i]
			n := compNode{name: cmd.name, summary: cmd.summary, path: prefix + cmd.name, operands: cmd.operands}
			if cmd.subs != nil {
				n.subs = tree(n.path+" ", cmd.subs)
			} else {
				n.flags = cmd.flags(n.path)
			}
			nodes = append(nodes, n)
		}
		return nodes
	}
	return tree("", commands)
}

// names returns the names of nodes.
func names(nodes []compNode) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.name)
	}
	return out
}

// aliasFlags returns the aliases of the commands that are long flags
// (--help, --version), which completion offers in place of a command.
func aliasFlags() []string {
	var out []string
	for _, cmd := range commands {
		for _, a := range cmd.aliases {
			if strings.HasPrefix(a, "--") {
				out = append(out, a)
			}
		}
	}
	return out
}

// operandWords returns the words the operands of kind complete to, and
// whether they are file names instead.
func operandWords(kind operandKind) (words []string, files bool) {
	switch kind {
	case operandFiles:
		return nil, true
	case operandCommands:
		return commandNames(), false
	case operandShells:
		return shells, false
	}
	return nil, false
}

// bashScript returns the bash completion script for the commands nodes.
//
// It is a function of COMP_WORDS and COMP_CWORD alone, so that it works
// without the bash-completion package: word 1 is the command, word 2 the
// subcommand of a command that has them; a word after a flag that takes
// a value is that value ("--profile=" too: bash splits the word at "=",
// which is in COMP_WORDBREAKS); a word after "--" is an operand.
func bashScript(nodes []compNode) string {
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
		shellQuote(strings.Join(aliasFlags(), " ")), shellQuote(strings.Join(names(nodes), " ")))
	b.WriteString("\tcase $path in\n")
	for _, n := range nodes {
		if n.subs == nil {
			continue
		}
		fmt.Fprintf(&b, "\t%s)\n\t\tif (( COMP_CWORD == 2 )); then\n\t\t\t_bbdigest_words %s \"$cur\"\n\t\t\treturn\n\t\tfi\n\t\tpath+=\" ${COMP_WORDS[2]}\" first=3\n\t\t;;\n",
			n.name, shellQuote(strings.Join(names(n.subs), " ")))
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
	var leaf func(n compNode)
	leaf = func(n compNode) {
		if n.subs != nil {
			for _, s := range n.subs {
				leaf(s)
			}
			return
		}
		fmt.Fprintf(&b, "\t%s)\n", shellQuote(n.path))
		var values []string
		for _, f := range n.flags {
			switch {
			case !f.value:
				continue
			case len(f.words) > 0:
				values = append(values, fmt.Sprintf("\t\t%s) _bbdigest_words %s \"$cur\"; return ;;\n", f.name, shellQuote(strings.Join(f.words, " "))))
			case f.files:
				values = append(values, fmt.Sprintf("\t\t%s) _bbdigest_files \"$cur\"; return ;;\n", f.name))
			default:
				values = append(values, fmt.Sprintf("\t\t%s) return ;;\n", f.name))
			}
		}
		if len(values) > 0 {
			b.WriteString("\t\tcase $flag in\n" + strings.Join(values, "") + "\t\tesac\n")
		}
		if len(n.flags) > 0 {
			var flags []string
			for _, f := range n.flags {
				flags = append(flags, "--"+f.name)
			}
			fmt.Fprintf(&b, "\t\tif [[ $flag != -- && $cur == -* ]]; then\n\t\t\t_bbdigest_words %s \"$cur\"\n\t\t\treturn\n\t\tfi\n",
				shellQuote(strings.Join(flags, " ")))
		}
		switch words, files := operandWords(n.operands); {
		case files:
			b.WriteString("\t\t_bbdigest_files \"$cur\"\n")
		case words != nil:
			fmt.Fprintf(&b, "\t\t_bbdigest_words %s \"$cur\"\n", shellQuote(strings.Join(words, " ")))
		}
		b.WriteString("\t\t;;\n")
	}
	for _, n := range nodes {
		leaf(n)
	}
	b.WriteString("\tesac\n}\n\ncomplete -F _bbdigest bbdigest\n")
	return b.String()
}

// zshScript returns the zsh completion script for the commands nodes: a
// function for the completion system, with _arguments, that works both
// autoloaded from a file _bbdigest in $fpath and sourced.
func zshScript(nodes []compNode) string {
	var b strings.Builder
	b.WriteString(`#compdef bbdigest
# zsh completion for bbdigest, made by 'bbdigest completion zsh' from its
# command table; see 'bbdigest help completion'.

_bbdigest() {
	local curcontext=$curcontext state state_descr line ret=1
	local -a commands
	typeset -A opt_args
`)
	zshCommands(&b, "\t", "bbdigest", nodes)
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
func zshCommands(b *strings.Builder, in, what string, nodes []compNode) {
	b.WriteString(in + "commands=(\n")
	for _, n := range nodes {
		b.WriteString(in + "\t" + shellQuote(zshEscape(n.name)+":"+zshEscape(n.summary)) + "\n")
	}
	b.WriteString(in + ")\n")
	b.WriteString(in + "_arguments -C '1: :->command' '*:: :->args' && ret=0\n")
	b.WriteString(in + "case $state in\n")
	fmt.Fprintf(b, "%scommand)\n%s\t_describe -t commands %s commands && ret=0\n%s\t;;\n", in, in, shellQuote(what+" command"), in)
	b.WriteString(in + "args)\n")
	b.WriteString(in + "\tcase $words[1] in\n")
	for _, n := range nodes {
		b.WriteString(in + "\t" + shellQuote(n.name) + ")\n")
		if n.subs != nil {
			zshCommands(b, in+"\t\t", n.path, n.subs)
		} else {
			zshArguments(b, in+"\t\t", n)
		}
		b.WriteString(in + "\t\t;;\n")
	}
	b.WriteString(in + "\tesac\n")
	b.WriteString(in + "\t;;\n")
	b.WriteString(in + "esac\n")
}

// zshArguments writes the _arguments call that completes the flags and
// operands of the command n.
func zshArguments(b *strings.Builder, in string, n compNode) {
	var specs []string
	for _, f := range n.flags {
		switch {
		case !f.value:
			specs = append(specs, "--"+f.name)
		case len(f.words) > 0:
			specs = append(specs, "--"+f.name+"=:"+f.name+":("+strings.Join(f.words, " ")+")")
		case f.files:
			specs = append(specs, "--"+f.name+"=:"+f.name+":_files")
		default:
			specs = append(specs, "--"+f.name+"=:"+f.name+": ")
		}
	}
	switch words, files := operandWords(n.operands); {
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
		b.WriteString(" \\\n" + in + "\t" + shellQuote(s))
	}
	b.WriteString(" && ret=0\n")
}

// zshEscape escapes the colons of s, which _describe would take for the
// end of a name.
func zshEscape(s string) string { return strings.ReplaceAll(s, ":", `\:`) }

// fishQuote returns s in single quotes for fish, which escapes a quote
// and a backslash in them with a backslash.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// fishScript returns the fish completion script for the commands nodes.
// Each completion holds for one command path, which __bbdigest_path reads
// from the command line: "envelope digest" and "digest" are different
// commands with different flags.
func fishScript(nodes []compNode) string {
	var b strings.Builder
	var parents []string
	for _, n := range nodes {
		if n.subs != nil {
			parents = append(parents, n.name)
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
		return "complete -c bbdigest -n " + fishQuote("__bbdigest_at "+fishQuote(path))
	}
	var node func(parent string, n compNode)
	node = func(parent string, n compNode) {
		fmt.Fprintf(&b, "%s -a %s -d %s\n", at(parent), fishQuote(n.name), fishQuote(n.summary))
		for _, s := range n.subs {
			node(n.path, s)
		}
		if n.subs != nil {
			return
		}
		for _, f := range n.flags {
			switch {
			case !f.value:
				fmt.Fprintf(&b, "%s -l %s\n", at(n.path), f.name)
			case len(f.words) > 0:
				fmt.Fprintf(&b, "%s -l %s -x -a %s\n", at(n.path), f.name, fishQuote(strings.Join(f.words, " ")))
			case f.files:
				fmt.Fprintf(&b, "%s -l %s -r -F\n", at(n.path), f.name)
			default:
				fmt.Fprintf(&b, "%s -l %s -x\n", at(n.path), f.name)
			}
		}
		switch words, files := operandWords(n.operands); {
		case files:
			fmt.Fprintf(&b, "%s -F\n", at(n.path))
		case n.operands == operandCommands:
			for _, cmd := range commands {
				fmt.Fprintf(&b, "%s -a %s -d %s\n", at(n.path), fishQuote(cmd.name), fishQuote(cmd.summary))
			}
		case words != nil:
			fmt.Fprintf(&b, "%s -a %s\n", at(n.path), fishQuote(strings.Join(words, " ")))
		}
	}
	for _, n := range nodes {
		node("", n)
	}
	return b.String()
}
