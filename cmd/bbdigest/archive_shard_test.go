package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/archivegen"
)

// summaryOf decodes a JSON summary into a map, for comparisons.
func summaryOf(t *testing.T, b string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		t.Fatalf("summary %q: %v", b, err)
	}
	return m
}

// shardInputs are the inputs every split is tried on: a mixed archive
// with every bad-line kind and a last line without "\n", plain, gzip and
// zstd; claims for verify; the edge cases of ranges: an empty file, one
// line, a line longer than most ranges, blank lines only; and the
// archives of testdata/archive, plain and compressed.
func shardInputs(t *testing.T) (dir string, rehash, verify []string) {
	t.Helper()
	dir = t.TempDir()
	mixed := genArchive(t, archivegen.Mixed, 150, 11)
	claims := genArchive(t, archivegen.Claims, 150, 12)
	files := map[string][]byte{
		"mixed.jsonl":     mixed,
		"mixed.jsonl.gz":  gzipBytes(t, mixed, false),
		"mixed.jsonl.zst": zstdBytes(t, mixed),
		"claims.jsonl":    claims,
		"empty.jsonl":     nil,
		"one.jsonl":       []byte(`{"a": 1}`),
		"long.jsonl":      []byte("[1]\n[" + strings.Repeat(" ", 1000) + "2]\n[3]\n"),
		"blank.jsonl":     []byte("\n\n\n"),
	}
	rehash = []string{"mixed.jsonl", "mixed.jsonl.gz", "mixed.jsonl.zst", "empty.jsonl", "one.jsonl", "long.jsonl", "blank.jsonl"}
	verify = []string{"claims.jsonl"}
	// The archives of testdata/archive, plain and compressed.
	for _, f := range []string{"records.jsonl", "records.jsonl.gz", "records.jsonl.zst", "truncated.jsonl.gz", "claims.jsonl.zst"} {
		b, err := os.ReadFile(filepath.Join(testdataDir, f))
		if err != nil {
			t.Fatal(err)
		}
		files["testdata-"+f] = b
		if strings.HasPrefix(f, "claims") {
			verify = append(verify, "testdata-"+f)
		} else {
			rehash = append(rehash, "testdata-"+f)
		}
	}
	writeFiles(t, dir, files, append(rehash, verify...)...)
	return dir, rehash, verify
}

// TestArchiveShards splits every input into 1 to 8 shards and checks,
// for each split, that the shards' outputs concatenated in index order
// are byte-identical to the unsharded output, that their line numbers
// are global, and that archive join of their summaries exits as the
// unsharded run did, with its counts and with the shards' output digests,
// each the SHA-256 (crypto/sha256) of that shard's output.
func TestArchiveShards(t *testing.T) {
	dir, rehash, verify := shardInputs(t)
	for _, cmd := range []string{"rehash", "verify"} {
		inputs := rehash
		if cmd == "verify" {
			inputs = verify
		}
		for _, name := range inputs {
			path := filepath.Join(dir, name)
			full, fullSum, fullCode := archiveCall(t, 150, nil, "archive", cmd, "--json", path)
			want := summaryOf(t, fullSum)
			for n := 1; n <= 8; n++ {
				var cat strings.Builder
				var sums []string
				for i := range n {
					sum := filepath.Join(dir, fmt.Sprintf("%s.%d-%d.json", name, i, n))
					out, stderr, code := archiveCall(t, 150, nil, "archive", cmd, "--shard", fmt.Sprintf("%d/%d", i, n), "--summary", sum, path)
					if code != exitOK && code != exitRejected {
						t.Fatalf("%s %s shard %d/%d: exit code %d, %s", cmd, name, i, n, code, stderr)
					}
					b, err := os.ReadFile(sum)
					if err != nil {
						t.Fatal(err)
					}
					s := summaryOf(t, string(b))
					if d := s["output"].(map[string]any)["sha256"]; d != shaHex(out) {
						t.Errorf("%s %s shard %d/%d: output digest %v, want %s", cmd, name, i, n, d, shaHex(out))
					}
					cat.WriteString(out)
					sums = append(sums, sum)
				}
				if cat.String() != full {
					t.Fatalf("%s %s: %d shards concatenated differ from the unsharded output", cmd, name, n)
				}
				joinOut, joinErr, code := archiveCall(t, 0, nil, append([]string{"archive", "join"}, sums...)...)
				if code != fullCode || joinErr != "" {
					t.Fatalf("%s %s: join of %d shards: exit code %d (unsharded %d), stderr %s", cmd, name, n, code, fullCode, joinErr)
				}
				got := summaryOf(t, joinOut)
				if got["shards"] != float64(n) || len(got["outputs"].([]any)) != n {
					t.Errorf("%s %s: join of %d shards: %s", cmd, name, n, joinOut)
				}
				delete(got, "shards")
				delete(got, "outputs")
				delete(want, "output")
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s %s: join of %d shards:\n%v\nunsharded:\n%v", cmd, name, n, got, want)
				}
			}
		}
	}
}

