package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
)

// deployDir holds the Kubernetes manifests of the README, beside the
// command they run.
const deployDir = "kubernetes"

// podScript returns the shell script a manifest's container runs: the
// block scalar after "args:" and "- |", dedented.
func podScript(t *testing.T, manifest string) string {
	t.Helper()
	lines := strings.Split(manifest, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "- |" || i == 0 || strings.TrimSpace(lines[i-1]) != "args:" {
			continue
		}
		var script []string
		indent := -1
		for _, s := range lines[i+1:] {
			n := len(s) - len(strings.TrimLeft(s, " "))
			if strings.TrimSpace(s) != "" && indent < 0 {
				indent = n
			}
			if strings.TrimSpace(s) != "" && n < indent {
				break
			}
			script = append(script, strings.TrimPrefix(s, strings.Repeat(" ", indent)))
		}
		return strings.Join(script, "\n")
	}
	t.Fatal("no args: - | block in the manifest")
	return ""
}

// TestKubernetesManifests runs the commands of kubernetes/, as the
// pods of the Indexed Job and of the join Job would, with sh and with the
// shared volume /data a temporary directory: the 8 shards of a compressed
// testdata archive (JOB_COMPLETION_INDEX 0..7), one of them killed and
// rerun first, then the join. Each pod's command must succeed (rejected
// lines are a finished shard), and rehash.jsonl must be byte for byte the
// unsharded output. It also checks that the Indexed Job's completions,
// parallelism and --shards agree.
func TestKubernetesManifests(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	for _, tool := range []string{"sed", "sha256sum", "cut"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	job, err := os.ReadFile(filepath.Join(deployDir, "indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	join, err := os.ReadFile(filepath.Join(deployDir, "join-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := regexp.MustCompile(`(?m)^  completions: (\d+)$`).FindStringSubmatch(string(job))
	p := regexp.MustCompile(`(?m)^  parallelism: (\d+)$`).FindStringSubmatch(string(job))
	s := regexp.MustCompile(`--shards (\d+) `).FindStringSubmatch(string(job))
	if !strings.Contains(string(job), "\n  completionMode: Indexed\n") || n == nil || p == nil || s == nil || n[1] != p[1] || n[1] != s[1] {
		t.Fatalf("indexed-job.yaml: completionMode Indexed, completions %v, parallelism %v, --shards %v must agree", n, p, s)
	}
	shards, _ := strconv.Atoi(n[1])

	// The volume, and bbdigest on the PATH: this test binary in child mode.
	data := t.TempDir()
	archive, err := os.ReadFile(filepath.Join(testdataDir, "records.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "archive.jsonl.zst"), archive, 0o666); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "bbdigest")); err != nil {
		t.Skip(err)
	}
	run := func(script string, env ...string) (string, error) {
		cmd := exec.Command("sh", "-c", strings.ReplaceAll(script, "/data", data))
		cmd.Env = append(os.Environ(), append(env, childEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	rehash := podScript(t, string(job))
	// A pod of index 2 that was killed part-way: a part cut mid-line,
	// and its sidecar recording the checkpoint at the start.
	if out, err := run(rehash, jobIndexEnv+"=2"); err != nil {
		t.Fatalf("pod 2: %v\n%s", err, out)
	}
	part2 := filepath.Join(data, "out", "part-2.jsonl")
	b, _ := os.ReadFile(part2)
	os.WriteFile(part2, b[:len(b)/2], 0o666)
	var side sidecar
	if b, err := os.ReadFile(part2 + resumeSuffix); err != nil || json.Unmarshal(b, &side) != nil {
		t.Fatalf("pod 2: no sidecar: %v", err)
	}
	side.Results, side.Input, side.InputsSHA256, side.OutputBytes, side.OutputSHA256 = 0, 0, []hashing.Digest{}, 0, emptySHA256
	b, _ = json.Marshal(side)
	os.WriteFile(part2+resumeSuffix, b, 0o666)
	for i := range shards {
		if out, err := run(rehash, jobIndexEnv+"="+strconv.Itoa(i)); err != nil {
			t.Fatalf("pod %d: %v\n%s", i, err, out)
		}
	}
	out, err := run(podScript(t, string(join)))
	if err != nil {
		t.Fatalf("join: %v\n%s", err, out)
	}
	if !strings.Contains(out, "joined "+n[1]+" parts into") || !strings.Contains(out, "archive join exit code 1") {
		t.Errorf("join's log:\n%s", out)
	}
	got, err := os.ReadFile(filepath.Join(data, "out", "rehash.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := archiveCall(t, 0, nil, "archive", "rehash", filepath.Join(data, "archive.jsonl.zst"))
	if string(got) != want {
		t.Errorf("rehash.jsonl (%d bytes) is not the unsharded output (%d bytes)", len(got), len(want))
	}
	// A part that does not match its summary fails the join.
	os.WriteFile(filepath.Join(data, "out", "part-5.jsonl"), []byte("{}\n"), 0o666)
	if out, err := run(podScript(t, string(join))); err == nil || !strings.Contains(out, "part-5.jsonl differs from its summary") {
		t.Errorf("join with a damaged part: %v\n%s", err, out)
	}
}
