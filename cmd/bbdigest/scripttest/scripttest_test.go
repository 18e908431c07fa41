package scripttest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// root is the directory of the library module, relative to this package's
// directory (where go test runs the tests), and module its path.
const (
	root   = "../../.."
	module = "github.com/bbdigest/bbdigest"
)

// statusEnv names the file in which the bbdigest command of the scripts
// records its exit code, for the "status" script command.
const statusEnv = "BBDIGEST_TEST_STATUS"

// binaryEnv names the bbdigest binary that TestMain built, which the
// bbdigest command of the scripts runs.
const binaryEnv = "BBDIGEST_TEST_BINARY"

// binary is the path of the bbdigest binary that TestMain built.
var binary string

// TestMain builds bbdigest once, from the library module's ./cmd/bbdigest
// into a temporary directory, and puts the command "bbdigest" on the PATH
// of the scripts: the test binary itself, which runs the built binary and
// records its exit code (see runBBDigest).
func TestMain(m *testing.M) {
	testscript.Main(buildFirst{m}, map[string]func(){"bbdigest": runBBDigest})
}

// buildFirst builds the bbdigest binary, then runs the tests. testscript.Main
// calls its Run only in the test binary run by go test, never in the
// test binary run as a script's bbdigest command.
type buildFirst struct{ m *testing.M }

func (b buildFirst) Run() int {
	dir, err := os.MkdirTemp("", "bbdigest-scripttest")
	if err != nil {
		fmt.Fprintln(os.Stderr, "scripttest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "bbdigest")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	if err := build(binary); err != nil {
		fmt.Fprintln(os.Stderr, "scripttest:", err)
		return 1
	}
	return b.m.Run()
}

// build builds the bbdigest command of the library module as out.
func build(out string) error {
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	if first, _, _ := bytes.Cut(gomod, []byte("\n")); string(first) != "module "+module {
		return fmt.Errorf("%s/go.mod is not the module %s", root, module)
	}
	cmd := exec.Command("go", "build", "-o", out, "./cmd/bbdigest")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/bbdigest: %v\n%s", err, msg)
	}
	return nil
}

// runBBDigest is the bbdigest command of the scripts: it runs the binary
// named by $BBDIGEST_TEST_BINARY on its arguments, standard streams and
// environment, writes its exit code to the file $BBDIGEST_TEST_STATUS (or,
// when it did not exit normally, why), and exits with that code.
func runBBDigest() {
	cmd := exec.Command(os.Getenv(binaryEnv), os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	code, status := 0, "0"
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.Exited():
		code = exit.ExitCode()
		status = strconv.Itoa(code)
	case err != nil:
		fmt.Fprintln(os.Stderr, "scripttest: bbdigest:", err)
		code, status = 125, err.Error()
	}
	if f := os.Getenv(statusEnv); f != "" {
		os.WriteFile(f, []byte(status), 0o666)
	}
	os.Exit(code)
}

// TestScripts runs ../testdata/script/*.txtar. Besides the standard
// commands they have
//
//	status N
//
// which checks that the last bbdigest run exited with code N.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv(statusEnv, filepath.Join(env.WorkDir, ".bbdigest-status"))
			env.Setenv(binaryEnv, binary)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: status N")
				}
				file := ts.Getenv(statusEnv)
				got, err := os.ReadFile(file)
				ts.Check(err)
				ts.Check(os.Remove(file)) // each run is checked at most once
				if s := strings.TrimSpace(string(got)); s != args[0] {
					ts.Fatalf("bbdigest exited with %s, want %s", s, args[0])
				}
			},
		},
	})
}
