package main

import (
	"os"
	"strconv"
	"testing"

	"github.com/bbdigest/bbdigest/internal/peakmem"
)

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

// TestMain runs the test binary as bbdigest in child mode (see childEnv),
// else the tests. The scripts in testdata/script run against the built
// command in a module of their own, scripttest/, which keeps go-internal
// out of this module.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
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
