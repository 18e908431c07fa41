//go:build ignore

// gen.go builds the page's WebAssembly module and copies the Go runtime's
// loader beside it, into assets/ (or the directory of -o):
//
//	approve.wasm          ./wasm for GOOS=js GOARCH=wasm, -trimpath, stripped
//	wasm_exec.js          $(go env GOROOT)/lib/wasm/wasm_exec.js, which must
//	                      come from the Go that built approve.wasm
//	approve.wasm.version  that Go's version (go env GOVERSION)
//
// Run it with go generate in internal/approvepage. TestAssetsUpToDate runs it
// into a temporary directory and compares the result with assets/.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("o", "assets", "the directory to write the three files to")
	flag.Parse()
	if err := gen(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen.go:", err)
		os.Exit(1)
	}
}

func gen(out string) error {
	goroot, err := goEnv("GOROOT")
	if err != nil {
		return err
	}
	version, err := goEnv("GOVERSION")
	if err != nil {
		return err
	}
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags=-s -w -buildid=", "-o", filepath.Join(out, "approve.wasm"), "./wasm")
	// The environment is pinned so that the same Go makes the same bytes
	// whatever the caller's GOFLAGS or GOWASM say.
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0", "GOWASM=", "GOFLAGS=")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build ./wasm: %w", err)
	}
	if err := os.Chmod(filepath.Join(out, "approve.wasm"), 0o644); err != nil {
		return err
	}
	js, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "wasm_exec.js"), js, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "approve.wasm.version"), []byte(version+"\n"), 0o644)
}

func goEnv(name string) (string, error) {
	var stdout bytes.Buffer
	cmd := exec.Command("go", "env", name)
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(stdout.String()), nil
}
