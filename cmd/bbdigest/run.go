package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
)

const usage = `bbdigest canonicalizes JSON with RFC 8785 (JCS) and prints the SHA-256
digest of the canonical bytes as sha256:<64 lowercase hex>.

Usage:
  bbdigest canon  [--profile NAME] [--lines] [FILE|-]
  bbdigest digest [--profile NAME] [--lines] [FILE|-]...
  bbdigest demo   [--duration D]
  bbdigest cpu    [--json]
  bbdigest envelope validate|digest|render|emit ...   (bbdigest envelope help)
  bbdigest resolution verify ...                      (bbdigest resolution help)
  bbdigest version
  bbdigest help

Commands:
  canon    write the canonical form of one JSON text to stdout, with no
           trailing newline
  digest   print the digest of each input: "sha256:<hex>" for one input,
           "sha256:<hex>  NAME" per file for several (like sha256sum); a
           rejected file is reported on stderr and the others still run
  demo     canonicalize and digest a built-in set of sample envelopes and
           tool calls, then measure throughput
  cpu      print the CPU features found and the SHA-256 path chosen for
           single messages and for batches (BBDIGEST_SHA256=generic|shani|
           avx2|avx512|arm64 forces a path)
  envelope   check, digest and render binding-moment envelopes
             (draft-morrison-binding-moment-envelope-04), record them in a
             ledger
  resolution verify a resolution against its envelope and the action about
             to be performed; only the outcome "authority" authorizes
  version  print the version
  help     print this help

Options:
  --profile NAME  the canonicalization profile:
                    strict   (default) RFC 8785 restricted to integers with
                             |n| <= 2^53-1 and nesting <= 64, the profile
                             of the binding-moment envelope draft §6.3
                    rfc8785  plain RFC 8785 over I-JSON, nesting <= 1000
  --lines         read one JSON text per line; line N of the output answers
                  line N of the input with its canonical form (canon) or
                  digest (digest), or with
                    error CLASS OFFSET MESSAGE
                  when it is rejected. Lines end at "\n"; a final line
                  without "\n" counts. A "\r" before the "\n" is JSON
                  whitespace, so CRLF input works; an empty line is
                  rejected as a syntax error. One input only.
  --duration D    demo: how long to measure throughput (default 1s; 0 skips)
  --json          cpu: print one JSON object with stable field names

  FILE "-" or no FILE reads stdin. Flags go before file names. An input
  (or with --lines, a line) longer than 256 MiB is rejected as too-large.
  Rejection classes: syntax, invalid-utf8, duplicate-name,
  unpaired-surrogate, non-integer, unsafe-integer, number-range, depth,
  too-large.

Exit status:
  0  every input was accepted
  1  some input was rejected
  2  usage or I/O error

Examples:
  bbdigest digest envelope.json
  bbdigest canon --profile rfc8785 < doc.json > doc.jcs
  bbdigest digest a.json b.json c.json
  bbdigest digest --lines < envelopes.jsonl > digests.txt
  bbdigest demo --duration 3s
`

// Exit codes.
const (
	exitOK       = 0 // every input accepted
	exitRejected = 1 // some input rejected
	exitUsage    = 2 // usage or I/O error
)

// Version is the version "bbdigest version" prints. Release builds set it
// with -ldflags "-X main.Version=v1.2.3"; otherwise it comes from the build
// information.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" {
		return "(devel) " + rev[:min(len(rev), 12)] + dirty
	}
	return "(devel)"
}

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

	// maxSize, when positive, lowers the profiles' input size bound (tests).
	maxSize int

	out bytes.Buffer // canonical form of the current input
}

func (c *cli) errorf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "bbdigest: error: "+format+"\n", args...)
}

func (c *cli) hintf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "bbdigest: hint: "+format+"\n", args...)
}

func (c *cli) main(args []string) int {
	if len(args) == 0 {
		io.WriteString(c.stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "canon":
		return c.canon(rest)
	case "digest":
		return c.digest(rest)
	case "demo":
		return c.demo(rest)
	case "cpu":
		return c.cpu(rest)
	case "envelope":
		return c.envelope(rest)
	case "resolution":
		return c.resolution(rest)
	case "version":
		return c.version(rest)
	case "help", "-h", "-help", "--help":
		return c.help(rest)
	}
	if strings.HasPrefix(cmd, "-") {
		c.errorf("unknown flag %s before the command", cmd)
		c.hintf("flags go after the command, as in 'bbdigest digest --profile rfc8785 FILE'")
		return exitUsage
	}
	c.errorf("unknown command %q", cmd)
	c.hintf("run 'bbdigest help' for usage")
	return exitUsage
}

func (c *cli) help(args []string) int {
	if len(args) > 1 {
		c.errorf("help: too many arguments")
		return exitUsage
	}
	if len(args) == 1 {
		switch args[0] {
		case "canon", "digest", "demo", "cpu", "envelope", "resolution", "version", "help":
		default:
			c.errorf("help: unknown command %q", args[0])
			c.hintf("run 'bbdigest help' for usage")
			return exitUsage
		}
	}
	io.WriteString(c.stdout, usage)
	return exitOK
}

func (c *cli) version(args []string) int {
	fs := c.flagSet("version")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	fmt.Fprintf(c.stdout, "bbdigest %s\n", version())
	return exitOK
}

// flagSet returns an empty flag set for a command. Its own output is
// discarded: parse reports errors in bbdigest's format.
func (c *cli) flagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses args into fs and returns the operands. A code of -1 means
// go on; any other is the exit code to return at once. maxOperands < 0
// means any number.
func (c *cli) parse(fs *flag.FlagSet, args []string, maxOperands int) (operands []string, code int) {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(c.stdout, usage)
		return nil, exitOK
	}
	if err != nil {
		c.errorf("%s: %v", fs.Name(), err)
		c.hintf("run 'bbdigest help' for usage")
		return nil, exitUsage
	}
	operands = fs.Args()
	// After "--" every operand is a file name. Otherwise an operand that
	// looks like a flag is one placed after a file name.
	consumed := args[:len(args)-len(operands)]
	if n := len(consumed); n == 0 || consumed[n-1] != "--" {
		for _, a := range operands {
			if len(a) > 1 && a[0] == '-' {
				c.errorf("%s: flag %s after a file name", fs.Name(), a)
				c.hintf("flags go before file names; write ./%s for a file of that name", a)
				return nil, exitUsage
			}
		}
	}
	if maxOperands >= 0 && len(operands) > maxOperands {
		switch maxOperands {
		case 0:
			c.errorf("%s: unexpected argument %q", fs.Name(), operands[0])
		default:
			c.errorf("%s: too many inputs (%d)", fs.Name(), len(operands))
		}
		c.hintf("run 'bbdigest help' for usage")
		return nil, exitUsage
	}
	return operands, -1
}

