package sumcheck

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// TestFlags checks the flags Flags defines: the last level given wins, a
// level's =false undoes only that level, --strict cannot be turned off,
// and --check takes no list as its value.
func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		check   bool
		level   Level
		missing bool
		err     string
	}{
		{args: nil, level: Warn},
		{args: []string{"-check", "-c=false"}, level: Warn},
		{args: []string{"-c", "-quiet"}, check: true, level: Quiet},
		{args: []string{"-quiet", "-status"}, level: Status},
		{args: []string{"-status", "-w"}, level: Warn},
		{args: []string{"-quiet", "-quiet=false"}, level: Warn},
		{args: []string{"-status", "-quiet=false"}, level: Status},
		{args: []string{"-strict", "-ignore-missing"}, level: Warn, missing: true},
		{args: []string{"-strict=false"}, err: "it is always on"},
		{args: []string{"-strict=maybe"}, err: "want true or false"},
		{args: []string{"-quiet=maybe"}, err: "want true or false"},
		{args: []string{"-check=digests.txt"}, err: "a switch takes no value"},
	} {
		set := flag.NewFlagSet("digest", flag.ContinueOnError)
		set.SetOutput(new(strings.Builder))
		check, opt := Flags(set)
		err := set.Parse(tt.args)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one saying %q", tt.args, err, tt.err)
			}
		case err != nil || *check != tt.check || opt.Level != tt.level || opt.IgnoreMissing != tt.missing:
			t.Errorf("%q: check %v, %+v, %v; want check %v, level %d, ignore-missing %v", tt.args, *check, *opt, err, tt.check, tt.level, tt.missing)
		}
	}
}

// TestOnly checks that Only names every flag of Flags but --check and -c.
func TestOnly(t *testing.T) {
	set := flag.NewFlagSet("digest", flag.ContinueOnError)
	Flags(set)
	var names []string
	set.VisitAll(func(f *flag.Flag) {
		if f.Name != "check" && f.Name != "c" {
			names = append(names, f.Name)
		}
	})
	if got, want := slices.Sorted(slices.Values(Only)), names; !slices.Equal(got, want) {
		t.Errorf("Only = %q, want %q", got, want)
	}
}

// report records what a Checker reports, one string each.
type report []string

func (r *report) Errorf(format string, args ...any) {
	*r = append(*r, "error: "+fmt.Sprintf(format, args...))
}
func (r *report) Hintf(format string, args ...any) { *r = append(*r, "hint") }
func (r *report) Warnf(format string, args ...any) {
	*r = append(*r, "warning: "+fmt.Sprintf(format, args...))
}
func (r *report) Reject(name string, err error)    { *r = append(*r, "reject "+name) }
func (r *report) IOFailure(name string, err error) { *r = append(*r, "io "+name) }

// writer is an Out that fails after n writes.
type writer struct {
	strings.Builder
	n int
}

func (w *writer) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return w.Builder.Write(p)
}

// improper is sumline's reason for a line that is not a check line.
const improper = `improperly formatted checksum line: want "sha256:<64 lowercase hex>  NAME" ('bbdigest digest --names'), "<64 hex>  NAME" (sha256sum) or "SHA256 (NAME) = <64 hex>" (sha256sum --tag)`

var (
	digestA = "sha256:" + strings.Repeat("a", 64)
	digestB = "sha256:" + strings.Repeat("b", 64)
)

