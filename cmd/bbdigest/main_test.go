package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// statusEnv names the file in which the bbdigest command of the scripts
// records its exit code, for the "status" script command.
const statusEnv = "BBDIGEST_TEST_STATUS"

func TestMain(m *testing.M) {
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
