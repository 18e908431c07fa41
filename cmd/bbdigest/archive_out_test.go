package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/archivegen"
)

// genArchive returns a generated archive of kind with a line of every bad
// kind spread among its records, and a last line without "\n".
func genArchive(t testing.TB, kind archivegen.Kind, records int64, seed uint64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := archivegen.Write(&b, archivegen.Options{Kind: kind, Records: records, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b.Bytes(), []byte("\n"))
	var out []byte
	for i, l := range lines {
		out = append(out, l...)
		if i%(len(lines)/len(badArchive)+1) == 3 {
			out = append(out, badArchive[i%len(badArchive)].line+"\n"...)
		}
	}
	return append(out, `{"cut": "short`...)
}

// writeFiles writes files into dir and returns their paths, in order.
func writeFiles(t testing.TB, dir string, files map[string][]byte, order ...string) []string {
	t.Helper()
	var paths []string
	for _, name := range order {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, files[name], 0o666); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestArchiveResumeCuts cuts the output of a run at many points (every
// byte of its first 150, 40 random ones, its end), as a killed run leaves
// it, and checks that --resume finishes it byte-identical to the
// uninterrupted output, with the same summary (the outcomes of the lines
// read back recounted, the SHA-256 over the whole output): rehash and
// verify, one input and several (plain and compressed), and --out without
// --resume, which starts over.
func TestArchiveResumeCuts(t *testing.T) {
	dir := t.TempDir()
	mixed := genArchive(t, archivegen.Mixed, 300, 4)
	claims := genArchive(t, archivegen.Claims, 300, 5)
	files := map[string][]byte{
		"mixed.jsonl":     mixed,
		"mixed.jsonl.zst": zstdBytes(t, mixed),
		"claims.jsonl.gz": gzipBytes(t, claims, false),
		"empty.jsonl":     nil,
		"small.jsonl":     []byte("[1]\n[2]\n"),
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for _, tt := range []struct {
		name   string
		cmd    string
		inputs []string
	}{
		{"rehash", "rehash", []string{"mixed.jsonl"}},
		{"verify", "verify", []string{"claims.jsonl.gz"}},
		{"several", "rehash", []string{"small.jsonl", "empty.jsonl", "mixed.jsonl.zst", "small.jsonl"}},
	} {
		paths := writeFiles(t, dir, files, tt.inputs...)
		full, fullSum, code := archiveCall(t, 150, nil, append([]string{"archive", tt.cmd, "--json"}, paths...)...)
		if code != exitRejected {
			t.Fatalf("%s: exit code %d", tt.name, code)
		}
		cuts := []int{len(full)}
		for i := range min(150, len(full)) {
			cuts = append(cuts, i)
		}
		for range 40 {
			cuts = append(cuts, rng.IntN(len(full)))
		}
		out := filepath.Join(dir, "out.jsonl")
		for _, cut := range cuts {
			if err := os.WriteFile(out, []byte(full[:cut]), 0o666); err != nil {
				t.Fatal(err)
			}
			stdout, sum, code := archiveCall(t, 150, nil, append([]string{"archive", tt.cmd, "--json", "--out", out, "--resume"}, paths...)...)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if code != exitRejected || stdout != "" || string(got) != full || sum != fullSum {
				t.Fatalf("%s, cut at %d of %d: exit code %d, stdout %q, output equal: %v, summary\n%s\nwant\n%s", tt.name, cut, len(full), code, stdout, string(got) == full, sum, fullSum)
			}
		}
		// Without --resume, --out starts over.
		if err := os.WriteFile(out, []byte(full[:len(full)/2]+"garbage"), 0o666); err != nil {
			t.Fatal(err)
		}
		archiveCall(t, 150, nil, append([]string{"archive", tt.cmd, "--out", out}, paths...)...)
		if got, _ := os.ReadFile(out); string(got) != full {
			t.Errorf("%s: --out without --resume does not start over", tt.name)
		}
	}
}

// TestArchiveResumeRefuses checks that --resume refuses a FILE that is not
// an output of this run, leaving it as it is, and the usage errors of
// --out and --resume.
func TestArchiveResumeRefuses(t *testing.T) {
	dir := t.TempDir()
	paths := writeFiles(t, dir, map[string][]byte{"a.jsonl": []byte("[1]\n[2]\n[3]\n"), "b.jsonl": []byte("[1]\n")}, "a.jsonl", "b.jsonl")
	a, b := paths[0], paths[1]
	out := filepath.Join(dir, "out.jsonl")
	rehashA, _, _ := archiveCall(t, 0, nil, "archive", "rehash", a)
	both, _, _ := archiveCall(t, 0, nil, "archive", "rehash", a, b)
	hint := "bbdigest: hint: --resume continues an output of the same command, flags and inputs; remove the file to start over\n"
	for _, tt := range []struct {
		name    string
		content string
		args    []string
		stderr  string
	}{
		{"more lines than the input", rehashA, []string{"rehash", b},
			"bbdigest: error: " + out + ": not the output of this run: it holds 3 result lines, and the input has 1 lines\n" + hint},
		{"another input", rehashA[:strings.Index(rehashA, "\n")+1], []string{"rehash", a, b},
			"bbdigest: error: " + out + `: line 1: "file" is there with one input, or missing with several` + "\n" + hint},
		{"another order", both[:len(both)-1], []string{"rehash", b, a},
			"bbdigest: error: " + out + `: not the output of this run: its last result line answers "` + a + `" line 3, where this run has line 2 of "` + a + `"` + "\n" + hint},
		{"rehash output to verify", rehashA, []string{"verify", a},
			"bbdigest: error: " + out + ": line 1: not a result line of archive verify\n" + hint},
		{"not JSON", "hello\n", []string{"rehash", a},
			"bbdigest: error: " + out + ": line 1: not a result line of archive\n" + hint},
		{"no line number", `{"digest":"x"}` + "\n", []string{"rehash", a},
			"bbdigest: error: " + out + `: line 1: no "line" number` + "\n" + hint},
		{"a long line", strings.Repeat(" ", maxResultLine+1) + "\n", []string{"rehash", a},
			"bbdigest: error: " + out + ": line 1 is longer than a result line\n" + hint},
	} {
		if err := os.WriteFile(out, []byte(tt.content), 0o666); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", tt.args[0], "--out", out, "--resume"}, tt.args[1:]...)...)
		got, _ := os.ReadFile(out)
		if code != exitUsage || stdout != "" || stderr != tt.stderr || string(got) != tt.content {
			t.Errorf("%s: exit code %d, stdout %q, stderr\n%s\nwant\n%s\nfile changed: %v", tt.name, code, stdout, stderr, tt.stderr, string(got) != tt.content)
		}
	}
	usage := "bbdigest: hint: run 'bbdigest help archive' for usage\n"
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--resume", a}, "bbdigest: error: archive rehash: --resume needs --out FILE\n" + usage},
		{[]string{"--out", "-", a}, "bbdigest: error: archive rehash: --out needs a file name; without --out the results go to stdout\n" + usage},
		{[]string{"--out=", a}, "bbdigest: error: archive rehash: --out needs a file name; without --out the results go to stdout\n" + usage},
		{[]string{"--summary", "", a}, "bbdigest: error: archive rehash: --summary needs a file name; without --summary the summary goes to stderr\n" + usage},
		{[]string{"--out", a, a}, "bbdigest: error: archive rehash: --out " + quote(a) + " is also an input\n" + usage},
		{[]string{"--out", filepath.Join(dir, "no", "dir"), a}, "bbdigest: error: " + filepath.Join(dir, "no", "dir") + ": open: no such file or directory\n"},
	} {
		_, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", "rehash"}, tt.args...)...)
		if code != exitUsage || stderr != tt.stderr {
			t.Errorf("%q: exit code %d, stderr\n%s\nwant\n%s", tt.args, code, stderr, tt.stderr)
		}
	}
}

// TestArchiveResumeKill runs archive rehash --out FILE --resume in a child
// process (the test binary run as bbdigest), kills it with SIGKILL at
// random moments, checking each time that FILE holds a prefix of the
// output, and resumes it until a run finishes: FILE must then equal the
// output of an uninterrupted run. The input comes on stdin: the lines
// FILE already answers at once, the others at about 16 MB/s, so that each
// run lasts long enough to be killed at any point of it.
func TestArchiveResumeKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs child processes for a few seconds")
	}
	if raceEnabled {
		t.Skip("-race: the child process is too slow to finish between kills")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	plain := genArchive(t, archivegen.Mixed, 20000, 6)
	full, _, _ := archiveCall(t, 150, bytes.NewReader(plain), "archive", "rehash")
	out := filepath.Join(dir, "out.jsonl")
	kills, cut, answered := 0, 0, 0
	for run := 0; ; run++ {
		if run == 30 {
			t.Fatalf("no run finished in %d runs", run)
		}
		cmd := exec.Command(os.Args[0], "archive", "rehash", "--out", out, "--resume")
		cmd.Env = append(os.Environ(), childEnv+"=1", maxSizeEnv+"=150")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		fast := 0 // the lines answered go at once
		for range answered {
			fast += bytes.IndexByte(plain[fast:], '\n') + 1
		}
		go func() { // the rest at about 16 MB/s; fails once the child is killed
			defer stdin.Close()
			if _, err := stdin.Write(plain[:fast]); err != nil {
				return
			}
			for b := plain[fast:]; len(b) > 0; b = b[min(len(b), 32<<10):] {
				if _, err := stdin.Write(b[:min(len(b), 32<<10)]); err != nil {
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
		}()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		killed := false
		select {
		case err = <-done:
		case <-time.After(time.Duration(10+rng.IntN(200)) * time.Millisecond):
			cmd.Process.Signal(syscall.SIGKILL)
			err = <-done
			killed = true
		}
		got, rerr := os.ReadFile(out)
		if rerr != nil && !os.IsNotExist(rerr) {
			t.Fatal(rerr)
		}
		answered = bytes.Count(got, []byte("\n"))
		if !strings.HasPrefix(full, string(got)) {
			t.Fatalf("run %d: FILE (%d bytes) is not a prefix of the output", run, len(got))
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); killed && ok && ws.Signaled() {
			kills++
			if len(got) > 0 && got[len(got)-1] != '\n' {
				cut++
			}
			t.Logf("run %d: killed with %d of %d bytes written", run, len(got), len(full))
			continue
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitRejected {
			t.Fatalf("run %d: %v, stderr %s", run, err, stderr.String())
		}
		if string(got) != full {
			t.Fatalf("run %d finished: FILE differs from the uninterrupted output", run)
		}
		break
	}
	t.Logf("%d kills, %d of them in the middle of a line", kills, cut)
	if kills < 2 {
		t.Errorf("only %d runs were killed: the input is too small to test resuming", kills)
	}
}
