// Package inlinecheck pins, for tests, what a package's hot paths need
// from the compiler's inliner: the small functions that must be inlined
// at every call, and the slow paths that must stay out of line so that
// their callers' loops stay short. It builds the package with
// `go build -gcflags=-m` and reads the compiler's report, in the manner of
// go-json-experiment/json's inline_test.go, with one addition: a function
// that can be inlined may still be called, not inlined, where its caller
// is large, so every call site is checked too.
//
// Whether a function is inlined depends on the compiler version: a
// failure after a Go upgrade means a hot path lost a property it relied
// on, to be fixed in the code (or the pin dropped, with a benchmark to
// show it does not matter).
package inlinecheck

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// ErrNoGo reports that no go command was found on PATH: a test skips then.
var ErrNoGo = errors.New("inlinecheck: no go command on PATH")

// Arches are the architectures whose builds the pins hold for: amd64 and
// arm64, where the hot paths are benchmarked, and 386, which CI's 32-bit
// step runs. 32-bit ARM, which that step runs instead under a user-mode
// emulator where the kernel cannot execute 386 binaries, inlines less
// (64-bit arithmetic costs more there): Test skips on any other
// architecture.
var Arches = []string{"amd64", "arm64", "386"}

// Test is Check as a test: it skips t without a go command or on an
// architecture not in Arches, fails it if the build or the parse fails,
// and reports each problem as an error.
func Test(t testing.TB, pkg string, inlined, outOfLine []string) {
	t.Helper()
	if !slices.Contains(Arches, runtime.GOARCH) {
		t.Skipf("the inlining pins hold for %s builds; this is %s", strings.Join(Arches, ", "), runtime.GOARCH)
	}
	problems, err := Check(pkg, inlined, outOfLine)
	if errors.Is(err, ErrNoGo) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// Check builds the package pkg (an import path) with -gcflags=-m for the
// environment's GOOS, GOARCH and GOFLAGS, and returns one problem per
// broken pin:
//
//   - each name in inlined that pkg declares must be reported inlinable;
//   - each call of a name in inlined from pkg's non-test files must be
//     reported inlined, including calls of another package's function,
//     named with its package ("es6.TrimZeros"), which must have at least
//     one call in pkg;
//   - each name in outOfLine must be declared in pkg and not inlinable.
//
// Names are spelled as the compiler prints them: "wsEnd",
// "(*Canonicalizer).hex4", "es6.TrimZeros". A method's calls are found by
// its name alone, so it must be the only method of that name in pkg.
// The error is ErrNoGo, or says why the build or the parse failed.
func Check(pkg string, inlined, outOfLine []string) (problems []string, err error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, ErrNoGo
	}
	list, err := run(goCmd, "list", "-f", `{{.Dir}}{{range .GoFiles}}{{"\n"}}{{.}}{{end}}`, pkg)
	if err != nil {
		return nil, err
	}
	files := strings.Split(strings.TrimSpace(list), "\n")
	dir, files := files[0], files[1:]
	report, err := run(goCmd, "build", "-gcflags=-m", pkg)
	if err != nil {
		return nil, err
	}
	env, _ := run(goCmd, "env", "GOVERSION", "GOARCH")
	r := parseReport(report, dir, files)
	src, err := parseSource(dir, files)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf(" (go build -gcflags=-m %s: %s)", pkg, strings.Join(strings.Fields(env), " "))

	for _, name := range inlined {
		local := src.declared[name]
		switch {
		case local && !r.canInline[name]:
			problems = append(problems, name+" is no longer inlinable"+where)
			continue
		case !local && !isQualified(name):
			problems = append(problems, name+" is not declared in "+pkg)
			continue
		}
		sites := src.calls(name, local)
		if !local && len(sites) == 0 {
			problems = append(problems, name+" is not called in "+pkg)
		}
		for _, s := range sites {
			if !r.inlinedAt[s+" "+name] {
				problems = append(problems, fmt.Sprintf("%s: call of %s is not inlined%s", s, name, where))
			}
		}
	}
	for _, name := range outOfLine {
		switch {
		case !src.declared[name]:
			problems = append(problems, name+" is not declared in "+pkg)
		case r.canInline[name]:
			problems = append(problems, name+" has become inlinable and must stay out of line"+where)
		}
	}
	return problems, nil
}

