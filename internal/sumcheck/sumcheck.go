// Package sumcheck checks lists of digests as GNU sha256sum --check does:
// the flags of "bbdigest digest --check", and for each line of a list (in
// one of the forms package sumline reads) the digest of the file it names
// compared with the one listed, answered "NAME: OK", "NAME: FAILED",
// "NAME: FAILED open or read" or "NAME: FAILED rejected", then the list
// summed up in warnings, in sha256sum's words. Where bbdigest differs from
// sha256sum (an improperly formatted line fails; a listed file can also be
// rejected by the canon gate), the command's help says so.
//
// Reading the list, digesting the files and writing the diagnostics are
// the caller's (a Checker's Digest and Report); the package decides what
// is answered, warned and counted, and whether the list passes.
package sumcheck

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"io/fs"
	"strconv"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/diag"
	"github.com/bbdigest/bbdigest/internal/sumline"
)

// Level is what a check prints besides the causes of read failures and
// rejections: every answer and warning (--warn, the default), all but the
// OK answers (--quiet), or nothing (--status). The last of the three given
// wins, as with sha256sum.
type Level uint8

// The levels.
const (
	Warn   Level = iota // every answer and warning (--warn, -w)
	Quiet               // all but the OK answers (--quiet)
	Status              // nothing: the exit code says it (--status)
)

// Options are the options of a check besides the profile.
type Options struct {
	Level         Level
	IgnoreMissing bool // skip a listed file that does not exist
}

// Only are the names of the flags that go with --check only, as Flags
// defines them.
var Only = []string{"quiet", "status", "warn", "w", "strict", "ignore-missing"}

