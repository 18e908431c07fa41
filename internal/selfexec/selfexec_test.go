package selfexec

import (
	"os"
	"strings"
	"testing"
)

const childEnv = "SELFEXEC_TEST_CHILD"

// TestCommand runs this test binary as a child through Command (through the
// emulator when there is one) and checks that the child ran this package's
// test and saw the environment.
func TestCommand(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		os.Stdout.WriteString("child " + os.Getenv(childEnv) + " emulator=" + Emulator() + "\n")
		return
	}
	cmd := Command("-test.run=^TestCommand$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=42")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := "child 42 emulator=" + Emulator() + "\n"
	if !strings.Contains(string(out), want) {
		t.Fatalf("child printed %q, want a line %q", out, want)
	}
	if Emulator() != "" && cmd.Args[0] != Emulator() {
		t.Errorf("under %s the child runs as %q, not through the emulator", Emulator(), cmd.Args)
	}
}