// TestArchiveShardsResume checks a shard with --out and --resume, killed
// at checkpoints of its output (FILE.resume as the run would record it,
// FILE cut anywhere after): the finished output is the shard's. The
// input hashes of the sidecar cover the bytes before the shard's range.
func TestArchiveShardsResume(t *testing.T) {
	dir, _, _ := shardInputs(t)
	path := filepath.Join(dir, "mixed.jsonl.zst")
	mixed := genArchive(t, archivegen.Mixed, 150, 11) // as shardInputs
	full, fullSum, _ := archiveCall(t, 150, nil, "archive", "rehash", "--json", "--shard", "2/3", path)
	start := int(num(t, fullSum, "inputs", "0", "range", "start"))
	n := strings.Count(full, "\n")
	out := filepath.Join(dir, "out")
	for _, r := range []int{0, 1, n / 3, n / 2, n - 1, n} {
		side := sidecar{Command: "rehash", Profile: "strict", MaxRecord: 150, Shard: "2/3", Inputs: []string{path},
			Results: int64(r), InputsSHA256: []hashing.Digest{}}
		if r > 0 {
			ends := lineEnds(mixed[start:])
			side.OutputBytes = int64(len(strings.Join(strings.SplitAfter(full, "\n")[:r], "")))
			side.InputsSHA256 = append(side.InputsSHA256, sha256.Sum256(mixed[:start+ends[r-1]]))
		}
		side.OutputSHA256 = sha256.Sum256([]byte(full[:side.OutputBytes]))
		b, _ := json.Marshal(side)
		os.WriteFile(out+resumeSuffix, b, 0o666)
		for _, cut := range []int{int(side.OutputBytes), (int(side.OutputBytes) + len(full)) / 2, len(full)} {
			os.WriteFile(out, []byte(full[:cut]), 0o666)
			os.WriteFile(out+resumeSuffix, b, 0o666)
			_, sum, _ := archiveCall(t, 150, nil, "archive", "rehash", "--json", "--shard", "2/3", "--out", out, "--resume", path)
			if got, _ := os.ReadFile(out); string(got) != full || sum != fullSum {
				t.Errorf("%d results kept, cut at %d: output equal %v, summary\n%s\nwant\n%s", r, cut, string(got) == full, sum, fullSum)
			}
		}
	}
}

// num returns the number at path in the JSON object b.
func num(t *testing.T, b string, path ...string) int64 {
	t.Helper()
	var v any = summaryOf(t, b)
	for _, p := range path {
		if p == "0" {
			v = v.([]any)[0]
		} else {
			v = v.(map[string]any)[p]
		}
	}
	return int64(v.(float64))
}

// TestArchiveShardsIndexedJob checks that --shards N takes the index from
// $JOB_COMPLETION_INDEX, as --shard does, and the usage errors.
func TestArchiveShardsIndexedJob(t *testing.T) {
	dir, _, _ := shardInputs(t)
	path := filepath.Join(dir, "mixed.jsonl")
	for i := range 4 {
		t.Setenv(jobIndexEnv, strconv.Itoa(i))
		a, _, _ := archiveCall(t, 150, nil, "archive", "rehash", "--shards", "4", path)
		b, _, _ := archiveCall(t, 150, nil, "archive", "rehash", "--shard", fmt.Sprintf("%d/4", i), path)
		if a != b || a == "" {
			t.Errorf("index %d: --shards 4 and --shard %d/4 differ", i, i)
		}
	}
	hint := "bbdigest: hint: run 'bbdigest help archive' for usage\n"
	for _, tt := range []struct {
		env    string // "unset": not set
		args   []string
		stderr string
	}{
		{"1", []string{"--shard", "1/4", "--shards", "4", path}, "give --shard I/N, or --shards N with $JOB_COMPLETION_INDEX, not both"},
		{"unset", []string{"--shards", "4", path}, "--shards N takes the shard's index from $JOB_COMPLETION_INDEX (set in each pod of a Kubernetes Indexed Job), which is not set"},
		{"4", []string{"--shards", "4", path}, `$JOB_COMPLETION_INDEX is "4", not an index from 0 to 3`},
		{"x", []string{"--shards", "4", path}, `$JOB_COMPLETION_INDEX is "x", not an index from 0 to 3`},
		{"1", []string{"--shards", "-1", path}, "--shards must be 1 or more"},
		{"1", []string{"--shard", "4/4", path}, `--shard must be I/N with 0 <= I < N, as 3/8, not "4/4"`},
		{"1", []string{"--shard", "1", path}, `--shard must be I/N with 0 <= I < N, as 3/8, not "1"`},
		{"1", []string{"--shard", "-1/4", path}, `--shard must be I/N with 0 <= I < N, as 3/8, not "-1/4"`},
		{"1", []string{"--shard", "0/0", path}, `--shard must be I/N with 0 <= I < N, as 3/8, not "0/0"`},
		{"1", []string{"--shard", "0/2"}, "a shard is a share of one FILE's size: give exactly one FILE, not stdin"},
		{"1", []string{"--shard", "0/2", path, path}, "a shard is a share of one FILE's size: give exactly one FILE, not stdin"},
		{"1", []string{"--summary", "-", path}, "--summary needs a file name of its own"},
	} {
		if tt.env == "unset" {
			os.Unsetenv(jobIndexEnv)
		} else {
			t.Setenv(jobIndexEnv, tt.env)
		}
		_, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", "rehash"}, tt.args...)...)
		if want := "bbdigest: error: archive rehash: " + tt.stderr + "\n" + hint; code != exitUsage || stderr != want {
			t.Errorf("%q: exit code %d, stderr\n%s\nwant\n%s", tt.args, code, stderr, want)
		}
	}
}

