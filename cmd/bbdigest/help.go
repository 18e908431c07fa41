package main

// The help texts: "bbdigest help" is the overview, and documents what all
// commands share (the diagnostic format, the rejection classes, the exit
// codes); each command has its own, printed by "bbdigest help COMMAND" and
// "bbdigest COMMAND --help".

import (
	"fmt"
	"io"
	"strings"
)

// help prints the overview, or with one argument that command's help.
func (c *cli) help(args []string) int {
	fs := c.flagSet("help")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	if len(operands) == 0 {
		io.WriteString(c.stdout, usage)
		return exitOK
	}
	text, ok := commandHelp(operands[0])
	if !ok || strings.Contains(operands[0], " ") {
		c.errorf("help: unknown command %s", quote(operands[0]))
		c.hintf("run 'bbdigest help' for usage")
		return exitUsage
	}
	io.WriteString(c.stdout, text)
	return exitOK
}

// The parts of the overview, "bbdigest help", that are not made from the
// command table (overview puts them together); the man page has them too.
const (
	overviewIntro = `bbdigest canonicalizes JSON with RFC 8785 (JCS) and prints the SHA-256
digest of the canonical bytes as sha256:<64 lowercase hex>.
`

	overviewNotes = `  Run 'bbdigest help COMMAND' or 'bbdigest COMMAND --help' for a command's
  options. FILE "-" or no FILE reads stdin. Flags go before or after file
  names, as with GNU tools (bbdigest digest a.json --names); after "--"
  every argument is a file name. One-letter flags group (-cw is -c -w).
  An input longer than 256 MiB is rejected as too-large before it is read
  in full.
`

	overviewDiagnostics = `  Every line on stderr starts "bbdigest: error: ", "bbdigest: hint: " or
  "bbdigest: warning: ", but for this overview (printed there when no
  command is given), the "bbdigest: summary: " line and the --progress
  output of archive, and the "bbdigest: decision: " line of gate. A
  warning counts failures already reported one by one, as the WARNING
  lines of sha256sum --check do (digest --check).
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
`

	overviewExit = `  0    every input was accepted
  1    some input was rejected
  2    usage or I/O error
  3    the ledger could not be read or written (envelope emit, resolution
       verify, gate, ledger init), or archive join's shards do not cover
       the input
  130  stopped by Ctrl-C (archive rehash|verify --out): the output is
       ready for --resume
  Each command's help has its own table (bbdigest help COMMAND).
`

	overviewExamples = `  bbdigest digest envelope.json
  bbdigest canon --profile rfc8785 < doc.json > doc.jcs
  bbdigest digest --names *.json > digests.txt
  bbdigest digest --check digests.txt
  bbdigest digest --lines < envelopes.jsonl > digests.txt
  bbdigest demo --duration 3s
`
)

