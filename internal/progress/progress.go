// Package progress draws how far a run of package archive has got, read
// from its archive.Progress, on a writer: the display of "bbdigest archive
// rehash|verify --progress". On a terminal it is a live bar drawn by
// github.com/vbauerster/mpb/v8 (records/s, MB/s, bytes done of the total,
// ETA); elsewhere the bar is a line per refresh, and the JSON mode writes
// one JSON line every period, for logs (a Kubernetes pod's). Choosing the
// mode (a bar on a terminal, nothing elsewhere, unless asked) is the
// command's.
//
// The rates count the JSON Lines read by the workers (decompressed) and
// the records answered, from the start of the run (with Resume, the lines
// kept, whose answers are computed again to check them, too). The fraction
// done is that of the shard's range for a Shard, else that of the input
// file read (its compressed bytes for a compressed file), unknown on a
// stream such as stdin (archive.Progress.Snapshot).
//
// This is the only importer of vbauerster/mpb and cupwriter.
package progress

import (
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/bbdigest/bbdigest/archive"
	"github.com/bbdigest/bbdigest/internal/diag"
	"github.com/vbauerster/cupwriter"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// Mode is how a Display shows the progress.
type Mode string

// The modes, named as --progress names them.
const (
	Bar  Mode = "bar"  // a bar: live on a terminal, else a line per refresh
	JSON Mode = "json" // a JSON line every period
	Off  Mode = "off"  // nothing
)

// Display is the progress display of one run: give the run its Progress
// (archive.Options.Progress), and call End once the run has returned. Its
// methods are safe for concurrent use.
type Display struct {
	mode  Mode
	w     io.Writer
	every time.Duration // between JSON lines

	counts *archive.Progress // the run's counts, and the inputs it begins

	mu   sync.Mutex // stop
	stop chan struct{}
	done chan struct{}
	p    *mpb.Progress
	bar  *mpb.Bar
}

// New returns the display of a run on w, in mode m (any other than Bar and
// JSON is Off); in the JSON mode it writes a line every period. It draws
// nothing until the run begins its first input.
func New(m Mode, w io.Writer, every time.Duration) *Display {
	if m != Bar && m != JSON {
		m = Off
	}
	p := &Display{mode: m, w: w, every: every, counts: new(archive.Progress)}
	p.counts.Input = func(in *archive.InputProgress) {
		if in == nil {
			p.endInput()
		} else {
			p.begin(in)
		}
	}
	return p
}

// Progress returns the Progress the run counts in, and tells the display
// of its inputs through (its Input is the display's).
func (p *Display) Progress() *archive.Progress { return p.counts }

// begin shows the progress of the input in, from now on.
func (p *Display) begin(in *archive.InputProgress) {
	if p.mode == Off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		return // already running
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	every := p.every
	if p.mode == Bar {
		opts := []mpb.ContainerOption{mpb.WithRefreshRate(200 * time.Millisecond)}
		if cw := cupwriter.New(p.w, false); cw.IsTerminal() {
			opts = append(opts, mpb.WithConsoleWriter(sizedTerminal{cw}))
		} else {
			// --progress bar elsewhere: a line per refresh.
			opts = append(opts, mpb.WithOutput(p.w), mpb.WithAutoRefresh(), mpb.WithWidth(100))
		}
		p.p = mpb.New(opts...)
		every = 200 * time.Millisecond
	}
	go p.run(every, p.stop, p.done)
}

// The size the bar is drawn for on a terminal that reports no size: 0
// columns (a pseudo-terminal whose size was never set, as script(1) makes
// when it is not run from a terminal itself, or a CI runner's), or a size
// that cannot be read. mpb would draw nothing in 0 columns.
const (
	FallbackColumns = 80
	FallbackRows    = 24
)

// sizedTerminal is the console writer of the bar on a terminal: mpb's own
// (cupwriter), but for its size, which falls back to FallbackColumns and
// FallbackRows where the terminal reports none.
type sizedTerminal struct{ mpb.ConsoleWriter }

// GetTermSize returns the terminal's size, or the fallback for what it
// does not report; it never fails.
func (t sizedTerminal) GetTermSize() (width, height int, err error) {
	width, height, err = t.ConsoleWriter.GetTermSize()
	if err != nil || width <= 0 {
		width = FallbackColumns
	}
	if err != nil || height <= 0 {
		height = FallbackRows
	}
	return width, height, nil
}

// run updates the display every period until stop is closed, then closes
// done.
func (p *Display) run(every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.tick()
		}
	}
}

