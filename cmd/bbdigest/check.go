package main

// digest --check: the flags, the reading of check lists in bbdigest's and
// sha256sum's forms, and the answers, warnings and exit code, after GNU
// sha256sum --check. Where bbdigest differs from it (an improperly
// formatted line fails; a list that cannot be read exits 2; a listed file
// can also be rejected by the canon gate), digestHelp says so.

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// checkLevel is what digest --check prints besides the causes of read
// failures and rejections: every answer and warning (--warn, the
// default), all but the OK answers (--quiet), or nothing (--status). The
// last of the three given wins, as with sha256sum.
type checkLevel uint8

const (
	checkWarn checkLevel = iota
	checkQuiet
	checkStatus
)

// checkOptions are the options of digest --check besides --profile.
type checkOptions struct {
	level         checkLevel
	ignoreMissing bool // skip a listed file that does not exist
}

// checkOnly are the flags that go with --check only, as checkFlags
// defines them.
var checkOnly = []string{"quiet", "status", "warn", "w", "strict", "ignore-missing"}

// checkFlags defines on set the flags of digest --check, with sha256sum's
// names: --check (-c), --quiet, --status, --warn (-w), --strict and
// --ignore-missing.
func checkFlags(set *flag.FlagSet) (check *bool, opt *checkOptions) {
	check, opt = new(bool), new(checkOptions)
	set.Var(checkSwitch{check}, "check", "")
	set.Var(checkSwitch{check}, "c", "")
	set.Var(levelFlag{&opt.level, checkQuiet}, "quiet", "")
	set.Var(levelFlag{&opt.level, checkStatus}, "status", "")
	set.Var(levelFlag{&opt.level, checkWarn}, "warn", "")
	set.Var(levelFlag{&opt.level, checkWarn}, "w", "")
	set.Var(strictFlag{}, "strict", "")
	set.BoolVar(&opt.ignoreMissing, "ignore-missing", false, "")
	return check, opt
}

// checkFlagsWithoutCheck reports a flag of checkOnly given without --check
// (the first by name), and whether there was one.
func (c *cli) checkFlagsWithoutCheck(set *flag.FlagSet) bool {
	var given string
	set.Visit(func(f *flag.Flag) {
		for _, name := range checkOnly {
			if f.Name == name && given == "" {
				given = "--" + name
				if len(name) == 1 {
					given = "-" + name
				}
			}
		}
	})
	if given != "" {
		c.usageError(set.Name(), given+" goes with --check")
	}
	return given != ""
}

// checkSwitch is the value of --check and -c: a switch, whose lists are
// operands, not its value.
type checkSwitch struct{ on *bool }

func (f checkSwitch) IsBoolFlag() bool { return true }

func (f checkSwitch) String() string {
	if f.on == nil {
		return "false"
	}
	return strconv.FormatBool(*f.on)
}

func (f checkSwitch) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("a switch takes no value: the lists of digests are FILE arguments, as in 'bbdigest digest --check digests.txt'")
	}
	*f.on = v
	return nil
}

// levelFlag is the value of --warn (-w), --quiet or --status: each sets
// the level to its own, and =false undoes that.
type levelFlag struct {
	level *checkLevel
	set   checkLevel
}

func (f levelFlag) IsBoolFlag() bool { return true }

func (f levelFlag) String() string {
	return strconv.FormatBool(f.level != nil && *f.level == f.set)
}

func (f levelFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	switch {
	case v:
		*f.level = f.set
	case *f.level == f.set:
		*f.level = checkWarn
	}
	return nil
}

// strictFlag is the value of --strict: what bbdigest does anyway, an
// improperly formatted line failing the check, which it does not let
// --strict=false relax.
type strictFlag struct{}

func (strictFlag) IsBoolFlag() bool { return true }
func (strictFlag) String() string   { return "true" }

func (strictFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	switch {
	case err != nil:
		return errors.New("want true or false")
	case !v:
		return errors.New("it is always on: an improperly formatted line could hide a file that should have been checked")
	}
	return nil
}

