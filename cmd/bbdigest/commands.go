package main

// The command table: the one list of bbdigest's commands. main dispatches
// from it, help finds the help texts in it, and the overview's command
// list, the list in 'bbdigest help help', shell completion
// (completion.go) and the man page (man.go) are made from it
// (internal/cmdtable).
//
// Adding a command is adding one entry to commands, in the order the
// overview lists it: its name, its one-line summary, its usage lines for
// the overview, its help text, and run (or subs, for a command such as
// "ledger init PATH" that has subcommands). The flags that completion
// offers are read from the command's own flag set; an entry only says
// how a flag's value completes when it is an enumeration (values), and
// what its operands are when they are not files (operands).

import (
	"flag"
	"io"
	"strings"

	"github.com/bbdigest/bbdigest/internal/cmdtable"
	"github.com/bbdigest/bbdigest/internal/roff"
)

// command is one entry of the command table: a command, or a subcommand
// of one (cmdtable.Command says what each field is).
type command = cmdtable.Command[*cli]

// Enumerated flag values, each accepted by the parser of its flag (see
// TestFlagValuesAccepted).
var (
	profileValues  = []string{"strict", "rfc8785"}
	shapeValues    = []string{"auto", "anthropic", "openai", "mcp"}
	progressValues = []string{"auto", "bar", "json", "off"}
	kindValues     = []string{"envelopes", "mixed", "claims"}
	// freeText marks a flag whose string value is not a file name.
	freeText = []string{}
)

// archiveValues are the flag values of archive rehash and verify.
var archiveValues = map[string][]string{"profile": profileValues, "progress": progressValues, "shard": freeText}

// commands is the command table, in the order of the overview. It is
// filled in by init rather than by its declaration because the commands'
// run functions refer back to it (help reads it, parse finds help texts
// in it), which Go refuses as an initialization cycle in a declaration.
var commands []command

// usage is the overview, "bbdigest help"; made from the table by init.
var usage string

