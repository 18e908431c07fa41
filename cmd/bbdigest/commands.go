package main

// The command table: the one list of bbdigest's commands. main dispatches
// from it, help finds the help texts in it, and the overview's command
// list, the list in 'bbdigest help help', shell completion
// (completion.go) and the man page (man.go) are made from it.
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
	"slices"
	"strings"

	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/roff"
)

// command is one entry of the command table: a command, or a subcommand
// of one.
type command struct {
	// name is the word that selects the command.
	name string
	// aliases are other words main dispatches on as name (--version for
	// version); help and completion know the command by name alone.
	aliases []string
	// summary says in one line what the command does; the overview wraps
	// it.
	summary string
	// synopsis are the command's lines in the overview's Usage, after
	// "bbdigest NAME".
	synopsis []string
	// help is the text "bbdigest help NAME" and "bbdigest NAME --help"
	// print; a subcommand's is its command's.
	help string
	// run runs the command with the arguments after its name. A command
	// with subs has no run: the first argument names the subcommand.
	run func(c *cli, args []string) int
	// subs are the subcommands.
	subs []command
	// values lists the values of flags whose value is one of a few
	// words (--profile strict|rfc8785), for completion; a flag listed
	// with no words takes a value that completes to nothing (--server
	// ID). The value of any other flag that takes a string completes to
	// a file name, and the value of a number or duration to nothing.
	values map[string][]string
	// operands says what the arguments after the flags are.
	operands operandKind
}

// operandKind is what the operands of a command are, for completion.
type operandKind uint8