// profile returns the profile called name, reporting an unknown one.
func (c *cli) profile(name string) (canon.Profile, bool) {
	p, err := canon.ProfileByName(name)
	if err != nil {
		c.errorf("unknown profile %q", name)
		c.hintf("--profile takes strict (the default) or rfc8785")
		return p, false
	}
	if c.maxSize > 0 {
		if p, err = p.WithMaxSize(c.maxSize); err != nil {
			panic(err) // maxSize > 0 is always valid
		}
	}
	return p, true
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

// canonicalize reads the input called name and returns its canonical form,
// valid until the next call. On failure it reports the problem and returns
// the exit code for it.
func (c *cli) canonicalize(cz *canon.Canonicalizer, name string) ([]byte, int) {
	r, done, err := c.open(name)
	if err != nil {
		c.errorf("%v", err)
		return nil, exitUsage
	}
	defer done()
	c.out.Reset()
	if err := cz.Transcode(&c.out, r); err != nil {
		if e, ok := canon.AsError(err); ok {
			c.errorf("%s: %v", name, e)
			return nil, exitRejected
		}
		c.errorf("%v", err) // a read error; writes to c.out do not fail
		return nil, exitUsage
	}
	return c.out.Bytes(), exitOK
}

// write writes b to stdout, reporting a failure.
func (c *cli) write(b []byte) int {
	if _, err := c.stdout.Write(b); err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	return exitOK
}

func (c *cli) canon(args []string) int {
	fs := c.flagSet("canon")
	profile := fs.String("profile", "strict", "")
	lines := fs.Bool("lines", false, "")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	p, ok := c.profile(*profile)
	if !ok {
		return exitUsage
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	cz := canon.New(p)
	if *lines {
		return c.lines(cz, name, false)
	}
	out, code := c.canonicalize(cz, name)
	if code != exitOK {
		return code
	}
	return c.write(out)
}

func (c *cli) digest(args []string) int {
	fs := c.flagSet("digest")
	profile := fs.String("profile", "strict", "")
	lines := fs.Bool("lines", false, "")
	operands, code := c.parse(fs, args, -1)
	if code >= 0 {
		return code
	}
	p, ok := c.profile(*profile)
	if !ok {
		return exitUsage
	}
	cz := canon.New(p)
	if *lines {
		if len(operands) > 1 {
			c.errorf("digest: --lines reads one input, not %d", len(operands))
			c.hintf("run bbdigest digest --lines once per file")
			return exitUsage
		}
		name := "-"
		if len(operands) == 1 {
			name = operands[0]
		}
		return c.lines(cz, name, true)
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	named := len(operands) > 1
	status := exitOK
	var line []byte
	for _, name := range operands {
		out, code := c.canonicalize(cz, name)
		if code != exitOK {
			status = max(status, code)
			continue
		}
		line = appendDigest(line[:0], out)
		if named {
			line = appendName(append(line, "  "...), name)
		}
		if code := c.write(append(line, '\n')); code != exitOK {
			return code // stdout is gone: no point going on
		}
	}
	return status
}

// appendName appends a file name to a "DIGEST  NAME" line. As
// sha256sum does, a name with a newline, carriage return or backslash is
// escaped (\n, \r, \\) and the whole line then starts with a backslash, so
// that every file takes exactly one line.
func appendName(line []byte, name string) []byte {
	if !strings.ContainsAny(name, "\n\r\\") {
		return append(line, name...)
	}
	line = append(line, 0)
	copy(line[1:], line)
	line[0] = '\\'
	for i := 0; i < len(name); i++ {
		switch b := name[i]; b {
		case '\n':
			line = append(line, '\\', 'n')
		case '\r':
			line = append(line, '\\', 'r')
		case '\\':
			line = append(line, '\\', '\\')
		default:
			line = append(line, b)
		}
	}
	return line
}
