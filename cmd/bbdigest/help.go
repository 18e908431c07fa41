package main

// The help texts: "bbdigest help" is the overview, and documents what all
// commands share (the diagnostic format, the rejection classes, the exit
// codes); each command has its own, printed by "bbdigest help COMMAND" and
// "bbdigest COMMAND --help".

import (
	"io"
	"strings"
)

// help prints the overview, or with one argument that command's help.
func (c *cli) help(args []string) int {
	if len(args) > 1 {
		c.errorf("help: too many arguments")
		return exitUsage
	}
	if len(args) == 0 {
		io.WriteString(c.stdout, usage)
		return exitOK
	}
	text, ok := commandHelp(args[0])
	if !ok || strings.Contains(args[0], " ") {
		c.errorf("help: unknown command %s", quote(args[0]))
		c.hintf("run 'bbdigest help' for usage")
		return exitUsage
	}
	io.WriteString(c.stdout, text)
	return exitOK
}

const usage = `bbdigest canonicalizes JSON with RFC 8785 (JCS) and prints the SHA-256
digest of the canonical bytes as sha256:<64 lowercase hex>.

Usage:
  bbdigest canon  [--profile NAME] [--lines [--workers N]] [FILE|-]
  bbdigest digest [--profile NAME] [--names] [FILE|-]...
  bbdigest digest [--profile NAME] --lines [--workers N] [FILE|-]
  bbdigest digest [--profile NAME] --check FILE
  bbdigest demo   [--duration D]
  bbdigest cpu    [--json]
  bbdigest envelope validate|digest|render|emit ...
  bbdigest resolution verify ...
  bbdigest version                (also bbdigest --version, bbdigest -v)
  bbdigest help [COMMAND]

Commands:
  canon       write the canonical form of one JSON text to stdout
  digest      print the digest of each input, or check a list of digests
  demo        canonicalize and digest a built-in set of sample envelopes and
              tool calls, then measure throughput
  cpu         print the CPU features found and the kernels chosen
  envelope    check, digest and render binding-moment envelopes
              (draft-morrison-binding-moment-envelope-04), record them in a
              ledger
  resolution  verify a resolution against its envelope and the action about
              to be performed; only the outcome "authority" authorizes
  version     print the version
  help        print this overview, or a command's own help

  Run 'bbdigest help COMMAND' or 'bbdigest COMMAND --help' for a command's
  options. FILE "-" or no FILE reads stdin. Flags go before file names;
  after "--" every argument is a file name. An input longer than 256 MiB
  is rejected as too-large before it is read in full.

Diagnostics:
  Every line on stderr starts "bbdigest: error: " or "bbdigest: hint: "
  (but for this overview, printed there when no command is given).
  An input that is rejected (by the canon gate, or as an envelope) gets one
  line per problem, in one format for every command:

    bbdigest: error: FILE: POINTER: REASON

  FILE     the input's name as given, "-" for stdin; quoted like POINTER
           when it is empty, starts with '"', contains ": " or holds a
           character that is not printable
  POINTER  the JSON Pointer (RFC 6901) of the offending value, always a
           double-quoted JSON string ("" for the whole value); a byte that
           is not UTF-8 is written \xHH
  REASON   for the canon gate "CLASS: MESSAGE at offset N", N the byte
           offset in the input; for an envelope problem, the problem

  An input that cannot be opened or read gets "bbdigest: error: FILE:
  MESSAGE", MESSAGE never starting with '"'. Nothing bbdigest writes, to
  stdout or stderr, holds a character a terminal interprets: controls, DEL,
  bidi and other format characters, U+2028, U+2029 and bytes that are not
  UTF-8 are escaped (\n, \u001b, \u202e, \xff), in file names, pointers,
  messages and JSON output alike.

  Rejection classes: syntax, invalid-utf8, duplicate-name,
  unpaired-surrogate, non-integer, unsafe-integer, number-range, depth,
  too-large.

Exit status:
  0  every input was accepted
  1  some input was rejected
  2  usage or I/O error
  envelope emit and resolution verify have their own tables (bbdigest help
  envelope, bbdigest help resolution).

Examples:
  bbdigest digest envelope.json
  bbdigest canon --profile rfc8785 < doc.json > doc.jcs
  bbdigest digest --names *.json > digests.txt
  bbdigest digest --check digests.txt
  bbdigest digest --lines < envelopes.jsonl > digests.txt
  bbdigest demo --duration 3s
`

// profileOption and linesOption document the options canon and digest
// share.
const profileOption = `  --profile NAME  the canonicalization profile:
                    strict   (default) RFC 8785 restricted to integers with
                             |n| <= 2^53-1 and nesting <= 64, the profile
                             of the binding-moment envelope draft §6.3
                    rfc8785  plain RFC 8785 over I-JSON, nesting <= 1000
`

const linesOption = `  --lines         read one JSON text per line; line N of the output answers
                  line N of the input with its %s, or with
                    error CLASS OFFSET MESSAGE within "POINTER"
                  when it is rejected (OFFSET is in the line; MESSAGE and
                  POINTER are escaped as in 'bbdigest help'). Lines end at
                  "\n"; a final line without "\n" counts. A "\r" before the
                  "\n" is JSON whitespace, so CRLF input works; an empty
                  line is rejected as a syntax error. A line longer than
                  256 MiB is rejected as too-large without being kept. One
                  input only. Each answer is written before bbdigest waits
                  for more input, so a program can write a line and read
                  its answer through pipes.
  --workers N     with --lines: answer the lines with N workers, 1 to
                  1024 (default: one per CPU the process may use); the
                  output is the same for every N
`

