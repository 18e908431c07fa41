//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/receipt"
)

// mkfifo makes a named pipe in a temporary directory that nothing ever
// opens for writing.
func mkfifo(t *testing.T) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return name
}

// TestGateNotRegular: the gate's --key and --policy as /dev/zero or a named
// pipe that never gets a writer fail at once, exit 2, before a byte is
// read: the gate read /dev/zero whole (1.2 GB and more before failing) and
// waited for ever in the open of the pipe.
func TestGateNotRegular(t *testing.T) {
	f := newGateFixture(t)
	fifo := mkfifo(t)
	call := jsonrpcShape(`{"name":"search","arguments":{}}`)
	for _, tc := range []struct {
		name, flag, file, want string
	}{
		{"key /dev/zero", "--key", "/dev/zero", "bbdigest: error: /dev/zero: not a regular file (a character device): a key file must be one\n"},
		{"policy /dev/zero", "--policy", "/dev/zero", "bbdigest: error: /dev/zero: not a regular file (a character device): a policy must be one\n"},
		{"key fifo", "--key", fifo, "bbdigest: error: " + fifo + ": not a regular file (a named pipe): a key file must be one\n"},
		{"policy fifo", "--policy", fifo, "bbdigest: error: " + fifo + ": not a regular file (a named pipe): a policy must be one\n"},
	} {
		args := f.args()
		for i, a := range args {
			if a == tc.flag {
				args[i+1] = tc.file
			}
		}
		var stdout, stderr bytes.Buffer
		code, took := within(t, 10*time.Second, tc.name, func() int {
			return run(args, strings.NewReader(call), &stdout, &stderr)
		})
		if code != exitUsage || stdout.Len() != 0 || stderr.String() != tc.want || took > 2*time.Second {
			t.Errorf("%s: exit %d in %v, stdout %q, stderr %q; want exit 2 at once, %q", tc.name, code, took, stdout.String(), stderr.String(), tc.want)
		}
	}
	if _, err := os.Stat(f.receipts); err == nil {
		t.Errorf("a gate that read no policy or key wrote %s", f.receipts)
	}
}

