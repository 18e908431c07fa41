package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// gzipBytes and zstdBytes compress b; gzip in two members when split, to
// check that a concatenation of gzip members is read whole.
func gzipBytes(t testing.TB, b []byte, split bool) []byte {
	t.Helper()
	var out bytes.Buffer
	parts := [][]byte{b}
	if split {
		parts = [][]byte{b[:len(b)/3], b[len(b)/3:]}
	}
	for _, p := range parts {
		w := gzip.NewWriter(&out)
		w.Write(p)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

func zstdBytes(t testing.TB, b []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := zstd.NewWriter(&out, opts...)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// compressedArchive returns an archive with every bad-line kind among
// generated records, long enough to span many blocks and decompressor
// reads.
func compressedArchive() []byte {
	var b bytes.Buffer
	rng := rand.New(rand.NewPCG(15, 2))
	for i := range 3000 {
		if i%97 == 0 {
			b.WriteString(badArchive[rng.IntN(len(badArchive))].line + "\n")
		}
		b.WriteString(`{"i":` + strings.Repeat(" ", i%5) + `1, "text": "caf\u00e9 ` + strings.Repeat("x", rng.IntN(900)) + `", "n": [1, 2, 3]}` + "\n")
	}
	b.WriteString(`{"last": "no newline"`)
	return b.Bytes()
}

// TestArchiveCompressed checks that the same archive, plain, gzip (also
// in two members), zstd, each as a file and on stdin (zstd also read 1 to
// 7 bytes at a time), gives byte-identical output, and summaries that
// differ only in the compression named.
func TestArchiveCompressed(t *testing.T) {
	plain := compressedArchive()
	dir := t.TempDir()
	inputs := map[string][]byte{
		"a.jsonl":     plain,
		"a.jsonl.gz":  gzipBytes(t, plain, false),
		"a2.jsonl.gz": gzipBytes(t, plain, true),
		"a.jsonl.zst": zstdBytes(t, plain),
	}
	for name, b := range inputs {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	want, wantSum, code := archiveCall(t, 150, nil, "archive", "rehash", "--json", filepath.Join(dir, "a.jsonl"))
	if code != exitRejected || strings.Count(want, "\n") != bytes.Count(plain, []byte("\n"))+1 {
		t.Fatalf("plain: exit code %d, %d result lines for %d input lines", code, strings.Count(want, "\n"), bytes.Count(plain, []byte("\n"))+1)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for name, b := range inputs {
		compression := map[string]string{".jsonl": "none", ".gz": "gzip", ".zst": "zstd"}[filepath.Ext(name)]
		path := filepath.Join(dir, name)
		for _, how := range []string{"file", "stdin", "stdin 1-7"} {
			args := []string{"archive", "rehash", "--json", path}
			var stdin *bytes.Reader
			if how != "file" {
				args[3], stdin = "-", bytes.NewReader(b)
			}
			var got, sum string
			if how == "stdin 1-7" {
				if compression != "zstd" {
					continue
				}
				got, sum, code = archiveCall(t, 150, &shortReads{stdin, rng}, args...)
			} else if stdin != nil {
				got, sum, code = archiveCall(t, 150, stdin, args...)
			} else {
				got, sum, code = archiveCall(t, 150, nil, args...)
			}
			if code != exitRejected || got != want {
				t.Errorf("%s (%s): exit code %d; output equal to the plain one: %v", name, how, code, got == want)
			}
			wantName := strings.Replace(wantSum, filepath.Join(dir, "a.jsonl"), args[3], 1)
			wantName = strings.Replace(wantName, `"compression":"none"`, `"compression":"`+compression+`"`, 1)
			if sum != wantName {
				t.Errorf("%s (%s): summary\n%s\nwant\n%s", name, how, sum, wantName)
			}
		}
	}
}

// shortReads returns 1 to 7 bytes per Read.
type shortReads struct {
	r   *bytes.Reader
	rng *rand.Rand
}

func (s *shortReads) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), 1+s.rng.IntN(7))]) }

// TestArchiveCompressedBroken checks that a compressed input cut short or
// corrupt is an I/O error (exit 2); cut short, after the results of the
// lines read before the cut, a prefix of the whole output (corrupt data is
// answered as it decompresses until the frame's or member's checksum
// fails, so there the output is no prefix); and that a zstd frame needing
// a window over the bound is refused.
func TestArchiveCompressedBroken(t *testing.T) {
	plain := compressedArchive()
	full, _, _ := archiveCall(t, 150, bytes.NewReader(plain), "archive", "rehash")
	gz, zs := gzipBytes(t, plain, false), zstdBytes(t, plain)
	corrupt := bytes.Clone(zs)
	corrupt[len(corrupt)/2] ^= 0xff
	corruptGz := bytes.Clone(gz)
	corruptGz[len(corruptGz)-6] ^= 0xff // the CRC-32
	for _, tt := range []struct {
		name   string
		in     []byte
		prefix bool
		errRE  string
	}{
		{"gzip cut", gz[:len(gz)/2], true, `^bbdigest: error: -: gzip: the compressed stream is cut short\n`},
		{"zstd cut", zs[:len(zs)/2], true, `^bbdigest: error: -: zstd: the compressed stream is cut short\n`},
		{"zstd corrupt", corrupt, false, `^bbdigest: error: -: zstd: `},
		{"gzip crc", corruptGz, false, `^bbdigest: error: -: gzip: invalid checksum\n`},
	} {
		out, stderr, code := archiveCall(t, 150, iotest.HalfReader(bytes.NewReader(tt.in)), "archive", "rehash")
		if code != exitUsage || tt.prefix && (!strings.HasPrefix(full, out) || len(out) < len(full)/4) || !regexpMatch(tt.errRE, stderr) {
			t.Errorf("%s: exit code %d, a prefix: %v, %d of %d bytes, stderr %q", tt.name, code, strings.HasPrefix(full, out), len(out), len(full), stderr)
		}
	}

	big := zstdBytes(t, bytes.Repeat([]byte("[1]\n"), 1<<20), zstd.WithWindowSize(64<<20), zstd.WithSingleSegment(false))
	_, stderr, code := archiveCall(t, 0, bytes.NewReader(big), "archive", "rehash")
	if code != exitUsage || !strings.HasPrefix(stderr, "bbdigest: error: -: zstd: the frame needs a window over the 32 MiB bound\n") {
		t.Errorf("64 MiB window: exit code %d, stderr %q", code, stderr)
	}
}

// regexpMatch reports whether s matches the regular expression re.
func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