// run runs the go command and returns its combined output.
func run(goCmd string, args ...string) (string, error) {
	out, err := exec.Command(goCmd, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("inlinecheck: go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// isQualified reports whether name has the form "pkg.F" of another
// package's function (a method of the package checked is declared there).
func isQualified(name string) bool {
	return strings.Contains(name, ".") && !strings.HasPrefix(name, "(")
}

// report is what the compiler said about the package's own files.
type report struct {
	canInline map[string]bool // name
	inlinedAt map[string]bool // "file:line:col name", the position of the call's '('
}

// reportLine matches the two kinds of line of -gcflags=-m that matter.
var reportLine = regexp.MustCompile(`^(.+?):(\d+):(\d+): (can inline|inlining call to) (\S+)`)

// parseReport reads the compiler's output. Only lines about the package's
// own files are kept: a relative path (the go command replays a cached
// build's report with the paths of the build that made it, so only the
// base name is reliable) or an absolute one in dir; the standard library's
// files, whose generic code is compiled into the package, are absolute.
func parseReport(out, dir string, files []string) report {
	own := make(map[string]bool)
	for _, f := range files {
		own[f] = true
	}
	r := report{canInline: map[string]bool{}, inlinedAt: map[string]bool{}}
	for _, line := range strings.Split(out, "\n") {
		m := reportLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		path, base := m[1], filepath.Base(m[1])
		if !own[base] || filepath.IsAbs(path) && filepath.Dir(path) != dir {
			continue
		}
		if m[4] == "can inline" {
			r.canInline[m[5]] = true
		} else {
			r.inlinedAt[base+":"+m[2]+":"+m[3]+" "+m[5]] = true
		}
	}
	return r
}

// source is what the package's files declare and call.
type source struct {
	declared map[string]bool     // functions and methods, named as the compiler names them
	sites    map[string][]string // callee ("f", ".m" for a method, "pkg.F") -> "file:line:col" of each call's '('
}

// parseSource reads the package's files (those the build compiles).
func parseSource(dir string, files []string) (source, error) {
	s := source{declared: map[string]bool{}, sites: map[string][]string{}}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return s, fmt.Errorf("inlinecheck: %v", err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				s.declared[funcName(fd)] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			p := fset.Position(call.Lparen)
			at := fmt.Sprintf("%s:%d:%d", name, p.Line, p.Column)
			switch fn := ast.Unparen(call.Fun).(type) {
			case *ast.Ident:
				s.sites[fn.Name] = append(s.sites[fn.Name], at)
			case *ast.SelectorExpr:
				s.sites["."+fn.Sel.Name] = append(s.sites["."+fn.Sel.Name], at)
				if x, ok := fn.X.(*ast.Ident); ok {
					s.sites[x.Name+"."+fn.Sel.Name] = append(s.sites[x.Name+"."+fn.Sel.Name], at)
				}
			}
			return true
		})
	}
	return s, nil
}

// calls returns the positions of the calls of name, a function or method
// declared in the package if local, else another package's function.
func (s source) calls(name string, local bool) []string {
	if local && strings.Contains(name, ".") { // a method: "(*T).m" or "T.m"
		return s.sites[name[strings.LastIndex(name, "."):]]
	}
	return s.sites[name]
}

// funcName names a declared function or method as the compiler does.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := false
	if st, ok := t.(*ast.StarExpr); ok {
		star, t = true, st.X
	}
	switch x := t.(type) { // drop type parameters
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	recv := fmt.Sprint(t)
	if star {
		return "(*" + recv + ")." + fd.Name.Name
	}
	return recv + "." + fd.Name.Name
}
