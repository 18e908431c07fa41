// Package gnuflag parses a command line into a flag.FlagSet as GNU tools
// read theirs, for the bbdigest command: its messages name every flag
// "--name", as its help does, where package flag writes "-name".
//
// The syntax is GNU's argument permutation over package flag's flags:
// "-name", "--name", "--name=value", "--name value" (a boolean takes no
// separate value), in any order with the operands, so that flags may
// follow file names ("bbdigest digest a.json --names"); after "--" every
// argument is an operand, and a lone "-" (stdin) is one. Boolean flags
// with a one-letter name may be grouped, as "-cw" for "-c -w", as getopt
// reads them.
package gnuflag

import (
	"errors"
	"flag"
	"strings"

	"github.com/bbdigest/bbdigest/internal/diag"
)

// Parse parses args into fs, setting each flag with fs.Set (so fs.Visit
// sees it), and returns the operands, in order. It stops at the first
// problem, with an error whose message says what it is ("unknown flag
// --x"); -h, -help and --help, unless fs defines them, stop it with
// flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string) (operands []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			continue
		}
		name := a[1:]
		if name[0] == '-' {
			name = name[1:]
		}
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, errors.New("bad flag syntax: " + diag.Quote(a))
		}
		name, value, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		if f == nil && a[1] != '-' && !hasValue && shortGroup(fs, name) {
			for _, r := range name {
				if err := fs.Set(string(r), "true"); err != nil {
					return nil, errors.New("invalid value " + diag.Quote("true") + " for -" + string(r) + ": " + err.Error())
				}
			}
			continue
		}
		if f == nil {
			if name == "h" || name == "help" {
				return nil, flag.ErrHelp
			}
			return nil, errors.New("unknown flag --" + name)
		}
		if IsBool(f) {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 == len(args) {
				return nil, errors.New("flag --" + name + " needs an argument")
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, errors.New("invalid value " + diag.Quote(value) + " for --" + name + ": " + err.Error())
		}
	}
	return operands, nil
}

// IsBool reports whether f is a boolean flag, which takes no separate
// value.
func IsBool(f *flag.Flag) bool {
	bf, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && bf.IsBoolFlag()
}

// shortGroup reports whether name, of a flag written "-name" that fs does
// not define, is a group of one-letter boolean flags of fs ("cw" for -c
// -w), as getopt reads it.
func shortGroup(fs *flag.FlagSet, name string) bool {
	if len(name) < 2 {
		return false
	}
	for _, r := range name {
		f := fs.Lookup(string(r))
		if f == nil || !IsBool(f) {
			return false
		}
	}
	return true
}

// Without returns args, a command line that Parse read into fs, without
// the words of the flag called name: the other flags with their values,
// and "--" and the operands, as they were given (a flag after the first
// operand is kept with the operands).
func Without(fs *flag.FlagSet, args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return append(out, args[i:]...) // the operands
		}
		n, _, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		words := args[i : i+1]
		if f := fs.Lookup(n); f != nil && !hasValue && i+1 < len(args) && !IsBool(f) {
			words = args[i : i+2] // the flag and its value
			i++
		}
		if n != name {
			out = append(out, words...)
		}
	}
	return out
}

// Given returns the names of the flags of fs that the command line set
// (fs.Visit), so that a command can tell a flag left out from one given an
// empty value, which an unset shell variable gives.
func Given(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// Strings is a flag that may be given many times (--notify URL), each
// value appended in order.
type Strings []string

// String returns the values joined by spaces.
func (s *Strings) String() string { return strings.Join(*s, " ") }

// Set appends v.
func (s *Strings) Set(v string) error {
	*s = append(*s, v)
	return nil
}