const (
	operandFiles    operandKind = iota // file names (the default)
	operandNone                        // none: the command takes no operand
	operandCommands                    // a command name (help)
	operandShells                      // a shell name (completion)
)

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
		{name: "canon", summary: "write the canonical form of one JSON text to stdout",
			synopsis: []string{"[--profile NAME] [--lines [--workers N]] [FILE|-]"},
			help:     canonHelp,
			run:      (*cli).canon, values: map[string][]string{"profile": profileValues}},
		{name: "digest", summary: "print the digest of each input, or check a list of digests",
			synopsis: []string{
				"[--profile NAME] [--names] [FILE|-]...",
				"[--profile NAME] --lines [--workers N] [FILE|-]",
				"[--profile NAME] -c|--check [CHECK FLAGS] [FILE|-]...",
			},
			help: digestHelp,
			run:  (*cli).digest, values: map[string][]string{"profile": profileValues}},
		{name: "demo", summary: "canonicalize and digest a built-in set of sample envelopes and tool calls, then measure throughput",
			synopsis: []string{"[--duration D]"}, help: demoHelp, run: (*cli).demo, operands: operandNone},
		{name: "cpu", summary: "print the CPU features found and the kernels chosen",
			synopsis: []string{"[--json]"}, help: cpuHelp, run: (*cli).cpu, operands: operandNone},
		{name: "envelope", summary: "check, digest and render binding-moment envelopes (draft-morrison-binding-moment-envelope-04), record them in a ledger",
			synopsis: []string{"validate|digest|render|emit ..."}, help: envelopeUsage,
			subs: []command{
				{name: "validate", summary: "check an envelope against §4 and §5 and the canon gate", run: (*cli).envelopeValidate},
				{name: "digest", summary: "print the envelope digest of §6.2", run: (*cli).envelopeDigest},
				{name: "render", summary: "print the plain-text rendering of the decision (§9)", run: (*cli).envelopeRender},
				{name: "emit", summary: "record the envelope in a ledger as emitted and print its digest", run: (*cli).envelopeEmit},
			}},
		{name: "resolution", summary: "verify a resolution against its envelope and the action about to be performed (only the outcome \"authority\" authorizes), or sign a principal's selection",
			synopsis: []string{"verify|sign ..."}, help: resolutionUsage,
			subs: []command{
				{name: "verify", summary: "check a resolution against its envelope and the action", run: (*cli).resolutionVerify, operands: operandNone},
				{name: "sign", summary: "sign a principal's selection with the principal's key, for a gate whose policy names its principals", run: (*cli).resolutionSign, operands: operandNone},
			}},
		{name: "archive", summary: "re-hash or verify JSON Lines archives on every core, one JSON result line per input line",
			synopsis: []string{
				"rehash|verify [--profile NAME] [--workers N] [FILE...|-]",
				"gen --records N [--kind K] [--seed S]",
				"join SUMMARY...",
			},
			help: archiveHelp,
			subs: []command{
				{name: "rehash", summary: "digest each line of JSON Lines archives",
					run: func(c *cli, args []string) int { return c.archiveRun("rehash", args) }, values: archiveValues},
				{name: "verify", summary: "check the digest each record of JSON Lines archives claims",
					run: func(c *cli, args []string) int { return c.archiveRun("verify", args) }, values: archiveValues},
				{name: "gen", summary: "write a generated archive to stdout",
					run: (*cli).archiveGen, values: map[string][]string{"kind": kindValues}, operands: operandNone},
				{name: "join", summary: "check that the summaries of the shards of one run cover its input, and combine them",
					run: (*cli).archiveJoin},
			}},
		{name: "act", summary: "print the act digest of a tool call (Anthropic, OpenAI or MCP shape), or of each call of an assistant message: the action digest an envelope option binds",
			synopsis: []string{"[--shape S] [--server ID] [--profile P] [--canonical] [FILE|-]"},
			help:     actHelp, run: (*cli).act, values: map[string][]string{"shape": shapeValues, "server": freeText, "profile": profileValues}},
		{name: "gate", summary: "decide one tool call before it runs (allow, or an MCP tool error), with a signed receipt: docker/mcp-gateway's interceptor",
			synopsis: []string{"--policy F --receipts F --key F [--ledger PATH] [FILE|-]"},
			help:     gateHelp, run: (*cli).gate, values: map[string][]string{"shape": shapeValues}},
		{name: "approve", summary: "list the approval requests the gate (--ask) stored in its ledger, show one, and grant or deny it with a principal's signature",
			synopsis: []string{"list|show|grant|deny|serve|notify --ledger PATH ..."}, help: approveHelp,
			subs: []command{
				{name: "list", summary: "list the open approval requests (--all: every one), as a table or JSON lines", run: (*cli).approveList, operands: operandNone},
				{name: "show", summary: "print a request's envelope as §9 renders it, with its tool, server and act digest", run: (*cli).approveShow},
				{name: "grant", summary: "sign the principal's grant of a pending request and record it", run: (*cli).approveGrant},
				{name: "deny", summary: "sign the principal's denial of a pending request and record it", run: (*cli).approveDeny},
				{name: "serve", summary: "serve a local web page (URL with a secret token) on which the principal sees the pending requests and grants or denies them", run: (*cli).approveServe, values: map[string][]string{"listen": freeText}, operands: operandNone},
				{name: "notify", summary: "watch the ledger and POST each new pending request, signed with the gate's key, to webhooks", run: (*cli).approveNotify, operands: operandNone, values: map[string][]string{"notify": freeText, "approve-url": freeText}},
			}},
		{name: "ledger", summary: "create the empty single-use ledger that gate and resolution verify consume authority in",
			synopsis: []string{"init PATH"}, help: ledgerHelp,
			subs: []command{
				{name: "init", summary: "create an empty ledger at PATH", run: (*cli).ledgerInit},
			}},
		{name: "keygen", summary: "make an Ed25519 key pair for signing receipts or resolutions, or print the public key of a private key file",
			synopsis: []string{"[--out KEYFILE]", "-y KEYFILE"}, help: keygenHelp, run: (*cli).keygen},
		{name: "receipts", summary: "verify a file of signed, hash-chained receipts (LAVR), or run EP-RECEIPT-v1 conformance vectors",
			synopsis: []string{"verify|verify-ep ..."}, help: receiptsHelp,
			subs: []command{
				{name: "verify", summary: "check every record of a receipts file against the public key", run: (*cli).receiptsVerify},
				{name: "verify-ep", summary: "run EP-RECEIPT-v1 conformance vectors", run: (*cli).receiptsVerifyEP},
			}},
		{name: "completion", summary: "print a shell completion script for bash, zsh or fish",
			synopsis: []string{"bash|zsh|fish"}, help: completionHelp, run: (*cli).completion, operands: operandShells},
		{name: "man", summary: "print the manual page, bbdigest(1), in roff",
			help: manHelp, run: (*cli).man, operands: operandNone},
		{name: "version", aliases: []string{"--version", "-version", "-v"}, summary: "print the version",
			synopsis: []string{"(also bbdigest --version, bbdigest -v)"}, help: versionHelp, run: (*cli).version, operands: operandNone},
		{name: "help", aliases: []string{"-h", "-help", "--help"}, summary: "print the overview, or a command's own help",
			synopsis: []string{"[COMMAND]"}, run: (*cli).help, operands: operandCommands},
	}
	// help's own help and the overview list the commands: made from the
	// table once it is there.
	findCommand("help").help = fill(helpHelp, roff.Wrap("help prints the overview of bbdigest, or the help of COMMAND: "+orList(commandNames())+".", 0, 72))
	usage = overview()
}

