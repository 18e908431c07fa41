package main

// bbdigest completion: shell completion scripts for bash, zsh and fish,
// which internal/shell writes from the command table (commands.go), each
// command with the flags its flag set defines.

import (
	"strings"

	"github.com/bbdigest/bbdigest/internal/shell"
)

// completionHelp is the help of completion, help/completion.txt.
var completionHelp = helpFile("completion")

// shells are the shells completion writes a script for (shellScript).
var shells = []string{"bash", "zsh", "fish"}

// shellScript returns the function that writes the completion script of
// the shell called name, or nil.
func shellScript(name string) func(shell.Tree) string {
	switch name {
	case "bash":
		return shell.Bash
	case "zsh":
		return shell.Zsh
	case "fish":
		return shell.Fish
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

// completionTree returns the commands of the table for completion, with
// the flags of each command that runs, and the aliases of the commands
// that are long flags (--help, --version), which completion offers in
// place of a command.
func completionTree() shell.Tree {
	var tree func(prefix string, cmds []command) []shell.Command
	tree = func(prefix string, cmds []command) []shell.Command {
		var nodes []shell.Command
		for i := range cmds {
			cmd := &cmds[i]
			n := shell.Command{Name: cmd.name, Summary: cmd.summary, Path: prefix + cmd.name}
			switch cmd.operands {
			case operandFiles:
				n.Operands.Files = true
			case operandCommands:
				n.Operands.Commands = true
			case operandShells:
				n.Operands.Words = shells
			}
			if cmd.subs != nil {
				n.Subs = tree(n.Path+" ", cmd.subs)
			} else {
				for _, f := range cmd.flags(n.Path) {
					n.Flags = append(n.Flags, shell.Flag{Name: f.name, Value: f.value, Files: f.files, Words: f.words})
				}
			}
			nodes = append(nodes, n)
		}
		return nodes
	}
	t := shell.Tree{Commands: tree("", commands)}
	for _, cmd := range commands {
		for _, a := range cmd.aliases {
			if strings.HasPrefix(a, "--") {
				t.Flags = append(t.Flags, a)
			}
		}
	}
	return t
}
