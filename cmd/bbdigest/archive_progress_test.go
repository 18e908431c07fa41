package main

import (
	"bytes"
	"encoding/json"
	"errors"
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

// fakeConsole is a terminal of a given size, or whose size cannot be
// read.
type fakeConsole struct {
	bytes.Buffer
	width, height int
	err           error
}

func (f *fakeConsole) IsTerminal() bool                    { return true }
func (f *fakeConsole) GetTermSize() (int, int, error)      { return f.width, f.height, f.err }
func (f *fakeConsole) Flush(int) error                     { return nil }
func (f *fakeConsole) ReadFrom(r io.Reader) (int64, error) { return f.Buffer.ReadFrom(r) }

// TestSizedTerminal checks the size the bar is drawn for: the terminal's
// when it reports one, else fallbackColumns and fallbackRows, for each
// dimension it does not report, and both when its size cannot be read.
func TestSizedTerminal(t *testing.T) {
	for _, tt := range []struct {
		w, h         int
		err          error
		wantW, wantH int
	}{
		{120, 40, nil, 120, 40},
		{0, 0, nil, fallbackColumns, fallbackRows},
		{0, 30, nil, fallbackColumns, 30},
		{100, 0, nil, 100, fallbackRows},
		{120, 40, errors.New("inappropriate ioctl for device"), fallbackColumns, fallbackRows},
	} {
		w, h, err := sizedTerminal{&fakeConsole{width: tt.w, height: tt.h, err: tt.err}}.GetTermSize()
		if w != tt.wantW || h != tt.wantH || err != nil {
			t.Errorf("terminal %dx%d (%v): %dx%d, %v; want %dx%d", tt.w, tt.h, tt.err, w, h, err, tt.wantW, tt.wantH)
		}
	}
}
