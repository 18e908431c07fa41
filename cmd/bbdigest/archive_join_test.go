package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/archivegen"
)

// TestArchiveJoinInputHash checks that archive join refuses the shards
// of runs that read different bytes of "the same" input (same name, same
// size, one letter changed inside shard 0's range in the copy shard 1
// read), where verify of the changed copy fails; that the joined summary
// carries the SHA-256 of the whole input, as an unsharded run's does; and
// that shards run with another --max-record are refused.
func TestArchiveJoinInputHash(t *testing.T) {
	dir := t.TempDir()
	good := genArchive(t, archivegen.Claims, 40, 1)
	i := bytes.Index(good, []byte("tools/call"))
	if i < 0 || int64(i) >= int64(len(good))/2 {
		t.Fatalf("no \"tools/call\" in the first half of the archive (at %d of %d)", i, len(good))
	}
	flipped := bytes.Clone(good)
	flipped[i] = 'T'
	gdir, fdir := filepath.Join(dir, "g"), filepath.Join(dir, "f")
	os.Mkdir(gdir, 0o777)
	os.Mkdir(fdir, 0o777)
	writeFiles(t, gdir, map[string][]byte{"a.jsonl": good}, "a.jsonl")
	writeFiles(t, fdir, map[string][]byte{"a.jsonl": flipped}, "a.jsonl")
	shard := func(path, spec, sum string, extra ...string) string {
		p := filepath.Join(dir, sum)
		args := append([]string{"archive", "verify", "--shard", spec, "--summary", p}, extra...)
		if _, stderr, code := archiveCall(t, 0, nil, append(args, path)...); code != exitOK && code != exitRejected {
			t.Fatalf("%s %s: exit code %d, %s", spec, path, code, stderr)
		}
		return p
	}
	// Run from the input's directory, so that both name it "a.jsonl".
	t.Chdir(gdir)
	g0 := shard("a.jsonl", "0/2", "g0.json")
	g1 := shard("a.jsonl", "1/2", "g1.json")
	m1 := shard("a.jsonl", "1/2", "m1.json", "--max-record", "100000")
	_, wholeSum, wholeCode := archiveCall(t, 0, nil, "archive", "verify", "--json", "a.jsonl")
	t.Chdir(fdir)
	f1 := shard("a.jsonl", "1/2", "f1.json")
	if _, _, code := archiveCall(t, 0, nil, "archive", "verify", "a.jsonl"); code != exitRejected {
		t.Fatalf("verify of the changed copy: exit code %d, want 1", code)
	}

	out, stderr, code := archiveCall(t, 0, nil, "archive", "join", g0, f1)
	if code != exitCoverage || out != "" || !regexpMatch(`^bbdigest: error: \S+f1\.json: shard 1 of 2 read other bytes before its range than the shards before it: the SHA-256 of the input's bytes \[0, \d+\) is sha256:[0-9a-f]{64} there, sha256:[0-9a-f]{64} for the shards before it \(the input differs between the runs\)\n$`, stderr) {
		t.Errorf("join of shards of two different inputs: exit code %d, stdout %q, stderr\n%s", code, out, stderr)
	}

	out, stderr, code = archiveCall(t, 0, nil, "archive", "join", g0, g1)
	if code != wholeCode || stderr != "" {
		t.Fatalf("join of the good shards: exit code %d (unsharded %d), stderr %s", code, wholeCode, stderr)
	}
	got, want := summaryOf(t, out)["inputs"], summaryOf(t, wholeSum)["inputs"]
	r := got.([]any)[0].(map[string]any)["range"].(map[string]any)
	if r["end_sha256"] != shaHex(string(good)) || r["start_sha256"] != shaHex("") || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("joined inputs\n%v\nunsharded\n%v\nwant end_sha256 %s", got, want, shaHex(string(good)))
	}

	_, stderr, code = archiveCall(t, 0, nil, "archive", "join", g0, m1)
	if code != exitCoverage || !regexpMatch(`^bbdigest: error: \S+m1\.json: archive verify --profile strict --max-record 100000, where \S+g0\.json has archive verify --profile strict --max-record 268435456\n$`, stderr) {
		t.Errorf("join with another --max-record: exit code %d, stderr\n%s", code, stderr)
	}
}