const canonHelp = `Usage:
  bbdigest canon [--profile NAME] [--lines [--workers N]] [FILE|-]

canon writes the canonical form (RFC 8785, JCS) of one JSON text to stdout,
with no trailing newline. A rejected input is reported on stderr in the
format of 'bbdigest help' (Diagnostics), and nothing goes to stdout.

Options:
` + profileOption + `%s
  FILE "-" or no FILE reads stdin. An input longer than 256 MiB is rejected
  as too-large.

Exit status:
  0  the input was accepted (with --lines, every line)
  1  the input was rejected (with --lines, some line)
  2  usage or I/O error

Examples:
  bbdigest canon doc.json > doc.jcs
  bbdigest canon --profile rfc8785 < doc.json
  bbdigest canon --lines < docs.jsonl
`

const digestHelp = `Usage:
  bbdigest digest [--profile NAME] [--names] [FILE|-]...
  bbdigest digest [--profile NAME] --lines [--workers N] [FILE|-]
  bbdigest digest [--profile NAME] --check FILE

digest prints the SHA-256 digest of the canonical form of each input,
sha256:<64 lowercase hex>: the digest alone for one input; for several, or
with --names, one line "sha256:<hex>  NAME" per input, as sha256sum writes
them ("-" names stdin). A name holding a backslash or a character that is
not printable is escaped (\\, \n, \r, \t, \uXXXX, and \xHH for a byte that
is not UTF-8) and its line then starts with a backslash, so that every
input takes exactly one line. A rejected input is reported on stderr in the
format of 'bbdigest help' (Diagnostics), and the other inputs still run.

Options:
` + profileOption + `  --names         print "sha256:<hex>  NAME" lines even for one input, so
                  that the output does not change form when a glob matches
                  a single file
%s  --check FILE    check the digests listed in FILE ("-": stdin): read its
                  "sha256:<hex>  NAME" lines, as --names writes them
                  (escaped names included), digest each NAME under
                  --profile and answer each line with one of
                    NAME: OK
                    NAME: FAILED                the digest differs
                    NAME: FAILED open or read   NAME could not be read
                    NAME: FAILED rejected       NAME failed the canon gate
                  (NAME escaped as above). The cause of the last two is
                  reported on stderr, and so is each line of FILE that is
                  not a check line:
                    bbdigest: error: FILE: line N: REASON
                  A FILE with no line at all fails too.

  FILE "-" or no FILE reads stdin. An input longer than 256 MiB is rejected
  as too-large.

Exit status:
  0  every input was accepted (--check: every line is OK)
  1  some input was rejected (--check: some line FAILED, open or read
     failures included, or is not a check line)
  2  usage or I/O error (--check: FILE itself could not be read)

Examples:
  bbdigest digest envelope.json
  bbdigest digest --names *.json > digests.txt
  bbdigest digest --check digests.txt
  bbdigest digest --lines < envelopes.jsonl > digests.txt
`

const demoHelp = `Usage:
  bbdigest demo [--duration D]

demo canonicalizes and digests a built-in set of sample envelopes and tool
calls under the strict profile, checks the digests that
draft-morrison-binding-moment-envelope-04 §6.4 publishes, then measures
throughput over the set.

Options:
  --duration D  how long to measure throughput (default 1s; 0 skips it)

Exit status:
  0  every digest matches
  1  a sample was rejected or a digest differs from the draft's
  2  usage error
`

const cpuHelp = `Usage:
  bbdigest cpu [--json]

cpu prints the CPU features found, the SHA-256 path chosen for single
messages and for batches, and the kernels canon chose (classify, utf8,
minify, rank). BBDIGEST_SHA256=generic|shani|avx2|avx512|arm64 forces a
SHA-256 path.

Options:
  --json  print one JSON object with stable field names

Exit status:
  0  always, unless
  2  usage error
`

const versionHelp = `Usage:
  bbdigest version
  bbdigest --version
  bbdigest -v

version prints "bbdigest " and the version on one line.
`

const helpHelp = `Usage:
  bbdigest help [COMMAND]

help prints the overview of bbdigest, or the help of COMMAND: canon,
digest, demo, cpu, envelope, resolution, version or help.
`

// commandHelp returns the help text of the command called name, as
// "bbdigest help NAME" and "bbdigest NAME --help" print it; name is also
// the name of a command's flag set ("envelope validate").
func commandHelp(name string) (string, bool) {
	switch name {
	case "canon":
		return fill(canonHelp, fill(linesOption, "canonical form")), true
	case "digest":
		return fill(digestHelp, fill(linesOption, "digest")), true
	case "demo":
		return demoHelp, true
	case "cpu":
		return cpuHelp, true
	case "version":
		return versionHelp, true
	case "help":
		return helpHelp, true
	case "envelope", "envelope validate", "envelope digest", "envelope render", "envelope emit":
		return envelopeUsage, true
	case "resolution", "resolution verify":
		return resolutionUsage, true
	}
	return "", false
}

// fill replaces the one "%s" of a help text with s.
func fill(text, s string) string { return strings.Replace(text, "%s", s, 1) }