// TestArchiveJoinRefuses checks that archive join exits 3, naming each
// problem, when its summaries do not cover one input exactly once, in
// order, all complete; and 2 when a SUMMARY cannot be read or is not one.
func TestArchiveJoinRefuses(t *testing.T) {
	dir, _, _ := shardInputs(t)
	mixed := filepath.Join(dir, "mixed.jsonl")
	shards := func(input string, n int, extra ...string) []string {
		var paths []string
		for i := range n {
			p := filepath.Join(dir, fmt.Sprintf("%s.%d-%d%s.sum", filepath.Base(input), i, n, strings.Join(extra, "")))
			archiveCall(t, 150, nil, append(append([]string{"archive", "rehash", "--shard", fmt.Sprintf("%d/%d", i, n), "--summary", p}, extra...), input)...)
			paths = append(paths, p)
		}
		return paths
	}
	four := shards(mixed, 4)
	three := shards(mixed, 3)
	other := shards(filepath.Join(dir, "long.jsonl"), 4)
	rfc := shards(mixed, 4, "--profile", "rfc8785")
	edit := func(name, from, to string) string {
		b, _ := os.ReadFile(four[1])
		p := filepath.Join(dir, name)
		os.WriteFile(p, bytes.Replace(b, []byte(from), []byte(to), 1), 0o666)
		return p
	}
	incomplete := edit("incomplete.sum", `"complete":true`, `"complete":false`)
	var s1 map[string]any
	b, _ := os.ReadFile(four[1])
	json.Unmarshal(b, &s1)
	start := fmt.Sprint(s1["inputs"].([]any)[0].(map[string]any)["range"].(map[string]any)["start"])
	startN, _ := strconv.ParseInt(start, 10, 64)
	gap := edit("gap.sum", `"range":{"start":`+start, `"range":{"start":`+strconv.FormatInt(startN+1, 10))
	notSummary := filepath.Join(dir, "x.sum")
	os.WriteFile(notSummary, []byte(`{"a":1}`), 0o666)
	for _, tt := range []struct {
		name  string
		paths []string
		code  int
		errRE string
	}{
		{"missing", []string{four[0], four[2], four[3]}, exitCoverage, `^bbdigest: error: shard 1 of 4 is missing\n$`},
		{"twice", []string{four[0], four[1], four[1], four[2], four[3]}, exitCoverage, `^bbdigest: error: \S+: shard 1 of 4 again \(also \S+\)\n$`},
		{"other count", []string{four[0], four[1], three[2], four[2], four[3]}, exitCoverage, `^bbdigest: error: \S+: shard 2 of 3, where \S+ is a shard of 4\n$`},
		{"other input", []string{four[0], other[1], four[2], four[3]}, exitCoverage, `^bbdigest: error: \S+long\.jsonl\.1-4\.sum: the input "\S+long\.jsonl" \(none, 1012 bytes\), where \S+ has "\S+mixed\.jsonl" \(none, \d+ bytes\)\n`},
		{"other profile", []string{four[0], rfc[1], four[2], four[3]}, exitCoverage, `^bbdigest: error: \S+: archive rehash --profile rfc8785 --max-record 150, where \S+ has archive rehash --profile strict --max-record 150\n`},
		{"incomplete", []string{four[0], incomplete, four[2], four[3]}, exitCoverage, `^bbdigest: error: \S+incomplete\.sum: shard 1 of 4 is incomplete: its run stopped on an error\n$`},
		{"gap", []string{four[0], gap, four[2], four[3]}, exitCoverage, `^bbdigest: error: \S+gap\.sum: shard 1 of 4 starts at byte \d+, line \d+, where the shards before it end at byte \d+, line \d+\n$`},
		{"not a summary", []string{four[0], notSummary}, exitUsage, `^bbdigest: error: \S+x\.sum: not a summary of archive rehash or verify\n$`},
		{"no file", []string{four[0], filepath.Join(dir, "none")}, exitUsage, `^bbdigest: error: \S+none: open: no such file or directory\n$`},
		{"none", nil, exitUsage, `^bbdigest: error: archive join: no SUMMARY given\n`},
	} {
		out, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", "join"}, tt.paths...)...)
		if code != tt.code || out != "" || !regexpMatch(tt.errRE, stderr) {
			t.Errorf("%s: exit code %d, stdout %q, stderr\n%s", tt.name, code, out, stderr)
		}
	}
	if _, _, code := archiveCall(t, 0, nil, append([]string{"archive", "join"}, four...)...); code != exitRejected {
		t.Errorf("the four shards: exit code %d, want 1 (a line is rejected)", code)
	}
}
