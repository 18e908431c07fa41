package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// fuzzArchiveMax caps the JSON Lines of FuzzArchiveShards: the bytes past
// it are dropped. Split points, line kinds and bounds all show in a few
// KiB, and every run of the command reads the whole input.
const fuzzArchiveMax = 4 << 10

// FuzzArchiveShards holds the input paths of archive rehash and verify
// to one another, in process (cli.main) on in-memory files (cli.files):
// the same JSON Lines, plain, gzip (in one member or two) and zstd, give
// byte for byte the same output and exit code; and for a number of
// shards N from 1 to 8, the outputs of --shard 0/N to N-1/N of the plain
// file, concatenated in index order, are the unsharded output, whatever
// the split points floor(S*I/N) fall on (inside a line, on a "\n",
// inside a multi-byte character), and the shards exit with a rejection
// exactly when the whole run does. The shards of a second N are checked
// on one of the compressed files (whose size a shard measures by
// decompressing it). maxSize chooses, besides a size bound (its low 9
// bits; 0: none) that lowers every record's bound so that too-large lines
// occur, the two N (bits 9-11 and 12-14, plus one) and the compressed
// file (bit 15: zstd, else gzip), so that the fuzzer varies them: each
// input runs the command 3+N+N' times, not for every N. The input is cut
// at fuzzArchiveMax bytes.
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
	// shards returns the maxSize that gives the bound, the N of the plain
	// file and the N of the compressed one, and zstd.
	shards := func(bound, plainN, compN int, zst bool) uint16 {
		v := bound | (plainN-1)<<9 | (compN-1)<<12
		if zst {
			v |= 1 << 15
		}
		return uint16(v)
	}
	f.Add([]byte(strings.Join(bad[:8], "\n")), false, shards(0, 8, 3, false), false)
	f.Add([]byte(strings.Join(bad[8:], "\n")+"\n"), false, shards(150, 5, 7, true), true)
	f.Add([]byte("[1]\n["+strings.Repeat(" ", 40)+"2]\n[3]\n"), false, shards(30, 7, 2, false), false)
	f.Add([]byte("\n\n\n"), false, shards(0, 4, 4, true), true)
	f.Add([]byte(`{"é":"東京😀"}`+"\n"+`"\u00e9\ud83d\ude00"`), false, shards(7, 6, 8, false), false)
	f.Add([]byte(claim(`{"b":1,"a":"é"}`)+"\n"+claim(`[1,2]`)+"\n"+`{"digest":"sha256:00","doc":1}`), true, shards(0, 3, 5, true), false)
	f.Add([]byte(claim(`"x"`)+"\r\n"+`{"doc":{"a":1},"digest":"`+hashing.Sum([]byte(`{"a":2}`)).String()+`"}`+"\n"), true, shards(120, 8, 6, false), true)

	// Shared by every call: the files, the compressors, the output.
	const plain, gz, zst = "in.jsonl", "in.jsonl.gz", "in.jsonl.zst"
	files := fstest.MapFS{plain: {}, gz: {}, zst: {}}
	zenc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		f.Fatal(err)
	}
	var gzBuf bytes.Buffer
	gzw := gzip.NewWriter(&gzBuf)
	var stdout, stderr bytes.Buffer
	f.Fuzz(func(t *testing.T, in []byte, verify bool, maxSize uint16, twoMembers bool) {
		in = in[:min(len(in), fuzzArchiveMax)]
		cmd := "rehash"
		if verify {
			cmd = "verify"
		}
		bound := int(maxSize % 512) // 0: the profile's own bound
		plainN, compN := int(maxSize>>9)%8+1, int(maxSize>>12)%8+1
		compressed := gz
		if maxSize>>15 != 0 {
			compressed = zst
		}

		gzBuf.Reset()
		parts := [][]byte{in}
		if twoMembers {
			parts = [][]byte{in[:len(in)/3], in[len(in)/3:]}
		}
		for _, p := range parts {
			gzw.Reset(&gzBuf)
			gzw.Write(p)
			if err := gzw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		files[plain].Data = in
		files[gz].Data = bytes.Clone(gzBuf.Bytes())
		files[zst].Data = zenc.EncodeAll(in, nil)

		run := func(args ...string) (string, int) {
			stdout.Reset()
			stderr.Reset()
			c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, maxSize: bound, files: files}
			code := c.main(append([]string{"archive", cmd}, args...))
			if code != exitOK && code != exitRejected {
				t.Fatalf("%q: archive %s %v: exit code %d, %s", in, cmd, args, code, stderr.String())
			}
			return stdout.String(), code
		}
		full, fullCode := run(plain)
		for _, name := range []string{gz, zst} {
			if out, code := run(name); out != full || code != fullCode {
				t.Fatalf("%q: archive %s of %s gives (exit code %d)\n%s\nthe plain file (exit code %d)\n%s", in, cmd, name, code, out, fullCode, full)
			}
		}
		checkShards := func(name string, n int) {
			var cat strings.Builder
			code := exitOK
			for i := range n {
				out, c := run("--shard", fmt.Sprintf("%d/%d", i, n), name)
				cat.WriteString(out)
				code = max(code, c)
			}
			if cat.String() != full || code != fullCode {
				t.Fatalf("%q (%d bytes): archive %s of %s in %d shards gives (exit code %d)\n%s\nunsharded (exit code %d)\n%s",
					in, len(in), cmd, name, n, code, cat.String(), fullCode, full)
			}
		}
		checkShards(plain, plainN)
		checkShards(compressed, compN)
	})
}