func init() {
	commands = []command{
		{Name: "canon", Summary: "write the canonical form of one JSON text to stdout",
			Synopsis: []string{"[--profile NAME] [--lines [--workers N]] [FILE|-]"},
			Help:     canonHelp,
			Run:      (*cli).canon, Values: map[string][]string{"profile": profileValues}},
		{Name: "digest", Summary: "print the digest of each input, or check a list of digests",
			Synopsis: []string{
				"[--profile NAME] [--names] [FILE|-]...",
				"[--profile NAME] --lines [--workers N] [FILE|-]",
				"[--profile NAME] -c|--check [CHECK FLAGS] [FILE|-]...",
			},
			Help: digestHelp,
			Run:  (*cli).digest, Values: map[string][]string{"profile": profileValues}},
		{Name: "demo", Summary: "canonicalize and digest a built-in set of sample envelopes and tool calls, then measure throughput",
			Synopsis: []string{"[--duration D]"}, Help: demoHelp, Run: (*cli).demo, Operands: cmdtable.NoOperands},
		{Name: "cpu", Summary: "print the CPU features found and the kernels chosen",
			Synopsis: []string{"[--json]"}, Help: cpuHelp, Run: (*cli).cpu, Operands: cmdtable.NoOperands},
		{Name: "envelope", Summary: "check, digest and render binding-moment envelopes (draft-morrison-binding-moment-envelope-04), record them in a ledger",
			Synopsis: []string{"validate|digest|render|emit ..."}, Help: envelopeUsage,
			Subs: []command{
				{Name: "validate", Summary: "check an envelope against §4 and §5 and the canon gate", Run: (*cli).envelopeValidate},
				{Name: "digest", Summary: "print the envelope digest of §6.2", Run: (*cli).envelopeDigest},
				{Name: "render", Summary: "print the plain-text rendering of the decision (§9)", Run: (*cli).envelopeRender},
				{Name: "emit", Summary: "record the envelope in a ledger as emitted and print its digest", Run: (*cli).envelopeEmit},
			}},
		{Name: "resolution", Summary: "verify a resolution against its envelope and the action about to be performed (only the outcome \"authority\" authorizes), or sign a principal's selection",
			Synopsis: []string{"verify|sign ..."}, Help: resolutionUsage,
			Subs: []command{
				{Name: "verify", Summary: "check a resolution against its envelope and the action", Run: (*cli).resolutionVerify, Operands: cmdtable.NoOperands},
				{Name: "sign", Summary: "sign a principal's selection with the principal's key, for a gate whose policy names its principals", Run: (*cli).resolutionSign, Operands: cmdtable.NoOperands},
			}},
		{Name: "archive", Summary: "re-hash or verify JSON Lines archives on every core, one JSON result line per input line",
			Synopsis: []string{
				"rehash|verify [--profile NAME] [--workers N] [FILE...|-]",
				"gen --records N [--kind K] [--seed S]",
				"join SUMMARY...",
			},
			Help: archiveHelp,
			Subs: []command{
				{Name: "rehash", Summary: "digest each line of JSON Lines archives",
					Run: func(c *cli, args []string) int { return c.archiveRun("rehash", args) }, Values: archiveValues},
				{Name: "verify", Summary: "check the digest each record of JSON Lines archives claims",
					Run: func(c *cli, args []string) int { return c.archiveRun("verify", args) }, Values: archiveValues},
				{Name: "gen", Summary: "write a generated archive to stdout",
					Run: (*cli).archiveGen, Values: map[string][]string{"kind": kindValues}, Operands: cmdtable.NoOperands},
				{Name: "join", Summary: "check that the summaries of the shards of one run cover its input, and combine them",
					Run: (*cli).archiveJoin},
			}},
		{Name: "act", Summary: "print the act digest of a tool call (Anthropic, OpenAI or MCP shape), or of each call of an assistant message: the action digest an envelope option binds",
			Synopsis: []string{"[--shape S] [--server ID] [--profile P] [--canonical] [FILE|-]"},
			Help:     actHelp, Run: (*cli).act, Values: map[string][]string{"shape": shapeValues, "server": freeText, "profile": profileValues}},
		{Name: "gate", Summary: "decide one tool call before it runs (allow, or an MCP tool error), with a signed receipt: docker/mcp-gateway's interceptor",
			Synopsis: []string{"--policy F --receipts F --key F [--ledger PATH] [FILE|-]"},
			Help:     gateHelp, Run: (*cli).gate, Values: map[string][]string{"shape": shapeValues}},
		{Name: "approve", Summary: "list the approval requests the gate (--ask) stored in its ledger, show one, and grant or deny it with a principal's signature",
			Synopsis: []string{"list|show|grant|deny|serve|notify --ledger PATH ..."}, Help: approveHelp,
			Subs: []command{
				{Name: "list", Summary: "list the open approval requests (--all: every one), as a table or JSON lines", Run: (*cli).approveList, Operands: cmdtable.NoOperands},
				{Name: "show", Summary: "print a request's envelope as §9 renders it, with its tool, server and act digest", Run: (*cli).approveShow},
				{Name: "grant", Summary: "sign the principal's grant of a pending request and record it", Run: (*cli).approveGrant},
				{Name: "deny", Summary: "sign the principal's denial of a pending request and record it", Run: (*cli).approveDeny},
				{Name: "serve", Summary: "serve a local web page (URL with a secret token) on which the principal sees the pending requests and grants or denies them", Run: (*cli).approveServe, Values: map[string][]string{"listen": freeText}, Operands: cmdtable.NoOperands},
				{Name: "notify", Summary: "watch the ledger and POST each new pending request, signed with the gate's key, to webhooks", Run: (*cli).approveNotify, Operands: cmdtable.NoOperands, Values: map[string][]string{"notify": freeText, "approve-url": freeText}},
			}},
		{Name: "ledger", Summary: "create the empty single-use ledger that gate and resolution verify consume authority in",
			Synopsis: []string{"init PATH"}, Help: ledgerHelp,
			Subs: []command{
				{Name: "init", Summary: "create an empty ledger at PATH", Run: (*cli).ledgerInit},
			}},
		{Name: "keygen", Summary: "make an Ed25519 key pair for signing receipts or resolutions, or print the public key of a private key file",
			Synopsis: []string{"[--out KEYFILE]", "-y KEYFILE"}, Help: keygenHelp, Run: (*cli).keygen},
		{Name: "receipts", Summary: "verify a file of signed, hash-chained receipts (LAVR), or run EP-RECEIPT-v1 conformance vectors",
			Synopsis: []string{"verify|verify-ep ..."}, Help: receiptsHelp,
			Subs: []command{
				{Name: "verify", Summary: "check every record of a receipts file against the public key", Run: (*cli).receiptsVerify},
				{Name: "verify-ep", Summary: "run EP-RECEIPT-v1 conformance vectors", Run: (*cli).receiptsVerifyEP},
			}},
		{Name: "completion", Summary: "print a shell completion script for bash, zsh or fish",
			Synopsis: []string{"bash|zsh|fish"}, Help: completionHelp, Run: (*cli).completion, Operands: cmdtable.ShellNames},
		{Name: "man", Summary: "print the manual page, bbdigest(1), in roff",
			Help: manHelp, Run: (*cli).man, Operands: cmdtable.NoOperands},
		{Name: "version", Aliases: []string{"--version", "-version", "-v"}, Summary: "print the version",
			Synopsis: []string{"(also bbdigest --version, bbdigest -v)"}, Help: versionHelp, Run: (*cli).version, Operands: cmdtable.NoOperands},
		{Name: "help", Aliases: []string{"-h", "-help", "--help"}, Summary: "print the overview, or a command's own help",
			Synopsis: []string{"[COMMAND]"}, Run: (*cli).help, Operands: cmdtable.CommandNames},
	}
	// help's own help and the overview list the commands: made from the
	// table once it is there.
	findCommand("help").Help = fill(helpHelp, roff.Wrap("help prints the overview of bbdigest, or the help of COMMAND: "+cmdtable.OrList(cmdtable.Names(commands))+".", 0, 72))
	usage = overview()
}

// findCommand returns the command of the table called name (or one of its
// aliases), or nil.
func findCommand(name string) *command { return cmdtable.Lookup(commands, name) }

// call runs cmd, or the subcommand that args[0] names, with the rest of
// args. path is the words that led to cmd ("archive").
func call(c *cli, cmd *command, path string, args []string) int {
	if cmd.Run != nil {
		return cmd.Run(c, args)
	}
	if len(args) == 0 {
		return c.usageError(path, "missing subcommand ("+cmdtable.OrList(cmdtable.Names(cmd.Subs))+")")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		io.WriteString(c.stdout, cmd.Help)
		return exitOK
	}
	sub := cmdtable.Lookup(cmd.Subs, args[0])
	if sub == nil {
		return c.usageError(path, "unknown subcommand "+quote(args[0]))
	}
	return call(c, sub, path+" "+sub.Name, args[1:])
}

// flagsOf returns the flag set of the command at path ("envelope
// validate"), which must run (see cmdtable.Leaves): it runs the command
// with --help on a cli that reads nothing and writes nowhere. Every
// command makes its flag set and parses its arguments before it does
// anything else, so the run ends in parse, at the help (TestFlagsOf holds
// every command to it). It returns nil for a command that makes no flag
// set.
func flagsOf(path string) *flag.FlagSet {
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	c.main(append(strings.Split(path, " "), "--help"))
	return c.lastFlagSet
}
