package main

// bbdigest completion: shell completion scripts for bash, zsh and fish,
// which internal/shell writes from the command table (commands.go), each
// command with the flags its flag set defines.

import (
	"github.com/bbdigest/bbdigest/internal/cmdtable"
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
		return c.usageError(cmd, "missing shell ("+cmdtable.OrList(shells)+")")
	}
	script := shellScript(operands[0])
	if script == nil {
		return c.usageError(cmd, "unknown shell "+quote(operands[0])+" (want "+cmdtable.OrList(shells)+")")
	}
	return c.write([]byte(script(completionTree())))
}

// completionTree returns the commands of the table for completion, with
// the flags of each command that runs (flagsOf).
func completionTree() shell.Tree { return cmdtable.CompletionTree(commands, flagsOf, shells) }
