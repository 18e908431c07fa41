package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/boundedread"
	"github.com/bbdigest/bbdigest/internal/selfexec"
	"github.com/bbdigest/bbdigest/receipt"
)

// within runs f, which returns an exit code, and fails the test if it has
// not returned after d: a read that hangs is a failure, not a stuck test.
// The code is -1 then.
func within(t *testing.T, d time.Duration, what string, f func() int) (code int, took time.Duration) {
	t.Helper()
	done := make(chan int, 1)
	start := time.Now()
	go func() { done <- f() }()
	select {
	case code = <-done:
		return code, time.Since(start)
	case <-time.After(d):
		t.Errorf("%s: still running after %v", what, d)
		return -1, d
	}
}

// sparseFile makes a sparse file of size bytes, or skips the test where
// the file system cannot hold one.
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skipf("no sparse file of %d bytes here: %v", size, err)
	}
	return name
}

// TestFilesReadBounded: each kind of file read whole is read up to its
// bound: a file of exactly the bound is read, one byte more is refused
// with an error that names the bound and the kind, and a huge sparse file
// fails at once, unread.
func TestFilesReadBounded(t *testing.T) {
	dir := t.TempDir()
	huge := sparseFile(t, 8<<30)
	for _, k := range []fileKind{keyKind, policyKind, vectorKind, checkListKind(1000)} {
		at := filepath.Join(dir, "at")
		if err := os.WriteFile(at, nil, 0o600); err != nil || os.Truncate(at, int64(k.Limit)) != nil {
			t.Fatal(err)
		}
		if b, fi, err := readBounded(at, k); err != nil || len(b) != k.Limit || fi == nil || fi.Size() != int64(k.Limit) {
			t.Errorf("%s: a file of the bound: %d bytes, %v", k.What, len(b), err)
		}
		past := filepath.Join(dir, "past")
		if err := os.WriteFile(past, nil, 0o600); err != nil || os.Truncate(past, int64(k.Limit)+1) != nil {
			t.Fatal(err)
		}
		want := "longer than the " + strconv.Itoa(k.Limit) + "-byte bound of " + k.What
		if _, _, err := readBounded(past, k); err == nil || err.Error() != want {
			t.Errorf("%s: a file one byte past the bound: %v, want %q", k.What, err, want)
		}
		start := time.Now()
		if _, _, err := readBounded(huge, k); err == nil || err.Error() != want {
			t.Errorf("%s: a sparse file of 8 GiB: %v, want %q", k.What, err, want)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s: a sparse file of 8 GiB took %v to refuse", k.What, took)
		}
		// Not regular: a directory.
		_, _, err := readBounded(dir, k)
		if _, ok := errors.AsType[*boundedread.NotRegularError](err); ok != k.Regular {
			t.Errorf("%s: a directory: %v", k.What, err)
		}
	}
}