// check is "bbdigest digest --check [LIST...]": for each line of each LIST
// ("-" or none: stdin), a digest and a NAME in one of the forms
// parseCheckLine reads, it digests NAME and answers "NAME: OK",
// "NAME: FAILED", "NAME: FAILED open or read" or "NAME: FAILED rejected",
// then sums up each LIST in warnings, as sha256sum -c does.
func (c *cli) check(cz *canon.Canonicalizer, lists []string, opt checkOptions) int {
	if len(lists) == 0 {
		lists = []string{"-"}
	}
	k := checker{cli: c, cz: cz, opt: opt}
	status := exitOK
	for _, list := range lists {
		code, ok := k.list(list)
		if !ok {
			return code // stdout is gone: no point going on
		}
		status = max(status, code)
	}
	return status
}

// checker checks the lists of one digest --check.
type checker struct {
	*cli
	cz  *canon.Canonicalizer
	opt checkOptions

	hinted         bool   // the hint on plain lines was given
	answer, digest []byte // reused
}

// checkCounts are the outcomes of the lines of one list.
type checkCounts struct {
	formatted    int // check lines, whatever their outcome
	misformatted int // lines that are not
	unreadable   int // FAILED open or read
	rejected     int // FAILED rejected
	mismatched   int // FAILED
	matched      int // OK
}

// list checks the list called name and returns the exit code, and false
// when stdout cannot be written.
func (k *checker) list(name string) (int, bool) {
	src, _, err := k.readBoundedArg(name, checkListKind(k.limit()))
	if err != nil {
		k.ioFailure(name, err)
		return exitUsage, true
	}
	var n checkCounts
	for num := 1; len(src) > 0; num++ {
		var line []byte
		line, src, _ = bytes.Cut(src, []byte{'\n'})
		if len(bytes.TrimSuffix(line, []byte{'\r'})) == 0 || line[0] == '#' {
			continue // an empty line or a comment, which sha256sum skips too
		}
		cl, reason := parseCheckLine(line)
		if reason != "" {
			n.misformatted++
			if k.opt.level != checkStatus {
				k.errorf("%s: line %d: %s", fileField(name), num, reason)
			}
			continue
		}
		n.formatted++
		verdict := k.verify(name, cl, &n)
		if verdict == "" || k.opt.level == checkStatus || verdict == "OK" && k.opt.level == checkQuiet {
			continue
		}
		k.answer = append(appendName(k.answer[:0], cl.name), ": "...)
		k.answer = append(append(k.answer, verdict...), '\n')
		if code := k.write(k.answer); code != exitOK {
			return code, false
		}
		if verdict == "FAILED" && cl.plain && !k.hinted {
			k.hinted = true
			k.hintf("plain sha256sum lines are compared with the SHA-256 of the canonical form (JCS), not of the bytes: a file that is not canonical JSON fails though its sha256sum matches")
		}
	}
	if n.formatted == 0 {
		k.errorf("%s: no properly formatted checksum lines found", fileField(name))
		return exitRejected, true
	}
	if k.opt.level != checkStatus {
		k.count(n.misformatted, "line is", "lines are", "improperly formatted")
		k.count(n.unreadable, "listed file", "listed files", "could not be read")
		k.count(n.rejected, "listed file was", "listed files were", "rejected by the canon gate")
		k.count(n.mismatched, "computed checksum", "computed checksums", "did NOT match")
		if k.opt.ignoreMissing && n.matched == 0 {
			k.errorf("%s: no file was verified", fileField(name))
		}
	}
	if n.misformatted+n.unreadable+n.rejected+n.mismatched > 0 || k.opt.ignoreMissing && n.matched == 0 {
		return exitRejected, true
	}
	return exitOK, true
}