// files are the files a test Checker digests: a.json, b.json, rejected
// (the canon gate's), unreadable; any other does not exist.
func digestOf(dst []byte, name string) ([]byte, error) {
	switch name {
	case "a.json":
		return append(dst, digestA...), nil
	case "b.json":
		return append(dst, digestB...), nil
	case "rejected":
		return dst, &canon.Error{Class: canon.ClassSyntax}
	case "unreadable":
		return dst, &fs.PathError{Op: "read", Path: name, Err: errors.New("input/output error")}
	}
	return dst, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// TestCheck checks lists against digestOf: the answers at each level, the
// diagnostics and warnings, the hint on plain lines once, whether the
// list passes, and a failure to write the answers, which stops the check.
func TestCheck(t *testing.T) {
	plainB := strings.Repeat("a", 64) + "  b.json\n" // a's digest for b, plain
	mixed := "# a comment\n\n" + digestA + "  a.json\n" + plainB + plainB + digestA + "  rejected\n" +
		digestA + "  unreadable\n" + digestA + "  missing\nnot a line\n" + digestA + "  -\n"
	for _, tt := range []struct {
		name, list string
		opt        Options
		ok         bool
		out        string
		report     []string
	}{
		{name: "ok", list: digestA + "  a.json\n" + strings.Repeat("b", 64) + " *b.json\r\n", ok: true,
			out: "a.json: OK\nb.json: OK\n"},
		{name: "mixed", list: mixed,
			out: "a.json: OK\nb.json: FAILED\nb.json: FAILED\nrejected: FAILED rejected\nunreadable: FAILED open or read\nmissing: FAILED open or read\n-: FAILED open or read\n",
			report: []string{"hint", "reject rejected", "io unreadable", "io missing",
				"error: -: line 9: " + improper,
				"error: -: open: stdin is the list of digests being checked",
				"warning: 1 line is improperly formatted", "warning: 3 listed files could not be read",
				"warning: 1 listed file was rejected by the canon gate", "warning: 2 computed checksums did NOT match"}},
		{name: "quiet", list: mixed, opt: Options{Level: Quiet},
			out: "b.json: FAILED\nb.json: FAILED\nrejected: FAILED rejected\nunreadable: FAILED open or read\nmissing: FAILED open or read\n-: FAILED open or read\n",
			report: []string{"hint", "reject rejected", "io unreadable", "io missing",
				"error: -: line 9: " + improper,
				"error: -: open: stdin is the list of digests being checked",
				"warning: 1 line is improperly formatted", "warning: 3 listed files could not be read",
				"warning: 1 listed file was rejected by the canon gate", "warning: 2 computed checksums did NOT match"}},
		{name: "status", list: mixed, opt: Options{Level: Status},
			report: []string{"reject rejected", "io unreadable", "io missing", "error: -: open: stdin is the list of digests being checked"}},
		{name: "ignore-missing", list: digestA + "  a.json\n" + digestA + "  missing\n", opt: Options{IgnoreMissing: true}, ok: true,
			out: "a.json: OK\n"},
		{name: "ignore-missing none", list: digestA + "  missing\n", opt: Options{IgnoreMissing: true},
			report: []string{"error: -: no file was verified"}},
		{name: "none", list: "# nothing\n\nnot a line\n",
			report: []string{"error: -: line 3: " + improper,
				"error: -: no properly formatted checksum lines found"}},
		{name: "empty", list: "", report: []string{"error: -: no properly formatted checksum lines found"}},
	} {
		var r report
		out := &writer{n: -1}
		k := Checker{Options: tt.opt, Digest: digestOf, Out: out, Report: &r}
		ok, err := k.Check("-", []byte(tt.list))
		if err != nil || ok != tt.ok || out.String() != tt.out || !slices.Equal(r, tt.report) {
			t.Errorf("%s: ok %v, %v, answers\n%s\nreport %q\nwant ok %v, answers\n%s\nreport %q", tt.name, ok, err, out.String(), r, tt.ok, tt.out, tt.report)
		}
	}
	var r report
	out := &writer{n: 1}
	k := Checker{Digest: digestOf, Out: out, Report: &r}
	ok, err := k.Check("list", []byte(digestA+"  a.json\n"+digestA+"  b.json\n"+digestA+"  a.json\n"))
	if ok || err == nil || err.Error() != "disk full" || out.String() != "a.json: OK\n" || r != nil {
		t.Errorf("a failed write: ok %v, %v, answers %q, report %q", ok, err, out.String(), r)
	}
}