// findCommand returns the command of the table called name (or one of its
// aliases), or nil.
func findCommand(name string) *command { return lookup(commands, name) }

// lookup returns the command of cmds called name or one of its aliases, or
// nil.
func lookup(cmds []command, name string) *command {
	for i := range cmds {
		if cmds[i].name == name || slices.Contains(cmds[i].aliases, name) {
			return &cmds[i]
		}
	}
	return nil
}

// findPath returns the command at path, its words ("envelope validate"),
// and the top-level command it is in; nil for a path that names none.
// Aliases do not count.
func findPath(path string) (cmd, top *command) {
	words := strings.Split(path, " ")
	cmds := commands
	for i, w := range words {
		j := slices.IndexFunc(cmds, func(c command) bool { return c.name == w })
		if j < 0 {
			return nil, nil
		}
		cmd = &cmds[j]
		if i == 0 {
			top = cmd
		}
		cmds = cmd.subs
	}
	return cmd, top
}

// commandNames returns the names of the commands, in table order.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// subNames returns the names of cmd's subcommands, in table order.
func (cmd *command) subNames() []string {
	names := make([]string, len(cmd.subs))
	for i, s := range cmd.subs {
		names[i] = s.name
	}
	return names
}

// call runs cmd, or the subcommand that args[0] names, with the rest of
// args. path is the words that led to cmd ("archive").
func (cmd *command) call(c *cli, path string, args []string) int {
	if cmd.run != nil {
		return cmd.run(c, args)
	}
	if len(args) == 0 {
		return c.usageError(path, "missing subcommand ("+orList(cmd.subNames())+")")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		io.WriteString(c.stdout, cmd.help)
		return exitOK
	}
	sub := lookup(cmd.subs, args[0])
	if sub == nil {
		return c.usageError(path, "unknown subcommand "+quote(args[0]))
	}
	return sub.call(c, path+" "+sub.name, args[1:])
}

// leaves calls f with the path of each command that runs (each command
// without subcommands, and each subcommand), in table order.
func leaves(f func(path string, cmd *command)) {
	var walk func(prefix string, cmds []command)
	walk = func(prefix string, cmds []command) {
		for i := range cmds {
			path := prefix + cmds[i].name
			if cmds[i].subs == nil {
				f(path, &cmds[i])
			} else {
				walk(path+" ", cmds[i].subs)
			}
		}
	}
	walk("", commands)
}

// flagsOf returns the flag set of the command at path ("envelope
// validate"), which must run (see leaves): it runs the command with
// --help on a cli that reads nothing and writes nowhere. Every command
// makes its flag set and parses its arguments before it does anything
// else, so the run ends in parse, at the help (TestFlagsOf holds every
// command to it). It returns nil for a command that makes no flag set.
func flagsOf(path string) *flag.FlagSet {
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	c.main(append(strings.Split(path, " "), "--help"))
	return c.lastFlagSet
}

// cmdFlag is one flag of a command, as completion offers it.
type cmdFlag struct {
	name  string
	value bool     // takes a value
	files bool     // the value is a file name
	words []string // the value is one of these
}

// flags returns the flags of the command cmd at path, sorted by name.
// One-letter flags (digest's -c and -w) are left out: each is a short
// spelling of a long flag that is listed.
func (cmd *command) flags(path string) []cmdFlag {
	fs := flagsOf(path)
	if fs == nil {
		return nil
	}
	var out []cmdFlag
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			return
		}
		cf := cmdFlag{name: f.Name, value: true}
		if gnuflag.IsBool(f) {
			cf.value = false
		} else if words, ok := cmd.values[f.Name]; ok {
			cf.words = words
		} else if g, ok := f.Value.(flag.Getter); ok {
			_, cf.files = g.Get().(string)
		}
		out = append(out, cf)
	})
	return out
}

// orList returns words as "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
