package main

import (
	"regexp"
	"testing"
)

// TestHelp checks that the overview and a command's help go to stdout on
// request, and the overview to stderr when no command is given.
func TestHelp(t *testing.T) {
	runCases(t, []runCase{
		{name: "help", args: []string{"help"}, stdout: usage},
		{name: "-h", args: []string{"-h"}, stdout: usage},
		{name: "--help", args: []string{"--help"}, stdout: usage},
		{name: "help canon", args: []string{"help", "canon"}, stdout: helpText("canon")},
		{name: "help unknown", args: []string{"help", "x"}, code: 2, errRE: `^bbdigest: error: help: unknown command "x"\n`},
		{name: "no args", args: nil, code: 2, errRE: `^` + regexp.QuoteMeta(usage) + `$`},
	})
}

// helpText returns the help of the command cmd.
func helpText(cmd string) string {
	text, ok := commandHelp(cmd)
	if !ok {
		panic("no help for " + cmd)
	}
	return text
}