// Flags defines on set the flags of a check, with sha256sum's names:
// --check (-c), --quiet, --status, --warn (-w), --strict and
// --ignore-missing, and returns where they are stored.
func Flags(set *flag.FlagSet) (check *bool, opt *Options) {
	check, opt = new(bool), new(Options)
	set.Var(checkSwitch{check}, "check", "")
	set.Var(checkSwitch{check}, "c", "")
	set.Var(levelFlag{&opt.Level, Quiet}, "quiet", "")
	set.Var(levelFlag{&opt.Level, Status}, "status", "")
	set.Var(levelFlag{&opt.Level, Warn}, "warn", "")
	set.Var(levelFlag{&opt.Level, Warn}, "w", "")
	set.Var(strictFlag{}, "strict", "")
	set.BoolVar(&opt.IgnoreMissing, "ignore-missing", false, "")
	return check, opt
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
	level *Level
	set   Level
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
		*f.level = Warn
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

// Reporter writes a check's diagnostics, each one line on stderr, as the
// command writes all of its own: an error, a hint, a warning (a count
// that sums up failures already reported one by one), the rejection of a
// listed file by the canon gate, and a listed file that could not be
// opened or read. The messages of Errorf, Hintf and Warnf are not yet
// escaped.
type Reporter interface {
	Errorf(format string, args ...any)
	Hintf(format string, args ...any)
	Warnf(format string, args ...any)
	Reject(name string, err error)
	IOFailure(name string, err error)
}

// Checker checks lists of digests. Set Options, Digest, Out and Report
// before the first Check; a Checker checks one list at a time.
type Checker struct {
	Options

	// Digest appends to dst the digest string ("sha256:" and 64 lowercase
	// hexadecimal characters) of the canonical form of the file called
	// name ("-": stdin), or returns why it cannot: a *canon.Error when the
	// canon gate rejects the file, an error that is fs.ErrNotExist when it
	// does not exist, else the failure to open or read it.
	Digest func(dst []byte, name string) ([]byte, error)

	// Out receives the answers, one line each.
	Out io.Writer

	// Report writes the diagnostics.
	Report Reporter

	hinted         bool   // the hint on plain lines was given
	answer, digest []byte // reused
}

// counts are the outcomes of the lines of one list.
type counts struct {
	formatted    int // check lines, whatever their outcome
	misformatted int // lines that are not
	unreadable   int // FAILED open or read
	rejected     int // FAILED rejected
	mismatched   int // FAILED
	matched      int // OK
}

// Check checks the list called name ("-": stdin), whose contents are src,
// and reports whether it passes: every line a check line whose file
// matches (empty lines and # comments are skipped, as sha256sum skips
// them), and with IgnoreMissing at least one file verified. The error is
// a failure to write Out, at which Check stops.
func (k *Checker) Check(name string, src []byte) (ok bool, err error) {
	var n counts
	for num := 1; len(src) > 0; num++ {
		var line []byte
		line, src, _ = bytes.Cut(src, []byte{'\n'})
		if len(bytes.TrimSuffix(line, []byte{'\r'})) == 0 || line[0] == '#' {
			continue // an empty line or a comment, which sha256sum skips too
		}
		cl, reason := sumline.Parse(line)
		if reason != "" {
			n.misformatted++
			if k.Level != Status {
				k.Report.Errorf("%s: line %d: %s", diag.FileField(name), num, reason)
			}
			continue
		}
		n.formatted++
		verdict := k.verify(name, cl, &n)
		if verdict == "" || k.Level == Status || verdict == "OK" && k.Level == Quiet {
			continue
		}
		k.answer = append(sumline.AppendName(k.answer[:0], cl.Name), ": "...)
		k.answer = append(append(k.answer, verdict...), '\n')
		if _, err := k.Out.Write(k.answer); err != nil {
			return false, err
		}
		if verdict == "FAILED" && cl.Plain && !k.hinted {
			k.hinted = true
			k.Report.Hintf("plain sha256sum lines are compared with the SHA-256 of the canonical form (JCS), not of the bytes: a file that is not canonical JSON fails though its sha256sum matches")
		}
	}
	if n.formatted == 0 {
		k.Report.Errorf("%s: no properly formatted checksum lines found", diag.FileField(name))
		return false, nil
	}
	if k.Level != Status {
		k.count(n.misformatted, "line is", "lines are", "improperly formatted")
		k.count(n.unreadable, "listed file", "listed files", "could not be read")
		k.count(n.rejected, "listed file was", "listed files were", "rejected by the canon gate")
		k.count(n.mismatched, "computed checksum", "computed checksums", "did NOT match")
		if k.IgnoreMissing && n.matched == 0 {
			k.Report.Errorf("%s: no file was verified", diag.FileField(name))
		}
	}
	failed := n.misformatted+n.unreadable+n.rejected+n.mismatched > 0 || k.IgnoreMissing && n.matched == 0
	return !failed, nil
}

// count writes the warning "N ONE WHAT" ("N MANY WHAT" for N > 1), in
// sha256sum's words, when n > 0.
func (k *Checker) count(n int, one, many, what string) {
	switch {
	case n == 1:
		k.Report.Warnf("1 %s %s", one, what)
	case n > 1:
		k.Report.Warnf("%d %s %s", n, many, what)
	}
}

// verify digests the file a check line of the list called list names,
// reports why it could not, counts the outcome in n and returns the
// verdict: "OK", "FAILED", "FAILED open or read", "FAILED rejected", or ""
// for a missing file that IgnoreMissing skips.
func (k *Checker) verify(list string, cl sumline.Line, n *counts) string {
	if cl.Name == "-" && list == "-" {
		k.Report.Errorf("-: open: stdin is the list of digests being checked")
		n.unreadable++
		return "FAILED open or read"
	}
	var err error
	k.digest, err = k.Digest(k.digest[:0], cl.Name)
	if err != nil {
		if k.IgnoreMissing && errors.Is(err, fs.ErrNotExist) {
			return "" // as sha256sum: neither verified nor failed
		}
		if _, ok := errors.AsType[*canon.Error](err); ok {
			k.Report.Reject(cl.Name, err)
			n.rejected++
			return "FAILED rejected"
		}
		k.Report.IOFailure(cl.Name, err)
		n.unreadable++
		return "FAILED open or read"
	}
	if string(k.digest) != cl.Digest {
		n.mismatched++
		return "FAILED"
	}
	n.matched++
	return "OK"
}
