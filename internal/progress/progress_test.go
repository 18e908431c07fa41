package progress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/archive"
)

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
// when it reports one, else FallbackColumns and FallbackRows, for each
// dimension it does not report, and both when its size cannot be read.
func TestSizedTerminal(t *testing.T) {
	for _, tt := range []struct {
		w, h         int
		err          error
		wantW, wantH int
	}{
		{120, 40, nil, 120, 40},
		{0, 0, nil, FallbackColumns, FallbackRows},
		{0, 30, nil, FallbackColumns, 30},
		{100, 0, nil, 100, FallbackRows},
		{120, 40, errors.New("inappropriate ioctl for device"), FallbackColumns, FallbackRows},
	} {
		w, h, err := sizedTerminal{&fakeConsole{width: tt.w, height: tt.h, err: tt.err}}.GetTermSize()
		if w != tt.wantW || h != tt.wantH || err != nil {
			t.Errorf("terminal %dx%d (%v): %dx%d, %v; want %dx%d", tt.w, tt.h, tt.err, w, h, err, tt.wantW, tt.wantH)
		}
	}
}

// TestText checks the text beside the bar: the bytes done, of the total
// when it is known, the rates, and the time left when it is known.
func TestText(t *testing.T) {
	for _, tt := range []struct {
		s    archive.Snapshot
		want string
	}{
		{archive.Snapshot{Input: "a", Elapsed: 2 * time.Second, Records: 1000, Bytes: 3_000_000, Done: 1_210_000_000, Total: 3_400_000_000, Fraction: 0.5},
			"1.21 GB / 3.40 GB  500 rec/s  1.5 MB/s  ETA 2s"},
		{archive.Snapshot{Input: "-", Elapsed: 4 * time.Second, Records: 10, Bytes: 400_000, Done: 400_000, Total: -1, Fraction: -1},
			"0.4 MB  2 rec/s  0.1 MB/s"},
		{archive.Snapshot{Total: -1, Fraction: -1}, "0.0 MB  0 rec/s  0.0 MB/s"},
	} {
		if got := text(tt.s); got != tt.want {
			t.Errorf("text(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestAppendJSON checks the lines of the JSON mode: every field, the
// fraction and the time left only when known, and an input name that a
// terminal would interpret, or that is not UTF-8, still a JSON string
// that holds nothing raw.
func TestAppendJSON(t *testing.T) {
	s := archive.Snapshot{Input: "a.jsonl.zst", Elapsed: 3 * time.Second, Records: 123456, Bytes: 234567890, Done: 5, Total: 10, Fraction: 0.42}
	want := `{"progress":{"input":"a.jsonl.zst","elapsed_s":3.0,"records":123456,"bytes":234567890,"records_per_s":41152,"bytes_per_s":78189297,"fraction":0.4200,"eta_s":4.1}}` + "\n"
	if got := string(appendJSON(nil, s)); got != want {
		t.Errorf("appendJSON = %s, want %s", got, want)
	}
	s = archive.Snapshot{Input: "x\x1b[31m\n\xff", Elapsed: time.Second, Fraction: -1, Total: -1}
	got := appendJSON(nil, s)
	want = `{"progress":{"input":"x\u001b[31m\n` + "\ufffd" + `","elapsed_s":1.0,"records":0,"bytes":0,"records_per_s":0,"bytes_per_s":0}}` + "\n"
	if string(got) != want {
		t.Errorf("appendJSON = %s, want %s", got, want)
	}
	var v map[string]map[string]any
	if err := json.Unmarshal(got, &v); err != nil || v["progress"]["input"] != "x\x1b[31m\n\ufffd" {
		t.Errorf("appendJSON = %s: not the JSON of the name (%v)", got, err)
	}
}

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

// rehash runs archive.Rehash over 200000 lines (some 3 MB, a few of
// batch's blocks) read from a slowReader in about 400ms, with the display
// d, and ends d.
func rehash(t *testing.T, d *Display, name string) {
	t.Helper()
	in := bytes.Repeat([]byte(`{"b":2,"a":1}`+"\n"), 200000)
	r := &slowReader{b: in, chunk: len(in) / 8, pause: 50 * time.Millisecond}
	_, err := archive.Rehash(context.Background(), []archive.Input{archive.Reader(name, r)},
		archive.Options{Workers: 1, Output: io.Discard, Progress: d.Progress()})
	d.End()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDisplayJSON runs a display in the JSON mode over a run: a line every
// period, each a JSON object whose records grow, nothing after End; in the
// Off mode, or a mode that is not one of the three, nothing at all.
func TestDisplayJSON(t *testing.T) {
	var buf bytes.Buffer
	d := New(JSON, &buf, 10*time.Millisecond)
	rehash(t, d, "in")
	n := buf.Len()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) < 5 {
		t.Fatalf("%d lines in some 400ms at one every 10ms: %q", len(lines), buf.String())
	}
	var last int64
	for _, l := range lines {
		var v struct {
			Progress struct {
				Input   string `json:"input"`
				Records *int64 `json:"records"`
			} `json:"progress"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Progress.Records == nil || v.Progress.Input != "in" || *v.Progress.Records < last {
			t.Fatalf("line %q after %d records: %v", l, last, err)
		}
		last = *v.Progress.Records
	}
	if last == 0 {
		t.Errorf("no records counted in %q", buf.String())
	}
	time.Sleep(30 * time.Millisecond)
	if buf.Len() != n {
		t.Errorf("written after End: %q", buf.String()[n:])
	}
	for _, m := range []Mode{Off, "auto", ""} {
		var out bytes.Buffer
		rehash(t, New(m, &out, time.Millisecond), "in")
		if out.Len() != 0 {
			t.Errorf("mode %q: wrote %q", m, out.String())
		}
	}
}

// TestDisplayBar runs a display in the Bar mode off a terminal: a line per
// refresh with the input's name, escaped, and the rates; nothing after
// End.
func TestDisplayBar(t *testing.T) {
	var buf bytes.Buffer
	rehash(t, New(Bar, &buf, time.Hour), "in\x1b") // the bar refreshes at its own pace
	if !strings.Contains(buf.String(), `in\u001b  [`) || !strings.Contains(buf.String(), " rec/s  ") {
		t.Errorf("no bar with the escaped name in %q", buf.String())
	}
	n := buf.Len()
	time.Sleep(300 * time.Millisecond)
	if buf.Len() != n {
		t.Errorf("written after End: %q", buf.String()[n:])
	}
}
