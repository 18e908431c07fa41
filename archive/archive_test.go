package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/boundedread"
	"github.com/klauspost/compress/zstd"
)

// testInput has a line of each outcome and no final newline.
const testInput = "{\"b\": 1, \"a\": \"\\u00e9\"}\n\n{\"a\":1,\"a\":2}\r\n[1.5]\n[9007199254740993]"

// TestRehashSummary checks the Summary of a run over one input given by a
// reader: counts by class, the input's range and its SHA-256, the output's
// bytes and SHA-256, and the result lines written to Output. A profile
// changes the answers and the profile's name; MaxRecord changes the bound
// recorded and makes long lines too-large.
func TestRehashSummary(t *testing.T) {
	var out bytes.Buffer
	sum, err := Rehash(context.Background(), []Input{Reader("in", strings.NewReader(testInput))}, Options{Output: &out, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	in := InputSummary{Name: "in", Compression: "none", Size: int64(len(testInput)), Start: 0, End: int64(len(testInput)),
		StartSHA256: emptySHA256, EndSHA256: sha256.Sum256([]byte(testInput)), FirstLine: 1, Lines: 5}
	if sum.Command != "rehash" || sum.Profile != "strict" || sum.MaxRecord != int64(canon.DefaultMaxSize) || len(sum.Inputs) != 1 || sum.Inputs[0] != in ||
		sum.Records != 5 || sum.OK != 1 || sum.Failed != 4 || !sum.Complete ||
		sum.Classes["syntax"] != 1 || sum.Classes["duplicate-name"] != 1 || sum.Classes["non-integer"] != 1 || sum.Classes["unsafe-integer"] != 1 ||
		sum.Output != (OutputSummary{Bytes: int64(out.Len()), SHA256: sha256.Sum256(out.Bytes())}) {
		t.Errorf("summary %+v", sum)
	}
	if lines := strings.Split(out.String(), "\n"); len(lines) != 6 || lines[0] != `{"line":1,"digest":"sha256:aa58fba8483623bed37c1b02edfccbdd9a53123837c20bfa4cb4049993a2872e"}` ||
		!strings.HasPrefix(lines[2], `{"line":3,"error":{"class":"duplicate-name","offset":7,"pointer":"/a",`) {
		t.Errorf("result lines %q", out.String())
	}
	if got, want := sum.String(), "5 records, 1 accepted, 4 rejected (duplicate-name 1, non-integer 1, syntax 1, unsafe-integer 1)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}

	sum, err = Rehash(context.Background(), []Input{Reader("in", strings.NewReader(testInput))}, Options{Profile: canon.RFC8785, MaxRecord: 20, NoInputSHA256: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Profile != "rfc8785" || sum.MaxRecord != 20 || sum.Classes["too-large"] != 1 || sum.Classes["non-integer"] != 0 || sum.OK != 2 ||
		sum.Inputs[0].StartSHA256 != (hashing.Digest{}) || sum.Inputs[0].EndSHA256 != (hashing.Digest{}) {
		t.Errorf("rfc8785, MaxRecord 20, NoInputSHA256: summary %+v", sum)
	}
	if sum.Output.SHA256 == (hashing.Digest{}) || sum.Output.Bytes == 0 {
		t.Errorf("without NoOutputSHA256 (output discarded): Output %+v, want the lines discarded counted and hashed", sum.Output)
	}

	out.Reset()
	sum, err = Rehash(context.Background(), []Input{Reader("in", strings.NewReader(testInput))}, Options{Output: &out, NoOutputSHA256: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Output != (OutputSummary{Bytes: int64(out.Len())}) || out.Len() == 0 || sum.Inputs[0].EndSHA256 != sha256.Sum256([]byte(testInput)) {
		t.Errorf("NoOutputSHA256: summary %+v, want the output's bytes counted and no SHA-256", sum)
	}
}

// TestInputs: a file, a file of an fs.FS and a zstd stream answer alike,
// with "file" in every result line for several inputs, and the
// compression in the summary.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(path, []byte(testInput), 0o666); err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	fsys := fstest.MapFS{"b.jsonl.zst": {Data: enc.EncodeAll([]byte(testInput), nil)}}
	var out bytes.Buffer
	sum, err := Rehash(context.Background(), []Input{File(path), FileFS(fsys, "b.jsonl.zst")}, Options{Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Inputs) != 2 || sum.Inputs[1].Compression != "zstd" || sum.Inputs[1].EndSHA256 != sum.Inputs[0].EndSHA256 || sum.Records != 10 {
		t.Errorf("summary %+v", sum)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	fileA, fileB := `{"file":"`+path+`",`, `{"file":"b.jsonl.zst",`
	for i, l := range lines {
		if want := map[bool]string{true: fileA, false: fileB}[i < 5]; !strings.HasPrefix(l, want) || !strings.HasSuffix(l, strings.TrimPrefix(lines[i%5], fileA)) {
			t.Errorf("line %d: %s", i, l)
		}
	}
}

// TestErrors: the error of each way a run fails, and whether it returns
// a summary.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.jsonl")
	ctx := context.Background()

	sum, err := Rehash(ctx, []Input{Reader("a", strings.NewReader("[1]\n")), File(missing)}, Options{})
	if e, ok := errors.AsType[*FileError](err); !ok || e.Name != missing || !errors.Is(err, fs.ErrNotExist) || sum == nil || sum.Complete || sum.Records != 1 {
		t.Errorf("a missing input: %v, summary %+v", err, sum)
	}
	for name, o := range map[string]Options{
		"resume":   {Resume: true},
		"shard":    {Shard: Shard{Index: 2, Count: 2}},
		"workers":  {Workers: -1},
		"bound":    {MaxRecord: -1},
		"too-much": {MaxRecord: canon.MaxSizeLimit + 1},
	} {
		if sum, err := Rehash(ctx, []Input{Reader("a", strings.NewReader("[1]\n"))}, o); err == nil || sum != nil || !strings.HasPrefix(err.Error(), "archive: ") {
			t.Errorf("%s: %v, %v", name, sum, err)
		}
	}
	if _, err := Rehash(ctx, nil, Options{}); err == nil {
		t.Error("no input: no error")
	}

	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte("[1]\n"), 0o666)
	if sum, err := Rehash(ctx, []Input{File(in)}, Options{OutFile: in}); !errors.Is(err, ErrOutFileIsInput) || sum != nil {
		t.Errorf("OutFile is the input: %v", err)
	}
	if b, _ := os.ReadFile(in); string(b) != "[1]\n" {
		t.Errorf("OutFile is the input: the input is now %q", b)
	}

	// An OutFile that Resume cannot continue is left as it is.
	out := filepath.Join(dir, "out.jsonl")
	os.WriteFile(out, []byte("not a result\n"), 0o666)
	sum, err = Rehash(ctx, []Input{File(in)}, Options{OutFile: out, Resume: true})
	if e, ok := errors.AsType[*ResumeError](err); !ok || e.File != out || sum != nil ||
		e.Reason != "not the output of this run: it has no .resume file, which --out writes beside it to resume it" {
		t.Errorf("Resume of a file without a sidecar: %v, summary %v", err, sum)
	}
	if b, _ := os.ReadFile(out); string(b) != "not a result\n" {
		t.Errorf("a refused OutFile is now %q", b)
	}

	// A shard of a reader has no size, and a compressed reader cannot be
	// read twice to measure it.
	if _, err := Rehash(ctx, []Input{Reader("-", strings.NewReader("[1]\n"))}, Options{Shard: Shard{Index: 0, Count: 2}}); !errors.Is(err, errNotRegular) {
		t.Errorf("a shard of a reader: %v", err)
	}
	enc, _ := zstd.NewWriter(nil)
	zr := Reader("-", bytes.NewReader(enc.EncodeAll([]byte("[1]\n"), nil)))
	if _, err := Rehash(ctx, []Input{zr}, Options{Shard: Shard{Index: 0, Count: 2}}); !errors.Is(err, errReadOnce) {
		t.Errorf("a shard of a compressed reader: %v", err)
	}
	if _, err := Rehash(ctx, []Input{zr}, Options{}); !errors.Is(err, errReadOnce) {
		t.Errorf("a reader read again: %v", err)
	}

	// A failure to write Output is a *WriteError.
	sum, err = Rehash(ctx, []Input{Reader("a", strings.NewReader(strings.Repeat("[1]\n", 100000)))}, Options{Output: failWriter{}})
	if e, ok := errors.AsType[*WriteError](err); !ok || e.Err != errFull || sum == nil || sum.Complete {
		t.Errorf("Output fails: %v", err)
	}
}

var errFull = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFull }

// TestResume: a run with OutFile stopped part-way (a context canceled
// while the input comes slowly) returns an *InterruptedError that counts
// the result lines its sidecar records, and the same call with Resume
// finishes OutFile as one run writes it, calling Progress.Input as it
// begins and ends the input, and counting every record and byte.
func TestResume(t *testing.T) {
	var lines strings.Builder
	for i := range 60000 {
		lines.WriteString("[" + strconv.Itoa(i) + ",{\"a\":\"é\"}]\n")
	}
	input := lines.String()
	var want bytes.Buffer
	if _, err := Rehash(context.Background(), []Input{Reader("-", strings.NewReader(input))}, Options{Output: &want}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := &slowReader{r: strings.NewReader(input), chunk: 32 << 10, each: func(read int) {
		if read > len(input)/2 {
			cancel()
		}
	}}
	sum, err := Rehash(ctx, []Input{Reader("-", slow)}, Options{OutFile: out})
	ie, ok := errors.AsType[*InterruptedError](err)
	// The sidecar records a checkpoint at the end of a read of the input,
	// once every line before it is answered: at most the lines answered.
	if !ok || !errors.Is(err, context.Canceled) || sum == nil || sum.Complete || sum.Records >= 60000 || ie.Results > sum.Records {
		t.Fatalf("interrupted: %v (results %d), summary %+v", err, ie.Results, sum)
	}
	if side := readSidecar(t, out); side.Results != ie.Results {
		t.Errorf("the sidecar records %d result lines, the error %d", side.Results, ie.Results)
	}
	var prog Progress
	var began []string
	prog.Input = func(in *InputProgress) {
		if in == nil {
			began = append(began, "end")
		} else {
			began = append(began, in.Name)
		}
	}
	sum, err = Rehash(context.Background(), []Input{Reader("-", strings.NewReader(input))}, Options{OutFile: out, Resume: true, Progress: &prog})
	if err != nil || !sum.Complete || sum.Records != 60000 || prog.Records() != 60000 || prog.Bytes() != int64(len(input)) || strings.Join(began, ",") != "-,end" {
		t.Fatalf("resumed: %v, summary %+v, progress %d records %d bytes, inputs %v", err, sum, prog.Records(), prog.Bytes(), began)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, want.Bytes()) {
		t.Errorf("the resumed output differs from one run's")
	}
}

// slowReader reads r chunk bytes at a time, calling each with the bytes
// read so far.
type slowReader struct {
	r     io.Reader
	chunk int
	read  int
	each  func(read int)
}

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	n, err := s.r.Read(p[:min(len(p), s.chunk)])
	s.read += n
	s.each(s.read)
	return n, err
}

// readSidecar reads the sidecar of the OutFile out.
func readSidecar(t *testing.T, out string) *sidecar {
	t.Helper()
	b, err := os.ReadFile(out + resumeSuffix)
	if err != nil {
		t.Fatal(err)
	}
	s := new(sidecar)
	if err := strictJSON(b, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJoin: the summaries of the shards of a run, through their JSON
// form, join into the summary of the unsharded run, with its counts and
// the SHA-256 of the whole input, and the outputs of each shard; a
// missing shard or one given twice is a *CoverageError that names the
// problems.
func TestJoin(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	data := []byte(strings.Repeat(testInput+"\n", 40))
	if err := os.WriteFile(path, data, 0o666); err != nil {
		t.Fatal(err)
	}
	whole, err := Rehash(context.Background(), []Input{File(path)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sums []*Summary
	for i := range int64(7) {
		var out bytes.Buffer
		sum, err := Rehash(context.Background(), []Input{File(path)}, Options{Shard: Shard{Index: i, Count: 7}, Output: &out})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "part-"+strconv.FormatInt(i, 10)+".json")
		if err := sum.WriteFile(file); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSummary(file)
		if err != nil {
			t.Fatal(err)
		}
		if b1, _ := back.MarshalJSON(); !bytes.Equal(b1, mustJSON(sum)) {
			t.Errorf("shard %d: read back\n%s\nwritten\n%s", i, b1, mustJSON(sum))
		}
		if back.Output != (OutputSummary{Bytes: int64(out.Len()), SHA256: sha256.Sum256(out.Bytes())}) {
			t.Errorf("shard %d: output %+v", i, back.Output)
		}
		sums = append(sums, back)
	}
	total, err := Join(sums)
	if err != nil {
		t.Fatal(err)
	}
	if total.Shards != 7 || len(total.Outputs) != 7 || total.Records != whole.Records || total.Failed != whole.Failed ||
		total.Inputs[0] != whole.Inputs[0] || total.Classes["syntax"] != whole.Classes["syntax"] {
		t.Errorf("joined %+v, whole %+v", total, whole)
	}
	_, err = Join(append(sums[:2:2], sums[3:]...))
	if e, ok := errors.AsType[*CoverageError](err); !ok || len(e.Problems) != 1 || e.Problems[0] != "shard 2 of 7 is missing" {
		t.Errorf("a shard missing: %v", err)
	}
	_, err = Join(append(sums, sums[4]))
	if e, ok := errors.AsType[*CoverageError](err); !ok || len(e.Problems) != 1 || !strings.Contains(e.Problems[0], "shard 4 of 7 again") {
		t.Errorf("a shard twice: %v", err)
	}
	if _, err := Join([]*Summary{whole, whole}); err == nil {
		t.Error("a whole run twice joined")
	}
}

func mustJSON(s *Summary) []byte {
	b, err := s.MarshalJSON()
	if err != nil {
		panic(err)
	}
	return b
}

// TestParseSummary: a summary with a member missing, unknown, repeated or
// of another type, or of a run over several inputs, is a *FileError that
// names it.
func TestParseSummary(t *testing.T) {
	sum, err := Rehash(context.Background(), []Input{Reader("a", strings.NewReader(testInput))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	good := string(mustJSON(sum))
	if _, err := ParseSummary("s.json", []byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		strings.Replace(good, `"complete":true`, `"complete":true,"extra":1`, 1),
		strings.Replace(good, `"records":5,`, ``, 1),
		strings.Replace(good, `"records":5`, `"records":5,"records":5`, 1),
		strings.Replace(good, `"records":5`, `"records":"5"`, 1),
		strings.Replace(good, `"size":`, `"size":-`, 1),
		strings.Replace(good, `"inputs":[{`, `"inputs":[{"name":"b","compression":"none","range":{"start":0,"end":0,"start_sha256":"`+emptySHA256.String()+`","end_sha256":"`+emptySHA256.String()+`"},"first_line":1,"lines":0},{`, 1),
		`[]`,
	} {
		_, err := ParseSummary("s.json", []byte(bad))
		if e, ok := errors.AsType[*FileError](err); !ok || e.Name != "s.json" {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestFileBounds: a summary is read up to 64 KiB and a .resume file up
// to 64 MiB, and a .resume file must be a regular file.
func TestFileBounds(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []boundedread.Kind{summaryKind, sidecarKind} {
		past := filepath.Join(dir, "past")
		if err := os.WriteFile(past, nil, 0o600); err != nil || os.Truncate(past, int64(k.Limit)+1) != nil {
			t.Fatal(err)
		}
		want := "longer than the " + strconv.Itoa(k.Limit) + "-byte bound of " + k.What
		if _, _, err := boundedread.ReadFile(past, k); err == nil || err.Error() != want {
			t.Errorf("%s: a file one byte past the bound: %v, want %q", k.What, err, want)
		}
	}
	if summaryKind.Limit != 64<<10 || summaryKind.Regular || sidecarKind.Limit != 64<<20 || !sidecarKind.Regular || sidecarKind.What != "a .resume file" {
		t.Errorf("kinds %+v, %+v", summaryKind, sidecarKind)
	}
	if _, err := ReadSummary(filepath.Join(dir, "past")); err == nil || err.Error() != "archive: "+filepath.Join(dir, "past")+": longer than the 65536-byte bound of a summary" {
		t.Errorf("ReadSummary of a file past the bound: %v", err)
	}
}

// TestProgressSnapshot: the snapshot of a run over a shard of a file
// names the input, counts the records and the bytes of the shard's range,
// is done (fraction 1, at most), and gives positive rates and no time left; before
// the run it knows nothing.
func TestProgressSnapshot(t *testing.T) {
	var prog Progress
	if s := prog.Snapshot(); s.Input != "" || s.Elapsed != 0 || s.Fraction != -1 {
		t.Errorf("before the run: %+v", s)
	}
	path := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(testInput+"\n", 100)), 0o666); err != nil {
		t.Fatal(err)
	}
	sum, err := Rehash(context.Background(), []Input{File(path)}, Options{Shard: Shard{Index: 1, Count: 3}, Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	in := sum.Inputs[0]
	s := prog.Snapshot()
	// Total runs to the range's nominal end, inside the line that ends it.
	if s.Input != path || s.Records != sum.Records || s.Done != in.End-in.Start || s.Total <= 0 || s.Total > s.Done || s.Fraction != 1 || s.Elapsed <= 0 {
		t.Errorf("snapshot %+v, summary %+v", s, sum)
	}
	if recs, bytes, eta := s.Rates(); recs <= 0 || bytes <= 0 || eta != 0 {
		t.Errorf("rates %v records/s, %v bytes/s, eta %v", recs, bytes, eta)
	}
}