// TestArchiveJoinEdited checks that archive join refuses summaries whose
// counts or ranges were edited into ones no run writes (exit 3), and
// summaries not in the exact form rehash and verify write: a member
// spelled in another case, repeated, unknown or missing (exit 2). Every
// edit here was accepted before join checked them.
func TestArchiveJoinEdited(t *testing.T) {
	dir, _, _ := shardInputs(t)
	var sums [2][]string
	var parsed [2][]string
	for k, cmd := range []string{"rehash", "verify"} {
		input := filepath.Join(dir, []string{"mixed.jsonl", "claims.jsonl"}[k])
		for i := range 3 {
			p := filepath.Join(dir, fmt.Sprintf("%s.%d.sum", cmd, i))
			archiveCall(t, 150, nil, "archive", cmd, "--shard", fmt.Sprintf("%d/3", i), "--summary", p, input)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sums[k] = append(sums[k], p)
			parsed[k] = append(parsed[k], string(b))
		}
		if _, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", "join"}, sums[k]...)...); code != exitRejected {
			t.Fatalf("%s: join of the shards as written: exit code %d, %s", cmd, code, stderr)
		}
	}
	// replace edits one shard's summary: each pair of from, to once.
	replace := func(k, shard int, name string, pairs ...string) []string {
		b, _ := os.ReadFile(sums[k][shard])
		for j := 0; j < len(pairs); j += 2 {
			if !bytes.Contains(b, []byte(pairs[j])) {
				t.Fatalf("%s: no %s in %s", name, pairs[j], b)
			}
			b = bytes.Replace(b, []byte(pairs[j]), []byte(pairs[j+1]), 1)
		}
		p := filepath.Join(dir, name+".sum")
		os.WriteFile(p, b, 0o666)
		paths := slicesClone(sums[k])
		paths[shard] = p
		return paths
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	s1 := parsed[0][1]
	acc, rej, recs := num(t, s1, "accepted"), num(t, s1, "rejected"), num(t, s1, "records")
	if rej < 1 {
		t.Fatal("shard 1 of 3 of the mixed archive has no line rejected")
	}
	var class string
	for name := range summaryOf(t, s1)["classes"].(map[string]any) {
		class = name
		break
	}
	classN := num(t, s1, "classes", class)
	v1 := parsed[1][1]
	vrecs, vlines, vfailed := num(t, v1, "records"), num(t, v1, "inputs", "0", "lines"), num(t, v1, "failed")
	end0 := num(t, parsed[0][0], "inputs", "0", "range", "end")
	end1 := num(t, s1, "inputs", "0", "range", "end")
	lines1 := num(t, s1, "inputs", "0", "lines")

	// Shard 1 made to start past its end, shard 0 made to end there:
	// the ranges still follow one another.
	backwards := replace(0, 1, "backwards", `"start":`+itoa(end0)+",", `"start":`+itoa(end1+1)+",")
	b0, _ := os.ReadFile(sums[0][0])
	os.WriteFile(backwards[0]+".0", bytes.Replace(b0, []byte(`"end":`+itoa(end0)+","), []byte(`"end":`+itoa(end1+1)+","), 1), 0o666)
	backwards[0] += ".0"

	for _, tt := range []struct {
		name  string
		paths []string
		errRE string
	}{
		{"negative", replace(0, 1, "negative", `"accepted":`+itoa(acc), `"accepted":`+itoa(acc+rej+1), `"rejected":`+itoa(rej), `"rejected":-1`),
			`a negative count: \d+ lines, \d+ records, \d+ \+ -1 outcomes, \d+ output bytes`},
		{"negative records", replace(0, 1, "negrecords", `"records":`+itoa(recs), `"records":-1`, `"lines":`+itoa(lines1), `"lines":-1`, `"accepted":`+itoa(acc), `"accepted":`+itoa(-1-rej)),
			`a negative count: -1 lines, -1 records, -\d+ \+ \d+ outcomes`},
		{"backwards", backwards, `the range \[\d+, \d+\) of an input of \d+ bytes`},
		{"classes", replace(0, 1, "classes", `"`+class+`":`+itoa(classN), `"`+class+`":`+itoa(classN+1)),
			`its classes (do not add up to the \d+ records rejected: "[a-z-]+" \d+|add up to \d+, not to the \d+ records rejected)`},
		{"classes short", replace(0, 1, "classesshort", `"`+class+`":`+itoa(classN), `"`+class+`":`+itoa(classN-1)),
			`its classes (do not add up to the \d+ records rejected: "[a-z-]+" \d+|add up to \d+, not to the \d+ records rejected)`},
		{"verify classes", replace(1, 1, "vclasses", `"records":`+itoa(vrecs), `"records":`+itoa(vrecs+1), `"lines":`+itoa(vlines), `"lines":`+itoa(vlines+1), `"failed":`+itoa(vfailed), `"failed":`+itoa(vfailed+1)),
			`its classes add up to \d+, not to the \d+ records failed`},
		{"lines", replace(0, 1, "lines", `"lines":`+itoa(lines1), `"lines":`+itoa(lines1+1)),
			`its counts do not add up: \d+ lines, \d+ records`},
		{"outcomes", replace(0, 1, "outcomes", `"accepted":`+itoa(acc), `"accepted":`+itoa(acc+1)),
			`its counts do not add up: \d+ lines, \d+ records, \d+ \+ \d+ outcomes`},
	} {
		out, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", "join"}, tt.paths...)...)
		if code != exitCoverage || out != "" || !regexpMatch(`^bbdigest: error: \S+: (`+tt.errRE+`)[^\n]*\n$`, stderr) {
			t.Errorf("%s: exit code %d, stdout %q, stderr\n%s", tt.name, code, out, stderr)
		}
	}

	// A summary of one shard of far more than join makes room for: the
	// counts in words that agree with them.
	one := replace(0, 0, "onecount", `"count":3`, `"count":100000`)[:1]
	if out, stderr, code := archiveCall(t, 0, nil, "archive", "join", one[0]); code != exitCoverage || out != "" || stderr != "bbdigest: error: 1 summary, for 100000 shards\n" {
		t.Errorf("one summary of 100000 shards: exit code %d, stdout %q, stderr %q", code, out, stderr)
	}

	notAsWritten := `not a summary of archive rehash or verify as they write it: a member is missing, repeated, unknown, spelled otherwise or of another type`
	for _, tt := range []struct {
		name  string
		paths []string
	}{
		{"case", replace(0, 1, "case", `"records":`, `"RECORDS":`)},
		{"case nested", replace(0, 1, "casenested", `"first_line":`, `"First_Line":`)},
		{"repeated", replace(0, 1, "repeated", `"records":`+itoa(recs)+",", `"records":-5,"records":`+itoa(recs)+",")},
		{"unknown", replace(0, 1, "unknown", `"complete":true`, `"complete":true,"skipped":99`)},
		{"no hash", replace(0, 1, "nohash", `,"start_sha256":"`, `,"x":"`)},
		{"string count", replace(0, 1, "string", `"records":`+itoa(recs), `"records":"`+itoa(recs)+`"`)},
		{"both pairs", replace(0, 1, "pairs", `"complete":true`, `"complete":true,"ok":0`)},
	} {
		out, stderr, code := archiveCall(t, 0, nil, append([]string{"archive", "join"}, tt.paths...)...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, "bbdigest: error: ") || !strings.Contains(stderr, "not a summary of archive rehash or verify") {
			t.Errorf("%s: exit code %d, stdout %q, stderr\n%s", tt.name, code, out, stderr)
		} else if tt.name != "repeated" && tt.name != "string count" && tt.name != "both pairs" && !strings.Contains(stderr, notAsWritten) {
			t.Errorf("%s: stderr\n%s\nwant %s", tt.name, stderr, notAsWritten)
		}
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