// TestGateHugePolicyAndKey: the gate's --policy and --key past their bounds
// (a sparse file of 8 GiB) fail at once with exit 2, naming the file, the
// bound and the kind, where the gate read them whole before.
func TestGateHugePolicyAndKey(t *testing.T) {
	f := newGateFixture(t)
	huge := sparseFile(t, 8<<30)
	call := jsonrpcShape(`{"name":"search","arguments":{}}`)
	for _, tc := range []struct {
		name, flag, want string
	}{
		{"policy", "--policy", "bbdigest: error: " + huge + ": longer than the 4194304-byte bound of a policy\n"},
		{"key", "--key", "bbdigest: error: " + huge + ": longer than the 16384-byte bound of a key file\n"},
	} {
		args := f.args()
		for i, a := range args {
			if a == tc.flag {
				args[i+1] = huge
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
}

// TestArchiveJoinHugeSummary: archive join refuses a SUMMARY past its
// 64 KiB bound unread.
func TestArchiveJoinHugeSummary(t *testing.T) {
	huge := sparseFile(t, 8<<30)
	var stderr string
	code, took := within(t, 10*time.Second, "archive join", func() int {
		_, errs, code := archiveCall(t, 0, nil, "archive", "join", huge)
		stderr = errs
		return code
	})
	want := "bbdigest: error: " + huge + ": longer than the 65536-byte bound of a summary\n"
	if code != exitUsage || stderr != want || took > 2*time.Second {
		t.Errorf("exit %d in %v, stderr %q; want exit 2 at once, %q", code, took, stderr, want)
	}
}

// TestCheckListBound: a --check list past its bound (the profile's) is not
// read past it, and the error says which bound of what.
func TestCheckListBound(t *testing.T) {
	c := &cli{stdin: strings.NewReader(strings.Repeat("#", 101)), stdout: io.Discard, maxSize: 100}
	var stderr bytes.Buffer
	c.stderr = &stderr
	if code := c.main([]string{"digest", "--check"}); code != exitUsage || stderr.String() != "bbdigest: error: -: longer than the 100-byte bound of a check list\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestArchiveResumeHugeSidecar: a FILE.resume past its 64 MiB bound is not
// one archive wrote: --resume refuses FILE, unread.
func TestArchiveResumeHugeSidecar(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	os.WriteFile(in, []byte("[1]\n"), 0o644)
	os.WriteFile(out, []byte("x\n"), 0o644)
	f, err := os.Create(out + resumeSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	_, stderr, code := archiveCall(t, 0, nil, "archive", "rehash", "--out", out, "--resume", in)
	want := "bbdigest: error: " + out + ": " + out + resumeSuffix + ": longer than the 67108864-byte bound of a .resume file\n"
	if code != exitUsage || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr %q, want %q first", code, stderr, want)
	}
}

// neverClosed is a stdin whose writer never writes its end: a host that
// never closes the gate's stdin. Close releases the reader left waiting.
func neverClosed(t *testing.T, first string) io.Reader {
	r, w := io.Pipe()
	go w.Write([]byte(first))
	t.Cleanup(func() { w.Close() })
	return r
}

// checkLateDeny checks the answer of a gate whose call did not end within
// its --timeout of d: the deny (canceled) on stdout and stderr, exit 0,
// and its receipt, the log's last, saying why.
func checkLateDeny(t *testing.T, f *gateFixture, code int, stdout, stderr, from, d string, seq int) {
	t.Helper()
	detail := "the call on " + from + " did not end within --timeout " + d
	var res gateResult
	if code != exitOK || json.Unmarshal([]byte(stdout), &res) != nil || !res.IsError || len(res.Content) != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and a CallToolResult", code, stdout, stderr)
	}
	s := res.Meta["dev.bbdigest/decision"]
	if s.Allow || s.Reason != "canceled" || s.Detail != detail {
		t.Errorf("decision %+v, want a deny (canceled): %s", s, detail)
	}
	if !regexp.MustCompile(`\Abbdigest: hint: [^\n]* names no principals: authority is unauthenticated[^\n]*\nbbdigest: decision: deny \(canceled\): ` + regexp.QuoteMeta(detail) + `; receipt ` + strconv.Itoa(seq) + ` sha256:[0-9a-f]{64}\n\z`).MatchString(stderr) {
		t.Errorf("stderr %q", stderr)
	}
	sum, err := receipt.Verify(context.Background(), bytes.NewReader(readAllFile(t, f.receipts)), f.pub, receipt.VerifyOptions{})
	if err != nil || sum.Records != int64(seq) {
		t.Fatalf("receipts: %+v, %v; want %d records", sum, err, seq)
	}
	last := lastLine(readAllFile(t, f.receipts))
	if !bytes.Contains(last, []byte(`"reason":"canceled"`)) || !bytes.Contains(last, []byte(`"detail":"`+detail+`"`)) || !bytes.Contains(last, []byte(`"result":"FAIL"`)) {
		t.Errorf("last receipt %s", last)
	}
}

func readAllFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lastLine returns the last line of b, without its newline.
func lastLine(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return b[bytes.LastIndexByte(b, '\n')+1:]
}

// TestGateTimeout: a host that never closes the gate's stdin gets a deny
// (canceled), receipted, once --timeout has passed, and the gate returns
// as for any deny: exit 0, the CallToolResult on stdout. A call that ends
// in time is decided as always; --timeout 0 waits for the call however
// long it takes; a negative --timeout is a usage error.
func TestGateTimeout(t *testing.T) {
	f := newGateFixture(t)
	search := jsonrpcShape(`{"name":"search","arguments":{}}`)

	var stdout, stderr bytes.Buffer
	code, took := within(t, 10*time.Second, "--timeout 300ms", func() int {
		return run(f.args("--timeout", "300ms"), neverClosed(t, search[:20]), &stdout, &stderr)
	})
	if code == -1 {
		t.FailNow()
	}
	checkLateDeny(t, f, code, stdout.String(), stderr.String(), "stdin", "300ms", 1)
	if took < 300*time.Millisecond || took > 5*time.Second {
		t.Errorf("denied after %v, want soon after 300ms", took)
	}

	// In time: decided as always.
	stdout.Reset()
	stderr.Reset()
	if code := run(f.args("--timeout", "10s"), strings.NewReader(search), &stdout, &stderr); code != exitOK || stdout.Len() != 0 || !strings.Contains(stderr.String(), "allow (policy)") {
		t.Errorf("in time: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}

	// --timeout 0: no bound. The call ends after 300ms and is decided.
	r, w := io.Pipe()
	go func() {
		w.Write([]byte(search[:20]))
		time.Sleep(300 * time.Millisecond)
		w.Write([]byte(search[20:]))
		w.Close()
	}()
	stdout.Reset()
	stderr.Reset()
	if code := run(f.args("--timeout", "0"), r, &stdout, &stderr); code != exitOK || stdout.Len() != 0 || !strings.Contains(stderr.String(), "allow (policy)") {
		t.Errorf("--timeout 0: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}

	stderr.Reset()
	if code := run(f.args("--timeout", "-1s"), strings.NewReader(search), io.Discard, &stderr); code != exitUsage ||
		stderr.String() != "bbdigest: error: gate: negative --timeout -1s\nbbdigest: hint: run 'bbdigest help gate' for usage\n" {
		t.Errorf("--timeout -1s: exit %d, stderr %q", code, stderr.String())
	}
}

// TestGateTimeoutProcess runs the gate as a process (the test binary as
// bbdigest, see childEnv) on a stdin that is never closed, with the default
// --timeout: it must deny, receipted, and exit 0 after 5s, not wait for
// ever.
func TestGateTimeoutProcess(t *testing.T) {
	t.Parallel()
	f := newGateFixture(t)
	cmd := selfexec.Command(f.args()...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close() // never before the child exits
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call",`)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-waited
		t.Fatalf("the gate still waits on a stdin never closed after 30s")
	}
	took := time.Since(start)
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	checkLateDeny(t, f, code, stdout.String(), stderr.String(), "stdin", defaultCallTimeout.String(), 1)
	if took < defaultCallTimeout {
		t.Errorf("denied after %v, before the default --timeout %v", took, defaultCallTimeout)
	}
}