// TestKeyFilesNotRegular: keygen -y and receipts verify --key refuse a
// named pipe and /dev/zero at once, as the gate does.
func TestKeyFilesNotRegular(t *testing.T) {
	fifo := mkfifo(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"keygen", "-y", fifo}, "bbdigest: error: " + fifo + ": not a regular file (a named pipe): a key file must be one\n"},
		{[]string{"keygen", "-y", "/dev/zero"}, "bbdigest: error: /dev/zero: not a regular file (a character device): a key file must be one\n"},
		{[]string{"receipts", "verify", "--key", fifo, "log.jsonl"}, "bbdigest: error: --key: " + fifo + ": not a regular file (a named pipe): a key file must be one\n"},
		{[]string{"receipts", "verify", "--key", "/dev/zero", "log.jsonl"}, "bbdigest: error: --key: /dev/zero: not a regular file (a character device): a key file must be one\n"},
	} {
		var stdout, stderr bytes.Buffer
		code, took := within(t, 10*time.Second, strings.Join(tc.args, " "), func() int {
			return run(tc.args, strings.NewReader(""), &stdout, &stderr)
		})
		if code != exitUsage || stdout.Len() != 0 || stderr.String() != tc.want || took > 2*time.Second {
			t.Errorf("%q: exit %d in %v, stdout %q, stderr %q; want exit 2 at once, %q", tc.args, code, took, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// TestBoundedDevZero: the files that may be pipes are read from /dev/zero
// no further than their bound: archive join's summaries, verify-ep's
// vectors, keygen -y's stdin.
func TestBoundedDevZero(t *testing.T) {
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer zero.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"archive", "join", "/dev/zero"}, "bbdigest: error: /dev/zero: longer than the 65536-byte bound of a summary\n"},
		{[]string{"receipts", "verify-ep", "/dev/zero"}, "bbdigest: error: /dev/zero: longer than the 16777216-byte bound of a vector file\n"},
		{[]string{"keygen", "-y", "-"}, "bbdigest: error: -: longer than the 16384-byte bound of a key file\n"},
	} {
		var stdout, stderr bytes.Buffer
		code, took := within(t, 10*time.Second, strings.Join(tc.args, " "), func() int {
			return run(tc.args, zero, &stdout, &stderr)
		})
		if code != exitUsage || stdout.Len() != 0 || stderr.String() != tc.want || took > 2*time.Second {
			t.Errorf("%q: exit %d in %v, stdout %q, stderr %q; want exit 2 at once, %q", tc.args, code, took, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// TestKeyPermissions: a private key file that its group or others may read
// or write is refused by every command that reads one (gate --key, keygen
// -y, receipts verify --key given one), with its permissions and the fix;
// --insecure-key-permissions reads it anyway; 0600 and 0400 are accepted,
// a public key file may be 0644, and a key on stdin is not checked.
func TestKeyPermissions(t *testing.T) {
	f := newGateFixture(t)
	t.Chdir(f.dir)
	call := jsonrpcShape(`{"name":"search","arguments":{}}`)
	os.WriteFile("gate.pub", []byte(receipt.MarshalPublicKey(f.pub)+"\n"), 0o644)
	commands := map[string]struct {
		args   []string
		prefix string // before FILE in the error
	}{
		"gate":            {f.args(), ""},
		"keygen -y":       {[]string{"keygen", "-y", f.key}, ""},
		"receipts verify": {[]string{"receipts", "verify", "--key", f.key, f.receipts}, "--key: "},
	}
	// A receipts log for verify to read.
	if code := run(f.args(), strings.NewReader(call), &bytes.Buffer{}, &bytes.Buffer{}); code != exitOK {
		t.Fatalf("gate: exit %d", code)
	}
	for _, perm := range []struct {
		mode os.FileMode
		who  string // "" when accepted
	}{
		{0o644, "its group and others"}, {0o640, "its group"}, {0o604, "others"}, {0o660, "its group"},
		{0o602, "others"}, {0o700, ""}, {0o600, ""}, {0o400, ""},
	} {
		if err := os.Chmod(f.key, perm.mode); err != nil {
			t.Fatal(err)
		}
		for name, cmd := range commands {
			var stdout, stderr bytes.Buffer
			code := run(cmd.args, strings.NewReader(call), &stdout, &stderr)
			if perm.who == "" {
				if code != exitOK || strings.Contains(stderr.String(), "error") {
					t.Errorf("%s, key %04o: exit %d, stderr %q", name, perm.mode, code, stderr.String())
				}
				continue
			}
			want := "bbdigest: error: " + cmd.prefix + f.key + ": unprotected private key file: its permissions " + modeText(perm.mode) + " give " + perm.who + " access to it (want 0600 or 0400)\n" +
				"bbdigest: hint: whoever can read a signing key can sign receipts in its name: run 'chmod 600 " + f.key + "', or pass --insecure-key-permissions to use it as it is\n"
			if code != exitUsage || stdout.Len() != 0 || stderr.String() != want {
				t.Errorf("%s, key %04o: exit %d, stdout %q\nstderr %q\nwant   %q", name, perm.mode, code, stdout.String(), stderr.String(), want)
			}
			stdout.Reset()
			stderr.Reset()
			args := append([]string{}, cmd.args...)
			args = append(args[:1:1], append([]string{"--insecure-key-permissions"}, args[1:]...)...)
			if cmd.args[0] == "receipts" {
				args = append([]string{"receipts", "verify", "--insecure-key-permissions"}, cmd.args[2:]...)
			}
			if code := run(args, strings.NewReader(call), &stdout, &stderr); code != exitOK || strings.Contains(stderr.String(), "error") {
				t.Errorf("%s --insecure-key-permissions, key %04o: exit %d, stderr %q", name, perm.mode, code, stderr.String())
			}
		}
	}
	// A public key file is no secret.
	if code, _, errs := runIn(t, []string{"receipts", "verify", "--key", "gate.pub", f.receipts}, ""); code != exitOK || errs != "" {
		t.Errorf("receipts verify --key gate.pub (0644): exit %d, stderr %q", code, errs)
	}
	// Stdin has no permissions to check.
	os.Chmod(f.key, 0o644)
	key := string(readAllFile(t, f.key))
	if code, out, errs := runIn(t, []string{"keygen", "-y", "-"}, key); code != exitOK || out != receipt.MarshalPublicKey(f.pub)+"\n" || errs != "" {
		t.Errorf("keygen -y - of a 0644 key: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// The flag reads a key file: it has no meaning without -y.
	if code, _, errs := runIn(t, []string{"keygen", "--insecure-key-permissions"}, ""); code != exitUsage || !strings.HasPrefix(errs, "bbdigest: error: keygen: --insecure-key-permissions goes with -y") {
		t.Errorf("keygen --insecure-key-permissions: exit %d, stderr %q", code, errs)
	}
}

// modeText writes a permission as the error does: 0644.
func modeText(m os.FileMode) string {
	const digits = "01234567"
	return "0" + string([]byte{digits[m>>6&7], digits[m>>3&7], digits[m&7]})
}
