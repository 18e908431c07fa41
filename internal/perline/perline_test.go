package perline

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// TestAppendErrorLine checks the answer to a rejected line: its class,
// offset, message and pointer, the message and the pointer escaped, and
// no message left out with its space.
func TestAppendErrorLine(t *testing.T) {
	for _, tt := range []struct {
		e    canon.Error
		want string
	}{
		{canon.Error{Class: canon.ClassDuplicateName, Offset: 17, Pointer: "/x", Msg: `duplicate object member name "a"`},
			`error duplicate-name 17 duplicate object member name "a" within "/x"` + "\n"},
		{canon.Error{Class: canon.ClassSyntax, Offset: 0}, `error syntax 0 within ""` + "\n"},
		{canon.Error{Class: canon.ClassSyntax, Offset: 3, Pointer: "/a\"b\\\n", Msg: "bad\x1b[31m\nline\u202e"},
			`error syntax 3 bad\u001b[31m\nline\u202e within "/a\"b\\\n"` + "\n"},
	} {
		if got := string(AppendErrorLine([]byte("x"), &tt.e)); got != "x"+tt.want {
			t.Errorf("AppendErrorLine(%+v) = %q, want %q", tt.e, got, "x"+tt.want)
		}
	}
}

// TestRun answers lines with their digests and with their canonical
// forms: one answer a line, in order, a rejected line answered by its
// error line and counted, the last line answered without its newline.
func TestRun(t *testing.T) {
	in := "{\"b\":2,\"a\":1}\n[1,\n\"x\"\r\n{\"a\":1,\"a\":2}"
	sum := func(s string) string { return fmt.Sprintf("sha256:%x\n", sha256.Sum256([]byte(s))) }
	bad := `error syntax 3 unexpected end of input, want a value within "/1"` + "\n"
	dup := "error duplicate-name 7 duplicate object member name \"a\" within \"/a\"\n"
	for _, tt := range []struct {
		digest bool
		want   string
	}{
		{true, sum(`{"a":1,"b":2}`) + bad + sum(`"x"`) + dup},
		{false, `{"a":1,"b":2}` + "\n" + bad + `"x"` + "\n" + dup},
	} {
		for _, workers := range []int{1, 3} {
			var out strings.Builder
			rejected, err := Run(strings.NewReader(in), &out, canon.Strict, tt.digest, workers)
			if err != nil || rejected != 2 || out.String() != tt.want {
				t.Errorf("digest %v, %d workers: %d rejected, %v, output\n%s\nwant 2 rejected, output\n%s", tt.digest, workers, rejected, err, out.String(), tt.want)
			}
		}
	}
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error)  { return 0, f.err }
func (f failing) Write([]byte) (int, error) { return 0, f.err }

// TestRunErrors checks that a failure to read the input and a failure to
// write the answers are returned as the reader and the writer gave them.
func TestRunErrors(t *testing.T) {
	readErr, writeErr := errors.New("read failed"), errors.New("disk full")
	if _, err := Run(failing{readErr}, io.Discard, canon.Strict, true, 1); !errors.Is(err, readErr) {
		t.Errorf("a failing reader: %v, want %v", err, readErr)
	}
	if _, err := Run(strings.NewReader("1\n2\n"), failing{writeErr}, canon.Strict, true, 1); !errors.Is(err, writeErr) {
		t.Errorf("a failing writer: %v, want %v", err, writeErr)
	}
}
