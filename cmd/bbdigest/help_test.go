package main

import (
	"github.com/bbdigest/bbdigest/internal/cmdtable"
	"regexp"
	"slices"
	"strings"
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
	text, ok := cmdtable.Help(commands, cmd)
	if !ok {
		panic("no help for " + cmd)
	}
	return text
}

// TestCommandHelpLayout checks that the command helps share one layout:
// "Usage:" and the synopsis first, then the description, "Options:" when
// the command has flags, "Exit status:" and "Examples:", in that order.
func TestCommandHelpLayout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		options bool
	}{
		{"canon", true}, {"digest", true}, {"act", true}, {"archive", true},
		{"gate", true}, {"ledger", false}, {"keygen", true}, {"receipts", true},
	} {
		text := helpText(tc.name)
		if !strings.HasPrefix(text, "Usage:\n  bbdigest "+tc.name+" ") {
			t.Errorf("help %s does not start with Usage: and its synopsis:\n%s", tc.name, text)
			continue
		}
		sections := []string{"Usage:", "Exit status:", "Examples:"}
		if tc.options {
			sections = []string{"Usage:", "Options:", "Exit status:", "Examples:"}
		}
		lines := strings.Split(text, "\n")
		at := 0
		for _, s := range sections {
			i := slices.Index(lines[at:], s)
			if i < 0 {
				t.Errorf("help %s: no %q line after line %d", tc.name, s, at+1)
				break
			}
			at += i + 1
		}
		if at > 0 && at < len(lines) && !strings.HasPrefix(lines[at], "  bbdigest ") {
			t.Errorf("help %s: the Examples are not commands: %q", tc.name, lines[at])
		}
	}
}
