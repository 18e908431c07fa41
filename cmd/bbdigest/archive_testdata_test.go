package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/archivegen"
	"github.com/klauspost/compress/zstd"
)

// testdataDir holds the shared archives and their expected answers,
// computed with Node by testdata/archive/gen.mjs.
const testdataDir = "../../testdata/archive"

// testdataBound is the lowered --max-record the tests also run with: the
// archives' one long line is longer.
const testdataBound = 4096

// expectedLine is a line of a *.expected.jsonl file.
type expectedLine struct {
	Line    int64          `json:"line"`
	Bytes   int            `json:"bytes"`
	Strict  expectedAnswer `json:"strict"`
	RFC8785 expectedAnswer `json:"rfc8785"`
	byName  map[string]*expectedAnswer
}

// expectedAnswer is what rehash or verify must answer for a line. Pointer
// is nil where the answer states none (an accepted line, a record cut
// short).
type expectedAnswer struct {
	OK      *bool   `json:"ok"`
	Digest  string  `json:"digest"`
	Claimed string  `json:"claimed"`
	Class   string  `json:"class"`
	Pointer *string `json:"pointer"`
}

// readExpected reads testdata/archive/NAME.expected.jsonl.
func readExpected(t *testing.T, name string) []expectedLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, name+".expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var exp []expectedLine
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var e expectedLine
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Line != int64(i+1) {
			t.Fatalf("%s.expected.jsonl line %d: %v", name, i+1, err)
		}
		exp = append(exp, e)
	}
	return exp
}

// want returns the answer expected under profile, with the size bound
// bound (0: the profile's): a line longer is too-large, at the pointer ""
// (the line, unread).
func (e expectedLine) want(profile string, bound int, verify bool) expectedAnswer {
	a := e.Strict
	if profile == "rfc8785" {
		a = e.RFC8785
	}
	if bound > 0 && e.Bytes > bound {
		a = expectedAnswer{Class: "too-large", Pointer: new(string)}
		if verify {
			a.OK = new(bool)
		}
	}
	return a
}

// checkAgainst compares the result lines of a run with the expected
// answers, one per input line.
func checkAgainst(t *testing.T, label, out string, exp []expectedLine, profile string, bound int, verify bool) {
	t.Helper()
	res := decodeResults(t, out)
	if len(res) != len(exp) {
		t.Fatalf("%s: %d result lines for %d input lines", label, len(res), len(exp))
	}
	for i, r := range res {
		w := exp[i].want(profile, bound, verify)
		got := expectedAnswer{OK: r.OK, Digest: r.Digest, Claimed: r.Claimed}
		if r.Error != nil {
			got.Class = r.Error.Class
			if w.Pointer != nil {
				got.Pointer = r.Error.Pointer
			}
		}
		if r.Line != exp[i].Line || deref(got.OK) != deref(w.OK) || got.Digest != w.Digest || got.Claimed != w.Claimed || got.Class != w.Class ||
			derefString(got.Pointer) != derefString(w.Pointer) {
			t.Errorf("%s: line %d: got %+v (ok %v, pointer %v), want %+v (ok %v, pointer %v)",
				label, i+1, got, deref(got.OK), derefString(got.Pointer), w, deref(w.OK), derefString(w.Pointer))
		}
	}
}

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

func derefString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// TestTestdataArchives runs rehash and verify over the archives of
// testdata/archive, plain and compressed, under both profiles, with the
// default bound and a lowered one, and checks every result line against
// the answers computed with Node (class and pointer of each rejection
// stated by construction), one result per input line (blank
// lines, CRLF, invalid UTF-8, duplicate names, big numbers, too deep,
// too large, a missing final newline and a truncated last line among
// them), and that the compressed archives give the output of the plain
// one byte for byte.
func TestTestdataArchives(t *testing.T) {
	for _, tt := range []struct {
		cmd   string
		name  string
		files []string
	}{
		{"rehash", "records", []string{"records.jsonl", "records.jsonl.gz", "records.jsonl.zst"}},
		{"rehash", "truncated", []string{"truncated.jsonl", "truncated.jsonl.gz"}},
		{"verify", "claims", []string{"claims.jsonl", "claims.jsonl.zst"}},
	} {
		exp := readExpected(t, tt.name)
		for _, profile := range []string{"strict", "rfc8785"} {
			for _, bound := range []int{0, testdataBound} {
				var first string
				for _, f := range tt.files {
					for _, workers := range []string{"1", "2", "8"} {
						args := []string{"archive", tt.cmd, "--profile", profile, "--workers", workers}
						if bound > 0 {
							args = append(args, "--max-record", fmt.Sprint(bound))
						}
						out, _, code := archiveCall(t, 0, nil, append(args, filepath.Join(testdataDir, f))...)
						label := fmt.Sprintf("%s %s --profile %s --max-record %d --workers %s", tt.cmd, f, profile, bound, workers)
						if code != exitRejected {
							t.Errorf("%s: exit code %d, want 1", label, code)
						}
						checkAgainst(t, label, out, exp, profile, bound, tt.cmd == "verify")
						if first == "" {
							first = out
						} else if out != first {
							t.Errorf("%s: output differs from %s's", label, tt.files[0])
						}
					}
				}
			}
		}
	}
}

// TestTestdataCompressed checks that the compressed archives of
// testdata/archive decompress to the plain ones.
func TestTestdataCompressed(t *testing.T) {
	for _, f := range []string{"records.jsonl.gz", "records.jsonl.zst", "truncated.jsonl.gz", "claims.jsonl.zst"} {
		plain, err := os.ReadFile(filepath.Join(testdataDir, strings.TrimSuffix(strings.TrimSuffix(f, ".gz"), ".zst")))
		if err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(filepath.Join(testdataDir, f))
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		var r io.Reader
		if strings.HasSuffix(f, ".gz") {
			r, err = gzip.NewReader(file)
		} else {
			var d *zstd.Decoder
			d, err = zstd.NewReader(file)
			r = d
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%s does not decompress to its plain archive (%v)", f, err)
		}
	}
}

// TestTestdataGenerated runs testdata/archive/gen.mjs again, on the same
// realistic records (archive gen --kind mixed --records 80 --seed 15), and
// checks that it makes the committed archives and answers byte for byte:
// the answers the tests use are the script's. It needs Node and the npm
// package canonicalize (npm ci --prefix fuzz/node): skipped without them,
// but failed under CI=true.
func TestTestdataGenerated(t *testing.T) {
	var missing string
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat("../../fuzz/node/node_modules/canonicalize/package.json"); err != nil {
		missing = "the npm package canonicalize is not installed; run `npm ci --prefix fuzz/node`"
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	dir := t.TempDir()
	var base bytes.Buffer
	if err := archivegen.Write(&base, archivegen.Options{Kind: archivegen.Mixed, Records: 80, Seed: 15}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "base.jsonl"), base.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "gen.mjs", filepath.Join(dir, "base.jsonl"), dir)
	cmd.Dir = testdataDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node gen.mjs: %v\n%s", err, out)
	}
	for _, f := range []string{"records.jsonl", "records.expected.jsonl", "truncated.jsonl", "truncated.expected.jsonl", "claims.jsonl", "claims.expected.jsonl"} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(testdataDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("gen.mjs makes another %s than the committed one: run testdata/archive/generate.sh", f)
		}
	}
}
