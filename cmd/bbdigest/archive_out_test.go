package main

import (
	"github.com/bbdigest/bbdigest/internal/race"

	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/archivegen"
)

// sidecar is FILE.resume, as package archive writes it (its type there
// is unexported): the tests read it, and write the ones a killed run
// leaves.
type sidecar struct {
	Command      string           `json:"command"`
	Profile      string           `json:"profile"`
	MaxRecord    int64            `json:"max_record"`
	Shard        string           `json:"shard"`
	Inputs       []string         `json:"inputs"`
	Results      int64            `json:"results"`
	Input        int              `json:"input"`
	InputsSHA256 []hashing.Digest `json:"inputs_sha256"`
	OutputBytes  int64            `json:"output_bytes"`
	OutputSHA256 hashing.Digest   `json:"output_sha256"`
}

// emptySHA256 is the SHA-256 of no bytes.
var emptySHA256 = hashing.Digest(sha256.Sum256(nil))

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

// lineEnds returns the offsets of the ends of the lines of b, as batch
// cuts them: after each "\n", and the end of a last line without one.
func lineEnds(b []byte) []int {
	var ends []int
	for i, c := range b {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		ends = append(ends, len(b))
	}
	return ends
}

// sidecarAt returns the FILE.resume a run of cmd over inputs (named as
// given, their JSON Lines data) records at the checkpoint of results
// result lines, full being the run's whole output: what a run killed
// there leaves, whatever FILE holds past that point.
func sidecarAt(t *testing.T, cmd string, maxRecord int64, names []string, data [][]byte, full string, results int) []byte {
	t.Helper()
	side := sidecar{Command: cmd, Profile: "strict", MaxRecord: maxRecord, Inputs: names,
		Results: int64(results), InputsSHA256: []hashing.Digest{}}
	outEnds := lineEnds([]byte(full))
	if results > 0 {
		side.OutputBytes = int64(outEnds[results-1])
		left := results
		for j, d := range data {
			ends := lineEnds(d)
			if left <= len(ends) {
				side.Input = j
				n := 0
				if left > 0 {
					n = ends[left-1]
				}
				side.InputsSHA256 = append(side.InputsSHA256, sha256.Sum256(d[:n]))
				break
			}
			side.InputsSHA256 = append(side.InputsSHA256, sha256.Sum256(d))
			left -= len(ends)
		}
	}
	side.OutputSHA256 = sha256.Sum256([]byte(full[:side.OutputBytes]))
	b, err := json.Marshal(side)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestArchiveResumeCuts leaves FILE and FILE.resume as a run killed at
// many points leaves them (the sidecar at a checkpoint: every line of the
// first 60, 40 random ones, the end; FILE that prefix of the output and
// any part of the rest, cut anywhere) and checks that --resume finishes
// FILE byte-identical to the uninterrupted output, with the same summary
// (the outcomes of the lines kept recounted, the SHA-256 over the whole
// output): rehash and verify, one input and several (plain and
// compressed). It checks that the sidecar a completed run leaves is the
// one of its last checkpoint, that resuming a completed FILE changes
// nothing, and that --out without --resume starts over.
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
	plain := map[string][]byte{"mixed.jsonl": mixed, "mixed.jsonl.zst": mixed, "claims.jsonl.gz": claims, "empty.jsonl": nil, "small.jsonl": []byte("[1]\n[2]\n")}
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
		var data [][]byte
		for _, name := range tt.inputs {
			data = append(data, plain[name])
		}
		full, fullSum, code := archiveCall(t, 150, nil, append([]string{"archive", tt.cmd, "--json"}, paths...)...)
		if code != exitRejected {
			t.Fatalf("%s: exit code %d", tt.name, code)
		}
		out := filepath.Join(dir, "out.jsonl")
		n := strings.Count(full, "\n")
		// A completed run leaves the sidecar of its last checkpoint.
		os.Remove(out + resumeSuffix)
		archiveCall(t, 150, nil, append([]string{"archive", tt.cmd, "--out", out}, paths...)...)
		got, _ := os.ReadFile(out)
		side, _ := os.ReadFile(out + resumeSuffix)
		if string(got) != full || string(side) != string(sidecarAt(t, tt.cmd, 150, paths, data, full, n)) {
			t.Fatalf("%s: --out: output equal %v, sidecar\n%s\nwant\n%s", tt.name, string(got) == full, side, sidecarAt(t, tt.cmd, 150, paths, data, full, n))
		}
		results := []int{n}
		for i := range min(60, n) {
			results = append(results, i)
		}
		for range 40 {
			results = append(results, rng.IntN(n))
		}
		for _, r := range results {
			side := sidecarAt(t, tt.cmd, 150, paths, data, full, r)
			kept := len(strings.Join(strings.SplitAfter(full, "\n")[:r], ""))
			cut := kept + rng.IntN(len(full)-kept+1)
			if err := os.WriteFile(out, []byte(full[:cut]), 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out+resumeSuffix, side, 0o666); err != nil {
				t.Fatal(err)
			}
			stdout, sum, code := archiveCall(t, 150, nil, append([]string{"archive", tt.cmd, "--json", "--out", out, "--resume"}, paths...)...)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if code != exitRejected || stdout != "" || string(got) != full || sum != fullSum {
				t.Fatalf("%s, %d results kept, cut at %d of %d: exit code %d, stdout %q, output equal: %v, summary\n%s\nwant\n%s", tt.name, r, cut, len(full), code, stdout, string(got) == full, sum, fullSum)
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
// an output of this run, leaving it and its sidecar as they are: the
// output of another input (the same number of lines, or one byte of the
// lines answered changed), of other flags, kept lines edited (renumbered,
// not in the format the run writes), a sidecar missing or not matching
// FILE; and the usage errors of --out and --resume.
func TestArchiveResumeRefuses(t *testing.T) {
	dir := t.TempDir()
	good := genArchive(t, archivegen.Claims, 20, 1)
	bad := genArchive(t, archivegen.Claims, 20, 2)
	flip := bytes.Clone(good)
	i := bytes.Index(flip, []byte("tools/call"))
	if i < 0 || i > bytes.IndexByte(flip, '\n') {
		t.Fatal("no tools/call in the first line")
	}
	flip[i] = 'T'
	paths := writeFiles(t, dir, map[string][]byte{"good.jsonl": good, "bad.jsonl": bad, "flip.jsonl": flip, "a.jsonl": []byte("[1]\n[2]\n[3]\n")},
		"good.jsonl", "bad.jsonl", "flip.jsonl", "a.jsonl")
	goodP, badP, flipP, aP := paths[0], paths[1], paths[2], paths[3]
	out := filepath.Join(dir, "y4")
	full, _, code := archiveCall(t, 0, nil, "archive", "verify", goodP)
	if code != exitRejected {
		t.Fatalf("verify of good.jsonl: exit code %d", code)
	}
	n := strings.Count(full, "\n")
	fullLines := strings.SplitAfter(full, "\n")
	half := strings.Join(fullLines[:n/2], "")
	data := [][]byte{good}
	hint := "bbdigest: hint: --resume continues an output of the same command, flags and inputs, with its .resume file; remove both to start over\n"
	sideOf := func(file string, r int) string {
		return string(sidecarAt(t, "verify", 1<<28, []string{goodP}, data, file, r))
	}
	// withLines returns FILE with its kept lines edited, and the sidecar
	// that records them (so that only the lines are wrong).
	withLines := func(edit func(lines []string)) (string, string) {
		lines := append([]string(nil), fullLines[:n/2]...)
		edit(lines)
		file := strings.Join(lines, "")
		return file, sideOf(file, n/2)
	}
	renumbered, renumberedSide := withLines(func(l []string) {
		l[0] = strings.Replace(l[0], `"line":1,`, `"line":2,`, 1)
		l[1] = strings.Replace(l[1], `"line":2,`, `"line":1,`, 1)
	})
	malformed, malformedSide := withLines(func(l []string) { l[0] = `{"LINE":1,"digest":"lol","ok":true}` + "\n" })
	spaced, spacedSide := withLines(func(l []string) { l[0] = strings.Replace(l[0], `{"line":1,`, `{"line": 1,`, 1) })
	for _, tt := range []struct {
		name          string
		content, side string // "-": no sidecar
		args          []string
		errRE         string
	}{
		{"another input", full, sideOf(full, n), []string{"verify", badP},
			`not the output of this run: it answers the inputs "\S+good\.jsonl"`},
		{"another input, same name", half, sideOf(half, n/2), []string{"verify", goodP + ".other"}, `the SHA-256 of the first \d+ bytes read of "\S+good\.jsonl" is sha256:[0-9a-f]{64}, where its \.resume file records sha256:[0-9a-f]{64}: the input is not the one FILE answers\n`},
		{"one byte of the input changed", half, sideOf(half, n/2), []string{"verify", flipP}, `the SHA-256 of the first \d+ bytes read of "\S+good\.jsonl" is sha256:[0-9a-f]{64}, where its \.resume file records sha256:[0-9a-f]{64}: the input is not the one FILE answers\n`},
		{"other flags: profile", half, sideOf(half, n/2), []string{"verify", "--profile", "rfc8785", goodP},
			`not the output of this run: it is the output of archive verify --profile strict --max-record 268435456\n`},
		{"other flags: max-record", half, sideOf(half, n/2), []string{"verify", "--max-record", "100000", goodP},
			`it is the output of archive verify --profile strict --max-record 268435456\n`},
		{"other flags: shard", half, sideOf(half, n/2), []string{"verify", "--shard", "0/1", goodP}, `it is the output of archive verify`},
		{"other command", half, sideOf(half, n/2), []string{"rehash", goodP}, `it is the output of archive verify`},
		{"renumbered", renumbered, renumberedSide, []string{"verify", goodP},
			`not the output of this run: its line 1 is not the result line this run writes there, \{"line":1,"ok":`},
		{"malformed", malformed, malformedSide, []string{"verify", goodP}, `its line 1 is not the result line this run writes there`},
		{"not as written", spaced, spacedSide, []string{"verify", goodP}, `its line 1 is not the result line this run writes there`},
		{"no sidecar", half, "-", []string{"verify", goodP}, `not the output of this run: it has no \.resume file`},
		{"shorter than recorded", half[:len(half)-1], sideOf(half, n/2), []string{"verify", goodP}, `it has \d+ bytes, fewer than the \d+ its \.resume file records`},
		{"prefix changed", strings.Replace(half, `"line":1,`, `"line":7,`, 1), sideOf(half, n/2), []string{"verify", goodP},
			`the SHA-256 of its first \d+ bytes is sha256:[0-9a-f]{64}, where its \.resume file records sha256:[0-9a-f]{64}`},
		{"sidecar with a member in another case", half, strings.Replace(sideOf(half, n/2), `"results"`, `"Results"`, 1), []string{"verify", goodP},
			`not a \.resume file of archive: a member is missing, repeated, unknown, spelled otherwise or of another type`},
		{"sidecar with a member unknown", half, strings.Replace(sideOf(half, n/2), `{`, `{"x":1,`, 1), []string{"verify", goodP}, `not a \.resume file of archive`},
		{"sidecar counting more lines", half, strings.Replace(sideOf(half, n/2), fmt.Sprintf(`"results":%d`, n/2), fmt.Sprintf(`"results":%d`, n/2+1), 1), []string{"verify", goodP},
			`\d+ lines in its first \d+ bytes, where its \.resume file records \d+`},
		{"more lines than the input", "[1]\n", "-", []string{"rehash", aP}, `it has no \.resume file`},
	} {
		args := tt.args
		if strings.HasSuffix(args[len(args)-1], ".other") {
			// The same name, another file: good.jsonl replaced by bad.jsonl.
			args = []string{"verify", goodP}
			defer os.WriteFile(goodP, good, 0o666)
			os.WriteFile(goodP, bad, 0o666)
		} else if args[len(args)-1] == flipP {
			args = []string{"verify", goodP}
			defer os.WriteFile(goodP, good, 0o666)
			os.WriteFile(goodP, flip, 0o666)
		}
		os.Remove(out + resumeSuffix)
		if err := os.WriteFile(out, []byte(tt.content), 0o666); err != nil {
			t.Fatal(err)
		}
		if tt.side != "-" {
			os.WriteFile(out+resumeSuffix, []byte(tt.side), 0o666)
		}
		stdout, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", args[0], "--out", out, "--resume"}, args[1:]...)...)
		os.WriteFile(goodP, good, 0o666)
		got, _ := os.ReadFile(out)
		side, err := os.ReadFile(out + resumeSuffix)
		sideKept := tt.side == "-" && os.IsNotExist(err) || string(side) == tt.side
		if code != exitUsage || stdout != "" || !regexpMatch(`^bbdigest: error: \S+: [^\n]*(`+tt.errRE+`)`, stderr) || !strings.HasSuffix(stderr, hint) || string(got) != tt.content || !sideKept {
			t.Errorf("%s: exit code %d, stdout %q, stderr\n%s\nwant %s\nfile changed: %v, sidecar changed: %v", tt.name, code, stdout, stderr, tt.errRE, string(got) != tt.content, !sideKept)
		}
	}
	// The repro: the output of good.jsonl, resumed over bad.jsonl.
	os.Remove(out)
	os.Remove(out + resumeSuffix)
	if _, _, code := archiveCall(t, 0, nil, "archive", "verify", "--out", out, goodP); code != exitRejected {
		t.Fatalf("verify --out of good.jsonl: exit code %d", code)
	}
	before, _ := os.ReadFile(out)
	_, stderr, code := archiveCall(t, 0, nil, "archive", "verify", "--out", out, "--resume", badP)
	if after, _ := os.ReadFile(out); code != exitUsage || string(after) != string(before) {
		t.Errorf("verify --out --resume of bad.jsonl after good.jsonl: exit code %d, file changed %v, stderr %s", code, string(after) != string(before), stderr)
	}
	// A missing or empty FILE with no sidecar starts the run.
	for _, content := range []string{"", "-"} {
		os.Remove(out + resumeSuffix)
		os.Remove(out)
		if content != "-" {
			os.WriteFile(out, nil, 0o666)
		}
		_, _, code := archiveCall(t, 0, nil, "archive", "verify", "--out", out, "--resume", goodP)
		if got, _ := os.ReadFile(out); code != exitRejected || string(got) != full {
			t.Errorf("no sidecar, FILE %q: exit code %d, output equal %v", content, code, string(got) == full)
		}
	}
	usage := "bbdigest: hint: run 'bbdigest help archive' for usage\n"
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--resume", aP}, "bbdigest: error: archive rehash: --resume needs --out FILE\n" + usage},
		{[]string{"--out", "-", aP}, "bbdigest: error: archive rehash: --out needs a file name; without --out the results go to stdout\n" + usage},
		{[]string{"--out=", aP}, "bbdigest: error: archive rehash: --out needs a file name; without --out the results go to stdout\n" + usage},
		{[]string{"--summary", "", aP}, "bbdigest: error: archive rehash: --summary needs a file name; without --summary the summary goes to stderr\n" + usage},
		{[]string{"--out", aP, aP}, "bbdigest: error: archive rehash: --out " + quote(aP) + " is also an input\n" + usage},
		{[]string{"--out", filepath.Join(dir, "no", "dir"), aP}, "bbdigest: error: " + filepath.Join(dir, "no", "dir") + ": open: no such file or directory\n"},
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
	if race.Enabled {
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
		if run == 60 { // a run loses what it answered after its last sidecar (up to syncEvery, and the fsyncs)
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
		// A resume first answers the kept lines again, which takes longer
		// the more FILE holds. One run in four is killed at a random point
		// from the start, in that check included; the others once FILE has
		// grown (the check is over), so that the runs make progress.
		prev := int64(0)
		if fi, err := os.Stat(out); err == nil {
			prev = fi.Size()
		}
		if rng.IntN(4) == 0 {
			prev = -1
		}
		killed := false
		grown := time.NewTicker(time.Millisecond)
	wait:
		for {
			select {
			case err = <-done:
				break wait
			case <-grown.C:
				if fi, err := os.Stat(out); prev >= 0 && (err != nil || fi.Size() <= prev) {
					continue
				}
				select {
				case err = <-done:
				case <-time.After(time.Duration(10+rng.IntN(200)) * time.Millisecond):
					cmd.Process.Signal(syscall.SIGKILL)
					err = <-done
					killed = true
				}
				break wait
			}
		}
		grown.Stop()
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

// TestArchiveResumeForged checks that --resume refuses kept lines that
// are in the format the run writes but are not what it writes for the
// input, with a sidecar recomputed to match them (FILE's length and
// SHA-256, the number of lines), so that only the lines are wrong: a
// digest changed, a rejection's class changed, the outcomes of two lines
// swapped, and for verify a mismatch made "ok":true. It forges a
// completed output and one killed half way (its kept lines forged, the
// rest of FILE to be computed again), for rehash of one input, verify of
// a gzip input, several inputs (the forged line in an input before the
// checkpoint's) and a shard of a zstd input. Each refusal is exit 2 with
// the first line that differs and the line the run writes there, FILE and
// its sidecar left as they are; the line as written resumes.
func TestArchiveResumeForged(t *testing.T) {
	dir := t.TempDir()
	mixed := genArchive(t, archivegen.Mixed, 200, 21)
	var cb bytes.Buffer
	if err := archivegen.Write(&cb, archivegen.Options{Kind: archivegen.Claims, Records: 200, Seed: 22, Wrong: 10}); err != nil {
		t.Fatal(err)
	}
	claims := cb.Bytes()
	files := map[string][]byte{
		"mixed.jsonl":     mixed,
		"mixed.jsonl.zst": zstdBytes(t, mixed),
		"claims.jsonl.gz": gzipBytes(t, claims, false),
		"small.jsonl":     []byte("[1]\n{\"a\":1,\"a\":2}\n[3]\n"),
	}
	plain := map[string][]byte{"mixed.jsonl": mixed, "mixed.jsonl.zst": mixed, "claims.jsonl.gz": claims, "small.jsonl": files["small.jsonl"]}
	out := filepath.Join(dir, "out.jsonl")
	hint := "bbdigest: hint: --resume continues an output of the same command, flags and inputs, with its .resume file; remove both to start over\n"
	// outcome splits a result line after its line number.
	outcome := func(l string) (string, string) {
		i := strings.Index(l, `"line":`) + len(`"line":`)
		for l[i] >= '0' && l[i] <= '9' {
			i++
		}
		return l[:i], l[i:]
	}
	// find returns the index of the first line that has sub, after i.
	find := func(lines []string, i int, sub string) int {
		for ; i < len(lines); i++ {
			if strings.Contains(lines[i], sub) {
				return i
			}
		}
		t.Fatalf("no result line has %s", sub)
		return -1
	}
	type forgery struct {
		name string
		// edit forges lines and returns the index of the first one
		// changed.
		edit func(lines []string) int
	}
	digest := forgery{"digest changed", func(l []string) int {
		i := find(l, 1, `"digest":"sha256:`)
		j := strings.Index(l[i], `"digest":"sha256:`) + len(`"digest":"sha256:`)
		c := byte('0')
		if l[i][j] == '0' {
			c = '1'
		}
		l[i] = l[i][:j] + string(c) + l[i][j+1:]
		return i
	}}
	class := forgery{"class changed", func(l []string) int {
		i := find(l, 1, `"class":"`)
		to := `"class":"syntax"`
		if strings.Contains(l[i], to) {
			to = `"class":"depth"`
		}
		j := strings.Index(l[i], `"class":"`)
		k := j + len(`"class":"`) + strings.IndexByte(l[i][j+len(`"class":"`):], '"') + 1
		l[i] = l[i][:j] + to + l[i][k:]
		return i
	}}
	swap := forgery{"outcomes swapped", func(l []string) int {
		// A rejection (or a mismatch) and the next line accepted.
		i := 1
		for ; i < len(l) && !strings.Contains(l[i], `"class":"`) && !strings.Contains(l[i], `"claimed":"`); i++ {
		}
		j := i + 1
		for ; j < len(l) && (strings.Contains(l[j], `"class":"`) || strings.Contains(l[j], `"claimed":"`)); j++ {
		}
		if j >= len(l) {
			t.Fatal("no rejection followed by a line accepted")
		}
		hi, oi := outcome(l[i])
		hj, oj := outcome(l[j])
		l[i], l[j] = hi+oj, hj+oi
		return i
	}}
	madeOK := forgery{"mismatch made ok", func(l []string) int {
		i := find(l, 0, `"claimed":"`)
		h, o := outcome(l[i])
		d := o[strings.Index(o, `"digest":"`)+len(`"digest":"`):]
		l[i] = h + `,"ok":true,"digest":"` + d[:hashing.DigestTextLen] + "\"}\n"
		return i
	}}
	// Every mismatch made ok: the forged output says that the archive
	// verifies (exit 0 where the kept lines are trusted).
	allOK := forgery{"every mismatch made ok", func(l []string) int {
		first := -1
		for i := range l {
			if strings.Contains(l[i], `"claimed":"`) {
				h, o := outcome(l[i])
				d := o[strings.Index(o, `"digest":"`)+len(`"digest":"`):]
				l[i] = h + `,"ok":true,"digest":"` + d[:hashing.DigestTextLen] + "\"}\n"
				if first < 0 {
					first = i
				}
			}
		}
		return first
	}}
	for _, tt := range []struct {
		name    string
		cmd     string
		flags   []string
		inputs  []string
		forgery []forgery
		half    bool // also forge a run killed half way (sidecarAt: no shard)
	}{
		{"rehash", "rehash", nil, []string{"mixed.jsonl"}, []forgery{digest, class, swap}, true},
		{"verify", "verify", nil, []string{"claims.jsonl.gz"}, []forgery{digest, swap, madeOK, allOK}, true},
		{"several", "rehash", nil, []string{"mixed.jsonl", "small.jsonl", "mixed.jsonl.zst"}, []forgery{digest, class, swap}, true},
		{"shard", "rehash", []string{"--shard", "1/3"}, []string{"mixed.jsonl.zst"}, []forgery{digest, class, swap}, false},
	} {
		paths := writeFiles(t, dir, files, tt.inputs...)
		var data [][]byte
		for _, name := range tt.inputs {
			data = append(data, plain[name])
		}
		args := append(append([]string{"archive", tt.cmd}, tt.flags...), "--out", out)
		os.Remove(out + resumeSuffix)
		if _, _, code := archiveCall(t, 0, nil, append(args, paths...)...); code != exitRejected {
			t.Fatalf("%s: --out: exit code %d", tt.name, code)
		}
		fullB, _ := os.ReadFile(out)
		sideB, _ := os.ReadFile(out + resumeSuffix)
		full := string(fullB)
		fullLines := strings.SplitAfter(full, "\n")
		fullLines = fullLines[:len(fullLines)-1]
		n := len(fullLines)
		for _, f := range tt.forgery {
			for _, half := range []bool{false, true} {
				if half && !tt.half {
					continue
				}
				lines := append([]string(nil), fullLines...)
				first := f.edit(lines)
				forged := strings.Join(lines, "")
				var side []byte
				if half {
					// Killed with the forged line among the kept ones,
					// and FILE holding part of the rest.
					kept := max(first+1, n/2)
					side = sidecarAt(t, tt.cmd, 1<<28, paths, data, forged, kept)
					forged = strings.Join(lines[:kept], "") + strings.Join(fullLines[kept:kept+(n-kept)/2], "")
				} else {
					var s sidecar
					if err := json.Unmarshal(sideB, &s); err != nil {
						t.Fatal(err)
					}
					s.OutputBytes, s.OutputSHA256 = int64(len(forged)), sha256.Sum256([]byte(forged))
					side, _ = json.Marshal(s)
				}
				os.WriteFile(out, []byte(forged), 0o666)
				os.WriteFile(out+resumeSuffix, side, 0o666)
				stdout, stderr, code := archiveCall(t, 0, nil, append(append(args, "--resume"), paths...)...)
				got, _ := os.ReadFile(out)
				gotSide, _ := os.ReadFile(out + resumeSuffix)
				want := fmt.Sprintf("bbdigest: error: %s: not the output of this run: its line %d is not the result line this run writes there, %s\n",
					fileField(out), first+1, strings.TrimSuffix(fullLines[first], "\n")) + hint
				if code != exitUsage || stdout != "" || stderr != want || string(got) != forged || !bytes.Equal(gotSide, side) {
					t.Errorf("%s, %s, half %v: exit code %d, stdout %q, stderr\n%s\nwant\n%s\nfile changed %v, sidecar changed %v",
						tt.name, f.name, half, code, stdout, stderr, want, string(got) != forged, !bytes.Equal(gotSide, side))
				}
			}
		}
		// The output as written resumes, and stays as it is.
		os.WriteFile(out, fullB, 0o666)
		os.WriteFile(out+resumeSuffix, sideB, 0o666)
		if _, stderr, code := archiveCall(t, 0, nil, append(append(args, "--resume"), paths...)...); code != exitRejected {
			t.Errorf("%s: --resume of the output as written: exit code %d, stderr %s", tt.name, code, stderr)
		}
		if got, _ := os.ReadFile(out); string(got) != full {
			t.Errorf("%s: --resume of the output as written changed it", tt.name)
		}
	}
}
