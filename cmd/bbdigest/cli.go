package main

// The plumbing every command shares: the exit codes, the cli value that an
// invocation runs on, the dispatch to the commands of the table in
// commands.go (a file each: canon.go, digest.go with check.go and
// lines.go, demo.go, cpu.go, envelope.go with envelope emit,
// resolution.go, act.go, gate.go, approve*.go, keygen.go, receipts.go,
// archive*.go, version.go, completion.go, man.go, help.go; the help texts
// in help/), flag parsing (internal/gnuflag), and reading inputs and
// writing stdout. The diagnostics are in diag.go. What is not a command is
// in internal/ (ARCHITECTURE.md lists each package): the table's machinery
// and the overview, man page and completion tree made from it (cmdtable),
// digest --check's checking (sumcheck), --lines (perline), the progress
// display (progress), the cpu report (cpureport), the JSON answers of
// envelope validate, resolution verify and approve list (verdict), key
// files (keyfile), EP vectors (epvector), the build's version and date
// (buildinfo), approve serve's page over the ledger (approvepage,
// approvepage/ledgersource); and in the library: the principal's decision
// (gate.Decide), the authority of an MCP call's _meta
// (gate.MetaAuthority), approve notify's polling (notify.Watch).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/boundedread"
	"github.com/bbdigest/bbdigest/internal/cmdtable"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
)

// Exit codes.
const (
	exitOK       = 0 // every input accepted
	exitRejected = 1 // some input rejected
	exitUsage    = 2 // usage or I/O error
	exitLedger   = 3 // the ledger could not be read or written (see ledgerFailure)

	// exitInterrupted is the code of a run stopped by SIGINT (Ctrl-C) that
	// put its output in order first (archive rehash|verify --out): 128 +
	// SIGINT's number, as a shell reports a process that SIGINT killed.
	exitInterrupted = 130
)

// run is the whole command: it parses args, reads the inputs and returns the
// exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr}
	return c.main(args)
}

// cli is one invocation of the command.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	// maxSize, when positive, lowers the size bound of every input
	// (tests).
	maxSize int

	// files, when not nil, is where archive rehash and verify open their
	// FILEs (tests: in memory); nil, the operating system's files.
	files fs.FS

	in []byte // the current input, kept for its memory

	lastUsage string // the last usage error of parse, without the command's name, unescaped

	lastFlagSet *flag.FlagSet // the flag set flagSet made last (flagsOf)
}

// errorf writes one "bbdigest: error: " line. The message is escaped
// (safeText), so that it stays one line and holds nothing a terminal
// interprets, whatever names went into it.
func (c *cli) errorf(format string, args ...any) {
	io.WriteString(c.stderr, "bbdigest: error: "+safeText(fmt.Sprintf(format, args...))+"\n")
}

// hintf writes one "bbdigest: hint: " line, escaped as errorf's.
func (c *cli) hintf(format string, args ...any) {
	io.WriteString(c.stderr, "bbdigest: hint: "+safeText(fmt.Sprintf(format, args...))+"\n")
}

// warnf writes one "bbdigest: warning: " line, escaped as errorf's: a
// count that sums up failures already reported one by one (digest --check,
// after sha256sum's WARNING lines).
func (c *cli) warnf(format string, args ...any) {
	io.WriteString(c.stderr, "bbdigest: warning: "+safeText(fmt.Sprintf(format, args...))+"\n")
}

// main dispatches args to their command and returns the exit code.
func (c *cli) main(args []string) int {
	if len(args) == 0 {
		io.WriteString(c.stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	if command := findCommand(cmd); command != nil { // the table, commands.go
		return call(c, command, command.Name, rest)
	}
	if strings.HasPrefix(cmd, "-") {
		c.errorf("unknown flag %s before the command", cmd)
		c.hintf("flags go after the command, as in 'bbdigest digest --profile rfc8785 FILE'")
		return exitUsage
	}
	c.errorf("unknown command %s", quote(cmd))
	c.hintf("run 'bbdigest help' for usage")
	return exitUsage
}

// flagSet returns an empty flag set for a command, named as the command is
// ("envelope validate"); parse prints that command's help for --help.
func (c *cli) flagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.lastFlagSet = fs
	return fs
}

// parse parses args into fs and returns the operands. A code of -1 means
// go on; any other is the exit code to return at once. maxOperands < 0
// means any number.
//
// The syntax is GNU's argument permutation over package flag's flags
// (internal/gnuflag): flags may follow file names ("bbdigest digest a.json
// --names"), one-letter booleans group (-cw), and the messages name every
// flag "--name", as the help does. -h, -help and --help print the
// command's own help.
func (c *cli) parse(fs *flag.FlagSet, args []string, maxOperands int) (operands []string, code int) {
	usageError := func(format string, args ...any) ([]string, int) {
		c.lastUsage = fmt.Sprintf(format, args...)
		c.errorf("%s: %s", fs.Name(), c.lastUsage)
		c.hintf("%s", helpHint(fs.Name()))
		return nil, exitUsage
	}
	operands, err := gnuflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		text, _ := cmdtable.Help(commands, fs.Name())
		io.WriteString(c.stdout, text)
		return nil, exitOK
	}
	if err != nil {
		return usageError("%s", err)
	}
	if maxOperands >= 0 && len(operands) > maxOperands {
		switch maxOperands {
		case 0:
			return usageError("unexpected argument %s", quote(operands[0]))
		default:
			return usageError("too many inputs (%d)", len(operands))
		}
	}
	return operands, -1
}

