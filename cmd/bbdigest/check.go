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

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/sumline"
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
// sumline.Parse reads, it digests NAME and answers "NAME: OK",
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
		cl, reason := sumline.Parse(line)
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
		k.answer = append(sumline.AppendName(k.answer[:0], cl.Name), ": "...)
		k.answer = append(append(k.answer, verdict...), '\n')
		if code := k.write(k.answer); code != exitOK {
			return code, false
		}
		if verdict == "FAILED" && cl.Plain && !k.hinted {
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
func (k *checker) verify(list string, cl sumline.Line, n *checkCounts) string {
	if cl.Name == "-" && list == "-" {
		k.errorf("-: open: stdin is the list of digests being checked")
		n.unreadable++
		return "FAILED open or read"
	}
	out, err := k.canonical(k.cz, cl.Name)
	if err != nil {
		if k.opt.ignoreMissing && errors.Is(err, fs.ErrNotExist) {
			return "" // as sha256sum: neither verified nor failed
		}
		if _, ok := errors.AsType[*canon.Error](err); ok {
			k.reject(cl.Name, err)
			n.rejected++
			return "FAILED rejected"
		}
		k.ioFailure(cl.Name, err)
		n.unreadable++
		return "FAILED open or read"
	}
	k.digest = appendDigest(k.digest[:0], out)
	if string(k.digest) != cl.Digest {
		n.mismatched++
		return "FAILED"
	}
	n.matched++
	return "OK"
}
