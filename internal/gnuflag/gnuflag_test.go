package gnuflag

import (
	"errors"
	"flag"
	"reflect"
	"testing"
)

// TestWithout checks the command line of the hint of an interrupted
// archive run: the resume flag left out in every spelling, the other
// flags and their values kept as given, a value that looks like a flag
// and the operands included.
func TestWithout(t *testing.T) {
	fs := flag.NewFlagSet("archive rehash", flag.ContinueOnError)
	fs.String("out", "", "")
	fs.Bool("resume", false, "")
	fs.Bool("json", false, "")
	fs.Int("workers", 0, "")
	for _, tt := range []struct{ args, want []string }{
		{[]string{"--out", "F", "a"}, []string{"--out", "F", "a"}},
		{[]string{"--resume", "--out", "F", "a", "b"}, []string{"--out", "F", "a", "b"}},
		{[]string{"-resume", "--json", "--out=F", "-resume=true", "a"}, []string{"--json", "--out=F", "a"}},
		{[]string{"--out", "-resume", "--workers", "2", "a"}, []string{"--out", "-resume", "--workers", "2", "a"}},
		{[]string{"--out", "F", "--resume=false", "--", "--resume", "-"}, []string{"--out", "F", "--", "--resume", "-"}},
		{[]string{"--out", "F"}, []string{"--out", "F"}},
		{[]string{"--out", "F", "-"}, []string{"--out", "F", "-"}},
	} {
		if got := Without(fs, tt.args, "resume"); !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestParse checks GNU's syntax over a flag set: flags among the
// operands, "--name value", "--name=value", a boolean that takes no
// separate value, grouped one-letter booleans, "--" and "-" as operands,
// and the message of each problem, naming the flag "--name".
func TestParse(t *testing.T) {
	newSet := func() (*flag.FlagSet, *string, *bool, *bool) {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		name := fs.String("name", "", "")
		c, w := fs.Bool("c", false, ""), fs.Bool("w", false, "")
		fs.Int("n", 0, "")
		return fs, name, c, w
	}
	fs, name, c, w := newSet()
	ops, err := Parse(fs, []string{"a", "--name", "x", "-cw", "-", "--", "--name=y", "-c"})
	if err != nil || !reflect.DeepEqual(ops, []string{"a", "-", "--name=y", "-c"}) || *name != "x" || !*c || !*w {
		t.Errorf("operands %q, %v; --name %q, -c %v, -w %v", ops, err, *name, *c, *w)
	}
	fs, name, _, _ = newSet()
	if ops, err := Parse(fs, []string{"-name=z", "b"}); err != nil || *name != "z" || !reflect.DeepEqual(ops, []string{"b"}) {
		t.Errorf("-name=z b: %q, %v, --name %q", ops, err, *name)
	}
	for args, want := range map[string]string{
		"---x":      `bad flag syntax: "---x"`,
		"--=x":      `bad flag syntax: "--=x"`,
		"--nope":    "unknown flag --nope",
		"-cx":       "unknown flag --cx",
		"--name":    "flag --name needs an argument",
		"-n=x":      `invalid value "x" for --n: parse error`,
		"--c=maybe": `invalid value "maybe" for --c: parse error`,
	} {
		fs, _, _, _ := newSet()
		if _, err := Parse(fs, []string{args}); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
	for _, h := range []string{"-h", "-help", "--help"} {
		fs, _, _, _ := newSet()
		if _, err := Parse(fs, []string{"a", h, "--nope"}); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: %v, want flag.ErrHelp", h, err)
		}
	}
}

// TestGiven: the flags the command line set, given empty too, and none
// of those left at their default.
func TestGiven(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("ledger", "", "")
	fs.String("key", "k", "")
	fs.Bool("json", false, "")
	if _, err := Parse(fs, []string{"--ledger=", "a", "--json"}); err != nil {
		t.Fatal(err)
	}
	if got := Given(fs); len(got) != 2 || !got["ledger"] || !got["json"] || got["key"] {
		t.Errorf("Given = %v, want ledger and json", got)
	}
}

// TestStrings: each value of a repeated flag, in order.
func TestStrings(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var urls Strings
	fs.Var(&urls, "notify", "")
	if _, err := Parse(fs, []string{"--notify", "a b", "--notify=c", "d"}); err != nil {
		t.Fatal(err)
	}
	if len(urls) != 2 || urls[0] != "a b" || urls[1] != "c" || urls.String() != "a b c" {
		t.Errorf("Strings = %q (%q), want [\"a b\" \"c\"]", []string(urls), urls.String())
	}
}
