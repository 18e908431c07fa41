package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/roff"
)

// manSections are the sections of the page, in order.
var manSections = []string{"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "EXAMPLES", "SEE ALSO"}

// TestManPage checks that bbdigest man writes the page, with its sections
// in order, every command in the list of DESCRIPTION and with its help in
// COMMANDS, and every variable of environment in ENVIRONMENT.
func TestManPage(t *testing.T) {
	code, page, errOut := runArgs("man")
	if code != exitOK || errOut != "" || page != manPage() {
		t.Fatalf("man: exit code %d, stderr %q, stdout the page: %v", code, errOut, page == manPage())
	}
	if !strings.HasPrefix(page, `.\" `) || !strings.Contains(page, "\n.TH BBDIGEST 1 ") {
		t.Errorf("the page does not start with a comment and .TH BBDIGEST 1")
	}
	var sections []string
	for line := range strings.Lines(page) {
		if name, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), ".SH "); ok {
			sections = append(sections, name)
		}
	}
	if !slices.Equal(sections, manSections) {
		t.Errorf("sections %q, want %q", sections, manSections)
	}
	for _, cmd := range commands {
		if !strings.Contains(page, "\n.SS \"bbdigest "+roff.Escape(cmd.Name)+"\"\n") {
			t.Errorf("COMMANDS has no .SS for %s", cmd.Name)
		}
		if !strings.Contains(page, "\n.TP 12n\n.B "+roff.Escape(cmd.Name)+"\n") {
			t.Errorf("DESCRIPTION does not list %s", cmd.Name)
		}
	}
	_, env, _ := strings.Cut(page, "\n.SH ENVIRONMENT\n")
	env, _, _ = strings.Cut(env, "\n.SH ")
	for _, e := range environment {
		if !strings.Contains(env, "\n.B "+roff.Escape(e.Name)+"\n") && !strings.HasPrefix(env, ".TP\n.B "+roff.Escape(e.Name)+"\n") {
			t.Errorf("ENVIRONMENT has no %s", e.Name)
		}
	}
	if code, _, errOut := runArgs("man", "extra"); code != exitUsage || !strings.HasPrefix(errOut, `bbdigest: error: man: unexpected argument "extra"`) {
		t.Errorf("man extra: exit code %d, stderr %q", code, errOut)
	}
}

// manFile writes the page to a file and returns its name.
func manFile(t *testing.T) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "bbdigest.1")
	if err := os.WriteFile(name, []byte(manPage()), 0o666); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestManLint checks that mandoc finds nothing to say about the page, not
// even a style note.
func TestManLint(t *testing.T) {
	mandoc, err := exec.LookPath("mandoc")
	if err != nil {
		t.Skip("mandoc is not installed: the page is not linted (apt-get install mandoc)")
	}
	out, err := exec.Command(mandoc, "-T", "lint", "-W", "style", manFile(t)).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("mandoc -T lint: %v\n%s", err, out)
	}
}

// TestManRender renders the page with groff, as man does, and checks that
// groff warns of nothing and that every line of every help text, and of
// the overview's diagnostics, exit status and examples, comes out as it
// reads: the escaping loses or changes no character.
func TestManRender(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed: the page is not rendered (apt-get install groff-base)")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-P-c", "-P-b", "-P-u", "-P-o", manFile(t))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("groff: %v\n%s", err, stderr.Bytes())
	}
	// groff writes \- as U+2212 unless the system's man.local maps it to
	// "-" (Debian's does): either is a minus.
	rendered := strings.NewReplacer("\u2212", "-", "\u2010", "-").Replace(stdout.String())
	have := map[string]bool{}
	for line := range strings.Lines(rendered) {
		have[strings.TrimSpace(line)] = true
	}
	texts := []string{overviewDiagnostics, overviewExit, overviewExamples}
	for _, cmd := range commands {
		texts = append(texts, cmd.Help)
	}
	for _, text := range texts {
		for line := range strings.Lines(text) {
			if line = strings.TrimSpace(line); line != "" && !have[line] {
				t.Errorf("the rendered page has no line %q", line)
			}
		}
	}
}

// TestManEnvironment checks that ENVIRONMENT documents every variable that
// the packages bbdigest is built from read with os.Getenv or
// os.LookupEnv, and no other.
func TestManEnvironment(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the packages bbdigest is built from")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	read := map[string]string{} // variable: where it is read
	for _, dir := range strings.Fields(string(out)) {
		for name, where := range envReads(t, dir) {
			read[name] = where
		}
	}
	if len(read) == 0 {
		t.Fatal("found no variable read: the search is broken")
	}
	var documented []string
	for _, e := range environment {
		documented = append(documented, e.Name)
		if read[e.Name] == "" {
			t.Errorf("ENVIRONMENT documents %s, which bbdigest does not read", e.Name)
		}
	}
	for name, where := range read {
		if !slices.Contains(documented, name) {
			t.Errorf("%s reads %s, which ENVIRONMENT does not document", where, name)
		}
	}
}

// envReads returns the environment variables that the Go files of the
// package in dir (tests aside) read with os.Getenv or os.LookupEnv, each
// with the place of a read. The name must be a string literal or a
// constant of the package declared as one.
func envReads(t *testing.T, dir string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	consts := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, file)
		for _, decl := range file.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								consts[name.Name], _ = strconv.Unquote(lit.Value)
							}
						}
					}
				}
			}
		}
	}
	reads := map[string]string{}
	for _, file := range parsed {
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "os" {
				return true
			}
			where := fset.Position(call.Pos()).String()
			switch arg := call.Args[0].(type) {
			case *ast.BasicLit:
				name, _ := strconv.Unquote(arg.Value)
				reads[name] = where
			case *ast.Ident:
				if name, ok := consts[arg.Name]; ok {
					reads[name] = where
					return true
				}
				t.Errorf("%s: the variable read is %s, not a string constant of the package", where, arg.Name)
			default:
				t.Errorf("%s: the variable read is not a string constant", where)
			}
			return true
		})
	}
	return reads
}