// count writes the warning "N ONE WHAT" ("N MANY WHAT" for N > 1), in
// sha256sum's words, when n > 0.
func (k *checker) count(n int, one, many, what string) {
	switch {
	case n == 1:
		k.warnf("1 %s %s", one, what)
	case n > 1:
		k.warnf("%d %s %s", n, many, what)
	}
}

// verify digests the file a check line of the list called list names,
// reports why it could not, counts the outcome in n and returns the
// verdict: "OK", "FAILED", "FAILED open or read", "FAILED rejected", or ""
// for a missing file that --ignore-missing skips.
func (k *checker) verify(list string, cl checkLine, n *checkCounts) string {
	if cl.name == "-" && list == "-" {
		k.errorf("-: open: stdin is the list of digests being checked")
		n.unreadable++
		return "FAILED open or read"
	}
	out, err := k.canonical(k.cz, cl.name)
	if err != nil {
		if k.opt.ignoreMissing && errors.Is(err, fs.ErrNotExist) {
			return "" // as sha256sum: neither verified nor failed
		}
		if _, ok := errors.AsType[*canon.Error](err); ok {
			k.reject(cl.name, err)
			n.rejected++
			return "FAILED rejected"
		}
		k.ioFailure(cl.name, err)
		n.unreadable++
		return "FAILED open or read"
	}
	k.digest = appendDigest(k.digest[:0], out)
	if string(k.digest) != cl.want {
		n.mismatched++
		return "FAILED"
	}
	n.matched++
	return "OK"
}

// digestLen is the length of a digest's text form, "sha256:" and 64 hex
// digits.
const digestLen = len("sha256:") + 64

// checkLine is one line of a check list: the digest it lists for a file,
// and whether the line is sha256sum's (plain hex, or the BSD tag of
// sha256sum --tag) rather than bbdigest's "sha256:<hex>".
type checkLine struct {
	want  string // "sha256:<64 lowercase hex>"
	name  string
	plain bool
}

// improper is the reason given for a line in none of the forms.
const improper = `improperly formatted checksum line: want "sha256:<64 lowercase hex>  NAME" ('bbdigest digest --names'), "<64 hex>  NAME" (sha256sum) or "SHA256 (NAME) = <64 hex>" (sha256sum --tag)`