// tick draws or writes the progress once.
func (p *Display) tick() {
	s := p.counts.Snapshot()
	if p.mode == JSON {
		p.w.Write(appendJSON(nil, s))
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil && s.Input != "" {
		p.bar = p.p.New(10000, mpb.BarStyle(),
			mpb.PrependDecorators(decor.Name(diag.Text(s.Input)+" ")),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return " " + text(p.counts.Snapshot()) })))
	}
	if p.bar != nil && s.Fraction >= 0 {
		p.bar.SetCurrent(int64(s.Fraction * 10000))
	}
}

// endInput ends the bar of the current input.
func (p *Display) endInput() {
	if p.mode != Bar {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.SetTotal(-1, true)
		p.bar = nil
	}
}

// End stops the display, and waits until it has stopped: nothing more is
// written.
func (p *Display) End() {
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop = nil
	p.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
	if p.p != nil {
		p.endInput()
		p.p.Wait()
		p.p = nil
	}
}

// text is the text beside the bar: the input's bytes done, of
// its total when known (a plain file, a shard), the rates and the time
// left:
//
//	1.21 GB / 3.40 GB  412345 rec/s  523.1 MB/s  ETA 12s
func text(s archive.Snapshot) string {
	recs, bytes, eta := s.Rates()
	b := appendMB(nil, float64(s.Done))
	if s.Total >= 0 {
		b = append(b, " / "...)
		b = appendMB(b, float64(s.Total))
	}
	b = append(b, "  "...)
	b = strconv.AppendFloat(b, recs, 'f', 0, 64)
	b = append(b, " rec/s  "...)
	b = appendMB(b, bytes)
	b = append(b, "/s"...)
	if eta >= 0 {
		b = append(b, "  ETA "...)
		b = append(b, time.Duration(eta*float64(time.Second)).Round(time.Second).String()...)
	}
	return string(b)
}

// appendMB appends n bytes in MB (10^6), or GB from 10^9.
func appendMB(b []byte, n float64) []byte {
	if n >= 1e9 {
		return append(strconv.AppendFloat(b, n/1e9, 'f', 2, 64), " GB"...)
	}
	return append(strconv.AppendFloat(b, n/1e6, 'f', 1, 64), " MB"...)
}

// appendJSON appends one line of the JSON mode (--progress json):
//
//	{"progress":{"input":"a.jsonl.zst","elapsed_s":3.0,"records":123456,
//	 "bytes":234567890,"records_per_s":41152,"bytes_per_s":78189296,
//	 "fraction":0.42,"eta_s":4.1}}
//
// records and bytes count the whole run (all its inputs), bytes those of
// the JSON Lines read (decompressed); fraction is that of the current
// input; fraction and eta_s are left out when unknown (stdin).
func appendJSON(b []byte, s archive.Snapshot) []byte {
	recs, bytes, eta := s.Rates()
	b = append(b, `{"progress":{"input":`...)
	b = diag.AppendJSONString(b, s.Input)
	b = append(b, `,"elapsed_s":`...)
	b = strconv.AppendFloat(b, s.Elapsed.Seconds(), 'f', 1, 64)
	b = append(b, `,"records":`...)
	b = strconv.AppendInt(b, s.Records, 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, s.Bytes, 10)
	b = append(b, `,"records_per_s":`...)
	b = strconv.AppendFloat(b, recs, 'f', 0, 64)
	b = append(b, `,"bytes_per_s":`...)
	b = strconv.AppendFloat(b, bytes, 'f', 0, 64)
	if s.Fraction >= 0 {
		b = append(b, `,"fraction":`...)
		b = strconv.AppendFloat(b, s.Fraction, 'f', 4, 64)
	}
	if eta >= 0 {
		b = append(b, `,"eta_s":`...)
		b = strconv.AppendFloat(b, eta, 'f', 1, 64)
	}
	return append(b, "}}\n"...)
}
