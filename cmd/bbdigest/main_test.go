package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bbdigest/bbdigest/internal/peakmem"
)

// statusEnv names the file in which the bbdigest command of the scripts
// records its exit code, for the "status" script command.
const statusEnv = "BBDIGEST_TEST_STATUS"

// The child mode of the test binary, for tests that measure a whole
// process (memory_test.go): with childEnv set, the binary runs as bbdigest
// on its arguments, with the size bound of every input lowered to
// $BBDIGEST_TEST_MAXSIZE bytes when that is set, and then writes its peak
// resident memory (VmHWM, bytes) to the file $BBDIGEST_TEST_HWM. Only this
// test hook reads these variables; the bbdigest command does not.
const (
	childEnv   = "BBDIGEST_TEST_CHILD"
	maxSizeEnv = "BBDIGEST_TEST_MAXSIZE"
	hwmEnv     = "BBDIGEST_TEST_HWM"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	testscript.Main(m, map[string]func(){
		"bbdigest": func() {
			code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			if f := os.Getenv(statusEnv); f != "" {
				os.WriteFile(f, []byte(strconv.Itoa(code)), 0o666)
			}
			os.Exit(code)
		},
	})
}

// TestScripts runs testdata/script/*.txtar. Besides the standard commands
// they have
//
//	status N
//
// which checks that the last bbdigest run exited with code N.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv(statusEnv, filepath.Join(env.WorkDir, ".bbdigest-status"))
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

// runChild runs the test binary as bbdigest (see childEnv).
func runChild() int {
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	if v := os.Getenv(maxSizeEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			os.Stderr.WriteString("bad " + maxSizeEnv + "\n")
			return 100
		}
		c.maxSize = n
	}
	code := c.main(os.Args[1:])
	if f := os.Getenv(hwmEnv); f != "" {
		hwm, err := peakmem.VmHWM()
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 101
		}
		if err := os.WriteFile(f, []byte(strconv.Itoa(hwm)), 0o666); err != nil {
			return 102
		}
	}
	return code
}