// helpHint returns the hint that follows a usage error of the command cmd.
func helpHint(cmd string) string {
	top, _, _ := strings.Cut(cmd, " ") // a subcommand's help is its command's
	return "run 'bbdigest help " + top + "' for usage"
}

// profile returns the profile called name, reporting an unknown one.
func (c *cli) profile(name string) (canon.Profile, bool) {
	p, err := canon.ProfileByName(name)
	if err != nil {
		c.errorf("unknown profile %s", quote(name))
		c.hintf("--profile takes strict (the default) or rfc8785")
		return p, false
	}
	if c.maxSize > 0 {
		if p, err = p.WithMaxSize(c.maxSize); err != nil {
			panic("BUG: " + err.Error()) // tests set maxSize within 1..canon.MaxSizeLimit
		}
	}
	return p, true
}

// limit is the size bound of inputs read whole outside a profile
// (envelopes, resolutions, actions): the strict profile's.
func (c *cli) limit() int {
	if c.maxSize > 0 {
		return c.maxSize
	}
	return canon.DefaultMaxSize
}

// open opens the input called name; "-" is stdin.
func (c *cli) open(name string) (io.Reader, func(), error) {
	if name == "-" {
		return c.stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// readFile reads the whole input called name ("-" is stdin), appended to
// dst[:0] (whose memory it reuses), holding no more than limit bytes and
// one read chunk while it does (see internal/boundedread): a regular file
// longer than limit is rejected unread, and anything else as soon as limit
// bytes are passed. An input past the bound gives the canon gate's
// too-large *canon.Error; a failure to open or read, that error.
func (c *cli) readFile(dst []byte, name string, limit int) ([]byte, error) {
	r, done, err := c.open(name)
	if err != nil {
		return dst[:0], err
	}
	defer done()
	src, err := boundedread.ReadAll(dst, r, limit)
	if errors.Is(err, boundedread.ErrTooLarge) {
		return src[:0], tooLarge(limit)
	}
	return src, err
}

// canonicalize reads the input called name and returns its canonical form,
// valid until the next call. On failure it reports the problem and returns
// the exit code for it: exitRejected for a rejection, exitUsage when the
// input cannot be read.
func (c *cli) canonicalize(cz *canon.Canonicalizer, name string) ([]byte, int) {
	out, err := c.canonical(cz, name)
	if err != nil {
		if _, ok := errors.AsType[*canon.Error](err); ok {
			c.reject(name, err)
			return nil, exitRejected
		}
		c.ioFailure(name, err)
		return nil, exitUsage
	}
	return out, exitOK
}

// canonical reads the input called name and returns its canonical form,
// valid until the next call, or the error, unreported: a *canon.Error for a
// rejection, else the failure to open or read.
func (c *cli) canonical(cz *canon.Canonicalizer, name string) ([]byte, error) {
	src, err := c.readFile(c.in, name, cz.Profile().MaxSize())
	c.in = src[:0]
	if err != nil {
		return nil, err
	}
	return cz.View(src)
}

// write writes b to stdout, reporting a failure.
func (c *cli) write(b []byte) int {
	if _, err := c.stdout.Write(b); err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	return exitOK
}

// usageError reports a usage error of the command cmd and returns
// exitUsage.
func (c *cli) usageError(cmd, msg string) int {
	c.errorf("%s: %s", cmd, msg)
	c.hintf("%s", helpHint(cmd))
	return exitUsage
}