// overview returns the overview, usage: the intro, the usage lines and
// the list of the commands of the table, then what all commands share.
func overview() string {
	var b strings.Builder
	b.WriteString(overviewIntro + "\nUsage:\n")
	for _, line := range synopsisLines() {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("\nCommands:\n")
	for _, cmd := range commands {
		fmt.Fprintf(&b, "  %-11s %s\n", cmd.name, wrap(cmd.summary, 14, 76))
	}
	b.WriteString("\n" + overviewNotes +
		"\nDiagnostics:\n" + overviewDiagnostics +
		"\nExit status:\n" + overviewExit +
		"\nExamples:\n" + overviewExamples)
	return b.String()
}

// synopsisLines returns the usage lines of the overview, one or more per
// command: "bbdigest NAME SYNOPSIS", NAME padded to line up the short
// ones.
func synopsisLines() []string {
	var lines []string
	for _, cmd := range commands {
		if cmd.synopsis == nil {
			lines = append(lines, "bbdigest "+cmd.name)
		}
		for _, s := range cmd.synopsis {
			lines = append(lines, fmt.Sprintf("bbdigest %-6s %s", cmd.name, s))
		}
	}
	return lines
}

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
  bbdigest digest [--profile NAME] -c|--check [--quiet|--status|-w|--warn]
                  [--strict] [--ignore-missing] [FILE|-]...

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
%s  -c, --check     check the digests listed in each FILE ("-" or no FILE:
                  stdin), as sha256sum -c does. A line of FILE is one of
                    sha256:<64 lowercase hex>  NAME   as --names writes it
                    <64 hex>  NAME                    as sha256sum writes it
                    <64 hex> *NAME                    sha256sum --binary
                    SHA256 (NAME) = <64 hex>          sha256sum --tag
                  (hex in either case where sha256sum writes it), starting
                  with a backslash when NAME is escaped (as above; sha256sum
                  escapes \\, \n and \r the same way); a "\r" ending a
                  line is dropped, and as sha256sum does digest skips
                  empty lines and lines starting with "#" (comments). It
                  digests each NAME under --profile and answers each
                  line with one of
                    NAME: OK
                    NAME: FAILED                the digest differs
                    NAME: FAILED open or read   NAME could not be read
                    NAME: FAILED rejected       NAME failed the canon gate
                  (NAME escaped as above). The digest compared is always
                  that of the canonical form (JCS), for sha256sum's lines
                  too: a file that is not canonical JSON fails though its
                  sha256sum matches (a hint says so, once, when such a
                  line FAILED); 'bbdigest canon FILE | sha256sum' gives
                  the digest its line must hold. The cause of the last two
                  answers is reported on stderr, and so is each line that
                  is not a check line:
                    bbdigest: error: FILE: line N: REASON
                  (a digest of other than 64 hex digits, or of another
                  algorithm, is named as such: only SHA-256 is supported).
                  Then, for each FILE, the counts, in sha256sum's words:
                    bbdigest: warning: N lines are improperly formatted
                    bbdigest: warning: N listed files could not be read
                    bbdigest: warning: N listed files were rejected by the
                      canon gate
                    bbdigest: warning: N computed checksums did NOT match
                  ("1 line is", "1 listed file was", ... for one), or
                    bbdigest: error: FILE: no properly formatted checksum
                      lines found
                  when FILE holds no check line at all (an empty FILE
                  included): that fails the check
  --quiet         with --check: do not print the OK answers
  --status        with --check: print no answer, no warning and no line
                  error; the exit status tells. As with sha256sum, why a
                  listed file could not be read (or was rejected) and a
                  FILE with no check line are still reported on stderr
  -w, --warn      with --check: report each improperly formatted line (the
                  default here); of --warn, --quiet and --status the last
                  given wins
  --strict        with --check: fail on an improperly formatted line. This
                  is bbdigest's default, unlike sha256sum's, because a
                  mangled line can hide a file that should have been
                  checked; --strict is accepted, and --strict=false refused
  --ignore-missing
                  with --check: neither fail nor report a listed file that
                  does not exist; a FILE of which no file was verified OK
                  then fails, with
                    bbdigest: error: FILE: no file was verified

  FILE "-" or no FILE reads stdin. An input longer than 256 MiB is rejected
  as too-large; a --check FILE longer than 256 MiB is not read past the
  bound (exit 2). Flags may also follow FILE.

  Where --check differs from sha256sum --check: an improperly formatted
  line fails (sha256sum: only with --strict) and is always reported with
  its number (sha256sum: only with --warn); the lines sha256sum reads but
  does not write (blanks before the digest, a tab after it, the one-space
  lines of BSD sha256 -r) are improperly formatted here; a FILE that
  cannot be read exits 2, not 1; a listed file can also be rejected by
  the canon gate (FAILED rejected, counted in its own warning); a line
  naming "-" in a list read from stdin is FAILED open or read, not
  improperly formatted; stdin is "-" in messages, not "standard input";
  answers escape every name that needs it (see above), not only those
  with "\n" or "\r"; and messages are bbdigest's one-line diagnostics
  (quoted as 'bbdigest help' says).

Exit status:
  0  every input was accepted (--check: every line of every FILE is OK,
     or with --ignore-missing names a missing file, and some line is OK)
  1  some input was rejected (--check: some line FAILED, open or read
     failures included, or is not a check line; or a FILE has no check
     line, or with --ignore-missing none OK)
  2  usage or I/O error (--check: a FILE itself could not be read)

Examples:
  bbdigest digest envelope.json
  bbdigest digest --names *.json > digests.txt
  bbdigest digest -c digests.txt
  bbdigest digest -c --quiet --ignore-missing digests.txt
  sha256sum *.json | bbdigest digest -c   (OK for canonical files only)
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

// helpHelp is the help of help; the %s is a paragraph that lists the
// commands of the table (init fills it).
const helpHelp = `Usage:
  bbdigest help [COMMAND]

%s
`

const archiveHelp = `Usage:
  bbdigest archive rehash [FLAGS] [FILE...|-]
  bbdigest archive verify [FLAGS] [FILE...|-]
  bbdigest archive gen --records N [--kind KIND] [--seed S] [--wrong N]
                       [--canonical]
  bbdigest archive join SUMMARY...

archive answers every line of JSON Lines archives (audit logs of
envelopes, resolutions, tool calls and receipts) with one JSON line on
stdout, in input order, on every core. Lines end at "\n"; a "\r" before
it is JSON whitespace; a final line without "\n" counts; an empty line is
answered too. Line N of the output answers line N of the input.

Commands:
  rehash  digest each line: the SHA-256 of its canonical form,
            {"line":N,"digest":"sha256:<64 hex>"}
          or, when the line is rejected,
            {"line":N,"error":{"class":"CLASS","offset":N,"pointer":"P",
             "message":"…"}}
          with the class of 'bbdigest help' (Diagnostics), the byte
          offset in the line and P the JSON pointer of the offending
          value in it ("" for the whole line, and for a line longer
          than --max-record), as digest --lines gives them
  verify  check each line, a record
            {"digest":"sha256:<64 lowercase hex>","doc":<any JSON>}
          (members in either order): whether digest is the digest of the
          canonical form of doc,
            {"line":N,"ok":true,"digest":"sha256:…"}
            {"line":N,"ok":false,"digest":"sha256:…","claimed":"sha256:…"}
            {"line":N,"ok":false,"error":{"class":"CLASS","offset":N,
             "pointer":"P","message":"…"}}
          The last is a record that could not be checked: doc fails the
          profile (canon's class, offset in the line, P "/doc" and the
          pointer in doc), or the record is not such an object, class
          "wrapper", P "" (the record, which is read without decoding
          it; the offset says where the reading stopped): not an object,
          a member other than "digest" and "doc" or one of them twice or
          missing, a member name written with escapes, or a digest that
          is not a plain string "sha256:" and 64 lowercase hex digits
  gen     write a generated archive of N lines to stdout, the same for
          the same flags: records an agent host logs, with varied text
          (accents, other scripts, emoji, escapes), each on one line,
          canonical, compact with members shuffled (some with \u
          escapes), or with spaces, one third each; every record passes
          the strict profile. --kind:
            envelopes  binding-moment envelopes (§6.4 shape), 1-2 KB
                       (the default)
            mixed      envelopes, tool results carrying one, tool calls
                       (OpenAI tool_calls, Anthropic tool_use, MCP
                       tools/call), resolutions, receipts
            claims     verify's records of mixed documents, each with the
                       digest of its canonical form, computed by gen
                       itself with crypto/sha256; --wrong N makes N of
                       them, spread evenly, claim a wrong digest
          --seed S (default 1) chooses the archive; --canonical writes
          every record (claims: every doc) canonical
  join    read the --summary files of the shards of one run and check
          that they cover its input exactly once, in order, all
          complete: same command, --profile and --max-record; each
          shard's range starting where the one before ends, and the
          SHA-256 of the bytes before it (start_sha256) that of the
          bytes the one before read to its end (end_sha256), so the
          shards read the same input; counts that add up (records =
          lines = accepted + rejected = ok + failed, the classes adding
          up to rejected or failed, nothing negative). A SUMMARY must be
          exactly as --summary writes it (no member missing, unknown,
          repeated or spelled otherwise). Print the combined summary on
          stdout (as --json writes it, end_sha256 the SHA-256 of the
          whole input, with "shards":N, and "outputs", each shard's
          index, bytes and SHA-256, in place of "output"), or each
          problem on stderr. A SUMMARY longer than 64 KiB is not one:
          it is not read past that bound

  With several FILEs, every line also has "file":"NAME" first, and line
  numbers count from 1 in each. NAME, messages and every other string
  are escaped as in 'bbdigest help' (Diagnostics), and a byte that is not
  UTF-8 is written U+FFFD, so every line is valid JSON.

Options:
` + profileOption + `  --workers N     goroutines that canonicalize and hash, 1 to 1024
                  (default: one per core); the output does not depend on it
  --json          write the summary as one JSON object
  --max-record N  reject lines longer than N bytes as too-large (default,
                  and at most: the profile's 256 MiB bound)
  --out FILE      write the result lines to FILE instead of stdout
  --resume        with --out: continue FILE, the output of a run of the
                  same command and inputs that was stopped or killed
                  part-way. --out FILE writes beside FILE a sidecar,
                  FILE.resume, at most every 10 ms when the run waits for
                  input and every second otherwise, after FILE is flushed
                  and fsynced (and kept when the run completes): the
                  command, --profile, --max-record, --shard, the inputs,
                  and a checkpoint: the result lines answered, the
                  SHA-256 of the input bytes they answer (decompressed,
                  from the start of the stream), FILE's length then and
                  the SHA-256 of those bytes. --resume refuses FILE (exit
                  2, FILE and FILE.resume left as they are) unless
                  FILE.resume is there (or FILE is missing or empty: the
                  run starts), a regular file of at most 64 MiB, names
                  the same command, flags and inputs,
                  FILE is at least the length recorded and its bytes up
                  to there hash to the SHA-256 recorded, the input bytes
                  skipped hash to the SHA-256 recorded, and each line of
                  FILE up to there is, byte for byte, the result line this
                  run writes for the input line it skips: no kept line is
                  trusted, their answers are computed again (on every
                  core), so a resume costs the CPU of a run over the part
                  it skips, without writing it, and the error names the
                  first line that differs. The sidecar is not
                  authenticated: rewriting FILE and FILE.resume can make
                  --resume refuse or compute more, not keep a line this
                  run would not write; it does not vouch for the inputs
                  (an input changed since, with its sidecar rewritten, is
                  answered as it is now) nor for FILE after the run. It
                  then cuts FILE at the length recorded (result lines past
                  it are computed again), counts the outcomes of the lines
                  kept in the summary, and goes on: the finished FILE is
                  the same, byte for byte, as the output of a run never
                  stopped. --resume of a completed FILE writes nothing and
                  prints the same summary.
                  Ctrl-C (SIGINT) stops a run with --out in order: it
                  stops reading (a read that waits for input first
                  returns), flushes and fsyncs FILE, writes FILE.resume,
                  prints the summary ("incomplete") and a hint with the
                  command line that continues it, and exits 130; a
                  second Ctrl-C kills it at once, and --resume goes on
                  from the last FILE.resume written
  --shard I/N     answer only the I-th (from 0) of N byte ranges of FILE
                  (one FILE, not stdin): the lines that start in
                  [S*I/N, S*(I+1)/N), S the size of the JSON Lines (for a
                  compressed FILE, the size it decompresses to, found by
                  decompressing it once first). Line numbers are those of
                  the whole FILE (the shard reads the bytes before its
                  range to count them), so the outputs of shards 0..N-1,
                  concatenated in that order, are the unsharded output,
                  byte for byte
  --shards N      --shard I/N with I from $JOB_COMPLETION_INDEX, which a
                  Kubernetes Indexed Job sets in each pod
  --summary FILE  also write the --json summary to FILE (replaced whole
                  once written), for archive join; with --shard it has
                  "shard":{"index":I,"count":N}
  --progress MODE
                  progress on stderr: auto (the default) is a live bar on
                  a terminal (bytes done, records/s, MB/s of JSON Lines,
                  time left) and nothing elsewhere; bar draws it anyway
                  (off a terminal, a line per refresh; on a terminal that
                  reports 0 columns or no size, 80 columns wide); json
                  writes one line a second,
                    {"progress":{"input":"…","elapsed_s":3.0,
                     "records":N,"bytes":N,"records_per_s":N,
                     "bytes_per_s":N,"fraction":0.42,"eta_s":4.1}}
                  (fraction and eta_s when known: not on stdin); off

  FILE "-" or no FILE reads stdin.

Compressed input:
  A FILE or stdin that starts with the magic number of gzip (1f 8b 08) or
  zstd (28 b5 2f fd) is decompressed as it is read, with no temporary
  file; gzip members and zstd frames may follow one another. Memory stays
  bounded whatever the input expands to: --max-record bounds each line,
  and a zstd frame that needs a window over 32 MiB (zstd --ultra -20 and
  up, --long=26 and up) is refused. A stream cut short or failing its
  checksum is an I/O error (exit 2); the lines answered before a checksum
  failure were read from the damaged data.

Summary:
  At the end, one line on stderr:
    bbdigest: summary: 12 records, 9 accepted, 3 rejected (duplicate-name 1, syntax 2)
  (verify: "ok" and "failed"; the classes add "wrapper" and "mismatch"),
  or with --json one object:
    {"command":"rehash","profile":"strict","max_record":268435456,
     "inputs":[{"name":"a.jsonl","compression":"none","size":4000,
     "range":{"start":0,"end":4000,"start_sha256":"sha256:…",
     "end_sha256":"sha256:…"},"first_line":1,"lines":12}],"records":12,
     "accepted":9,"rejected":3,"classes":{"duplicate-name":1,"syntax":2},
     "output":{"bytes":900,"sha256":"sha256:…"},"complete":true}
  where size and range count the bytes of JSON Lines read (decompressed),
  start_sha256 and end_sha256 are the SHA-256 of those bytes before
  start and before end (for a whole input, end_sha256 is that of all of
  it), and output the bytes written and their SHA-256.

Exit status:
  0  every line was accepted (verify: every record verified); gen: done;
     join: the shards cover the input and every line was accepted
  1  some line was rejected (verify: some record did not verify); join:
     the same, in some shard
  2  usage or I/O error; the output then holds the answers to the lines
     before the failure (join: a SUMMARY cannot be read, or is not one)
  3  join: the shards do not cover the input exactly once, in order, or
     one is incomplete (its run stopped on an error)
  130  rehash, verify with --out: stopped by Ctrl-C (SIGINT), FILE and
       FILE.resume in order for --resume (the hint says how)

Examples:
  bbdigest archive rehash audit-2026.jsonl > digests.jsonl
  bbdigest archive verify --json claims.jsonl > report.jsonl
  bbdigest archive rehash audit-2025.jsonl.zst audit-2026.jsonl.gz
  bbdigest archive rehash --out digests.jsonl --resume audit.jsonl.zst
  bbdigest archive gen --records 1000000 --kind mixed | zstd > a.jsonl.zst
  bbdigest archive rehash --shard 3/8 --out part-3.jsonl \
      --summary part-3.json a.jsonl.zst
  bbdigest archive join part-*.json
`

// commandHelp returns the help text of the command called name, as
// "bbdigest help NAME" and "bbdigest NAME --help" print it; name is also
// the name of a command's flag set ("envelope validate"), whose help is
// its command's.
func commandHelp(name string) (string, bool) {
	cmd, top := findPath(name)
	if cmd == nil {
		return "", false
	}
	return top.help, true
}

// fill replaces the one "%s" of a help text with s.
func fill(text, s string) string { return strings.Replace(text, "%s", s, 1) }
