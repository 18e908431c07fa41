package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// FuzzArchiveShards holds the input paths of archive rehash and verify
// to one another, in process (cli.main) on files: the same JSON Lines,
// plain, gzip (in one member or two) and zstd, give byte for byte the
// same output and exit code; and for N from 1 to 8, the outputs of
// --shard 0/N to N-1/N of the plain file, concatenated in index order,
// are the unsharded output, whatever the split points floor(S*I/N) fall
// on (inside a line, on a "\n", inside a multi-byte character), and the
// shards exit with a rejection exactly when the whole run does. The
// shards of one N, chosen by the input, are checked on the compressed
// files too (whose size a shard measures by decompressing them). A size
// bound from the input (0: none) lowers every record's bound, so
// too-large lines occur.
func FuzzArchiveShards(f *testing.F) {
	claim := func(doc string) string {
		c, err := canon.Canonicalize([]byte(doc), canon.Strict)
		if err != nil {
			f.Fatal(err)
		}
		return `{"digest":"` + hashing.Sum(c).String() + `","doc":` + doc + `}`
	}
	var bad []string
	for _, l := range badArchive {
		if len(l.line) < 100 {
			bad = append(bad, l.line)
		}
	}
	f.Add([]byte(strings.Join(bad[:8], "\n")), false, uint16(0), false)
	f.Add([]byte(strings.Join(bad[8:], "\n")+"\n"), false, uint16(150), true)
	f.Add([]byte("[1]\n["+strings.Repeat(" ", 40)+"2]\n[3]\n"), false, uint16(30), false)
	f.Add([]byte("\n\n\n"), false, uint16(0), true)
	f.Add([]byte(`{"é":"東京😀"}`+"\n"+`"\u00e9\ud83d\ude00"`), false, uint16(7), false)
	f.Add([]byte(claim(`{"b":1,"a":"é"}`)+"\n"+claim(`[1,2]`)+"\n"+`{"digest":"sha256:00","doc":1}`), true, uint16(0), false)
	f.Add([]byte(claim(`"x"`)+"\r\n"+`{"doc":{"a":1},"digest":"`+hashing.Sum([]byte(`{"a":2}`)).String()+`"}`+"\n"), true, uint16(120), true)
	dir := f.TempDir()
	plain := filepath.Join(dir, "in.jsonl")
	gz := filepath.Join(dir, "in.jsonl.gz")
	zst := filepath.Join(dir, "in.jsonl.zst")
	f.Fuzz(func(t *testing.T, in []byte, verify bool, maxSize uint16, twoMembers bool) {
		cmd := "rehash"
		if verify {
			cmd = "verify"
		}
		bound := int(maxSize % 512) // 0: the profile's own bound
		for name, b := range map[string][]byte{plain: in, gz: gzipBytes(t, in, twoMembers), zst: zstdBytes(t, in)} {
			if err := os.WriteFile(name, b, 0o666); err != nil {
				t.Fatal(err)
			}
		}
		run := func(args ...string) (string, int) {
			out, stderr, code := archiveCall(t, bound, nil, append([]string{"archive", cmd}, args...)...)
			if code != exitOK && code != exitRejected {
				t.Fatalf("%q: archive %s %v: exit code %d, %s", in, cmd, args, code, stderr)
			}
			return out, code
		}
		full, fullCode := run(plain)
		for _, name := range []string{gz, zst} {
			if out, code := run(name); out != full || code != fullCode {
				t.Fatalf("%q: archive %s of %s gives (exit code %d)\n%s\nthe plain file (exit code %d)\n%s", in, cmd, filepath.Base(name), code, out, fullCode, full)
			}
		}
		shards := func(name string, n int) {
			var cat strings.Builder
			code := exitOK
			for i := range n {
				out, c := run("--shard", fmt.Sprintf("%d/%d", i, n), name)
				cat.WriteString(out)
				code = max(code, c)
			}
			if cat.String() != full || code != fullCode {
				t.Fatalf("%q (%d bytes): archive %s of %s in %d shards gives (exit code %d)\n%s\nunsharded (exit code %d)\n%s",
					in, len(in), cmd, filepath.Base(name), n, code, cat.String(), fullCode, full)
			}
		}
		for n := 1; n <= 8; n++ {
			shards(plain, n)
		}
		n := int(maxSize>>9)%8 + 1
		shards(gz, n)
		shards(zst, n)
	})
}