// parseCheckLine reads a line of a check list in one of the forms
//
//	sha256:<64 lowercase hex>  NAME    bbdigest digest --names
//	<64 hex>  NAME, <64 hex> *NAME     sha256sum (text, binary)
//	SHA256 (NAME) = <64 hex>           sha256sum --tag
//
// (hex in either case where sha256sum writes it), NAME unescaped (see
// readName) when the line starts with a backslash, as both tools write a
// name that needs escaping. For a line that is none of them it returns why.
// A "\r" at the end of the line is dropped (a list that went through CRLF
// conversion): both tools write a "\r" in a name as "\r".
func parseCheckLine(line []byte) (checkLine, string) {
	s := strings.TrimSuffix(string(line), "\r")
	escaped := strings.HasPrefix(s, `\`)
	if escaped {
		s = s[1:]
	}
	var cl checkLine
	if strings.HasPrefix(s, "sha256:") {
		if len(s) < digestLen+3 || s[digestLen:digestLen+2] != "  " {
			return cl, improper
		}
		if _, err := hashing.ParseDigest(s[:digestLen]); err != nil {
			return cl, improper
		}
		cl.want, cl.name = s[:digestLen], s[digestLen+2:]
	} else {
		var hex, reason string
		if hex, cl.name, reason = plainLine(s); reason != "" {
			return cl, reason
		}
		cl.want, cl.plain = "sha256:"+strings.ToLower(hex), true
	}
	if escaped {
		var ok bool
		if cl.name, ok = readName(cl.name); !ok {
			return cl, "bad escape in the name"
		}
	}
	return cl, ""
}

// plainLine reads a line of sha256sum's, "<64 hex>  NAME", "<64 hex>
// *NAME" or "SHA256 (NAME) = <64 hex>", its leading backslash removed, and
// returns the hex digits and NAME (still escaped), or why it is not such a
// line: a digest of another length, or of another algorithm, is named as
// such.
func plainLine(s string) (hex, name, reason string) {
	if h := hexRun(s); h > 0 && h < len(s) && (s[h] == ' ' || s[h] == '\t') {
		switch {
		case h != 64 && h >= 32: // shorter is more likely a word than a digest
			return "", "", otherLength(h)
		case h != 64 || len(s) < h+3 || s[h] != ' ' || (s[h+1] != ' ' && s[h+1] != '*'):
			return "", "", improper
		}
		return s[:h], s[h+2:], ""
	}
	// "ALGO (NAME) = HEX", as sha256sum --tag writes it; sha256sum also
	// reads "ALGO(NAME)= HEX" and other spacing around the "=".
	a := strings.IndexFunc(s, func(r rune) bool {
		return !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-')
	})
	if a <= 0 {
		return "", "", improper
	}
	algo, rest := s[:a], strings.TrimPrefix(s[a:], " ")
	end := strings.LastIndexByte(rest, ')')
	if !strings.HasPrefix(rest, "(") || end < 0 {
		return "", "", improper
	}
	name, rest = rest[1:end], strings.TrimLeft(rest[end+1:], " \t")
	rest, isTag := strings.CutPrefix(rest, "=")
	hex = strings.TrimLeft(rest, " \t")
	h := hexRun(hex)
	switch {
	case !isTag || h == 0 || h != len(hex) || name == "":
		return "", "", improper
	case algo != "SHA256":
		return "", "", "a " + algo + " digest: only SHA-256 is supported, \"SHA256 (NAME) = <64 hex>\""
	case h != 64:
		return "", "", otherLength(h)
	}
	return hex, name, ""
}

// hexRun returns the number of hex digits, in either case, that s
// starts with.
func hexRun(s string) int {
	for i := 0; i < len(s); i++ {
		if _, ok := hexValue(s, i, 1); !ok {
			return i
		}
	}
	return len(s)
}

// otherLength is the reason given for a digest of n hex digits, n not 64,
// naming the tool that writes such digests.
func otherLength(n int) string {
	r := "a digest of " + strconv.Itoa(n) + " hex digits"
	switch n {
	case 32:
		r += " (md5sum writes those)"
	case 40:
		r += " (sha1sum writes those)"
	case 56:
		r += " (sha224sum writes those)"
	case 96:
		r += " (sha384sum writes those)"
	case 128:
		r += " (sha512sum and b2sum write those)"
	}
	return r + ": only SHA-256 is supported, 64 hex digits"
}

// readName reverses the escaping of appendName (escName mode of
// appendEscaped) and of the inside of appendQuoted: \\, \", \n, \r, \t, \b,
// \f, \xHH for a byte and \uXXXX for a code point, a UTF-16 surrogate pair
// for one above U+FFFF. It reports false for any other backslash sequence.
func readName(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b []byte
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b = append(b, s[i])
			i++
			continue
		}
		if i+1 == len(s) {
			return "", false
		}
		switch e := s[i+1]; e {
		case '\\':
			b = append(b, '\\')
		case '"': // written in quoted fields only, read for diagnostics
			b = append(b, '"')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'x':
			v, ok := hexValue(s, i+2, 2)
			if !ok {
				return "", false
			}
			b = append(b, byte(v))
			i += 4
			continue
		case 'u':
			r, ok := hexValue(s, i+2, 4)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(rune(r)) {
				lo, ok := hexValue(s, i+2, 4)
				if !ok || !strings.HasPrefix(s[i:], `\u`) {
					return "", false
				}
				r = int(utf16.DecodeRune(rune(r), rune(lo)))
				if r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			b = utf8.AppendRune(b, rune(r))
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(b), true
}

// hexValue reads n lowercase or uppercase hex digits at s[i:].
func hexValue(s string, i, n int) (int, bool) {
	if i+n > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[i : i+n]) {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
