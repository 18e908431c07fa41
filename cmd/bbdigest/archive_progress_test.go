package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/archivegen"
)

// slowReader gives its input a chunk at a time, pausing between chunks,
// so that a run lasts long enough for its progress to be shown.
type slowReader struct {
	b     []byte
	chunk int
	pause time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.pause)
	n := copy(p[:min(len(p), s.chunk)], s.b)
	s.b = s.b[n:]
	return n, nil
}

// TestArchiveProgressJSON checks --progress json: JSON lines on stderr,
// each a valid object with the run's counts, growing, before the summary,
// and stdout the same as without progress.
func TestArchiveProgressJSON(t *testing.T) {
	defer func(d time.Duration) { progressJSONEvery = d }(progressJSONEvery)
	progressJSONEvery = 2 * time.Millisecond
	in := genArchive(t, archivegen.Mixed, 20000, 3)
	want, _, _ := archiveCall(t, 0, bytes.NewReader(in), "archive", "rehash")
	for _, how := range []string{"stdin", "file", "shard"} {
		args := []string{"archive", "rehash", "--progress", "json", "--workers", "1"}
		var stdin io.Reader = &slowReader{b: in, chunk: len(in) / 20, pause: 10 * time.Millisecond}
		wantOut := want
		switch how {
		case "file", "shard":
			path := filepath.Join(t.TempDir(), "a.jsonl")
			os.WriteFile(path, in, 0o666)
			if how == "shard" {
				args = append(args, "--shard", "1/2")
			}
			args, stdin = append(args, path), nil
			if how == "shard" {
				wantOut = ""
			}
		}
		out, stderr, code := archiveCall(t, 0, stdin, args...)
		if code != exitRejected || wantOut != "" && out != wantOut {
			t.Errorf("%s: exit code %d, output as without progress: %v", how, code, out == want)
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if !strings.HasPrefix(lines[len(lines)-1], "bbdigest: summary: ") {
			t.Errorf("%s: the summary is not last: %q", how, stderr)
		}
		var last int64
		for _, l := range lines[:len(lines)-1] {
			var p struct {
				Progress struct {
					Input       *string  `json:"input"`
					Elapsed     *float64 `json:"elapsed_s"`
					Records     int64    `json:"records"`
					Bytes       int64    `json:"bytes"`
					RecordsPerS *float64 `json:"records_per_s"`
					BytesPerS   *float64 `json:"bytes_per_s"`
					Fraction    *float64 `json:"fraction"`
					ETA         *float64 `json:"eta_s"`
				} `json:"progress"`
			}
			dec := json.NewDecoder(strings.NewReader(l))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&p); err != nil || p.Progress.Input == nil || p.Progress.Elapsed == nil || p.Progress.RecordsPerS == nil || p.Progress.BytesPerS == nil {
				t.Fatalf("%s: progress line %q: %v", how, l, err)
			}
			if p.Progress.Records < last || (how == "stdin") != (p.Progress.Fraction == nil) {
				t.Errorf("%s: progress line %q after %d records", how, l, last)
			}
			last = p.Progress.Records
		}
		if len(lines) < 3 || last == 0 {
			t.Errorf("%s: %d progress lines, the last at %d records: %q", how, len(lines)-1, last, stderr)
		}
	}
}

// TestArchiveProgressBar checks --progress bar written elsewhere than on
// a terminal (a line per refresh): the input's name, bytes, rates; and
// that the default, auto, shows nothing off a terminal, and the usage
// error of a bad --progress.
func TestArchiveProgressBar(t *testing.T) {
	in := genArchive(t, archivegen.Mixed, 1000, 3)
	want, wantErr, _ := archiveCall(t, 150, bytes.NewReader(in), "archive", "rehash")
	out, stderr, _ := archiveCall(t, 150, &slowReader{b: in, chunk: len(in) / 10, pause: 60 * time.Millisecond}, "archive", "rehash", "--progress", "bar")
	if out != want || !strings.HasSuffix(stderr, wantErr) {
		t.Errorf("output as without progress: %v; stderr %q", out == want, stderr)
	}
	if !regexpMatch(`(?m)^-  \[.*\]  [0-9.]+ MB  [0-9]+ rec/s  [0-9.]+ MB/s$`, stderr) {
		t.Errorf("no bar in %q", stderr)
	}
	if _, stderr, _ := archiveCall(t, 150, &slowReader{b: in, chunk: len(in) / 10, pause: 60 * time.Millisecond}, "archive", "rehash"); stderr != wantErr {
		t.Errorf("--progress auto off a terminal: stderr %q", stderr)
	}
	_, stderr, code := archiveCall(t, 0, nil, "archive", "rehash", "--progress", "x")
	if code != exitUsage || !strings.HasPrefix(stderr, `bbdigest: error: archive rehash: --progress takes auto (the default), bar, json or off, not "x"`+"\n") {
		t.Errorf("--progress x: exit code %d, stderr %q", code, stderr)
	}
}
