package archive

import (
	"sync/atomic"
	"time"
)

// Progress is how far a run is, for a progress display (the bar and the
// --progress json lines of the bbdigest command) that reads it from
// another goroutine while the run goes on. Give each run a new one, in
// Options.Progress.
type Progress struct {
	// Input, if not nil, is called on the goroutine of the run when it
	// starts answering an input (positioned at a shard's range, before
	// the lines Resume checks), and called with nil once it has read the
	// input to its end. A display draws the input from there.
	Input func(*InputProgress)

	records atomic.Int64
	bytes   atomic.Int64
	started atomic.Int64 // time.Now().UnixNano() as the run started; 0 before
	cur     atomic.Pointer[InputProgress]
}

// Records returns the number of records answered so far, over all the
// inputs: with Resume, the lines kept, which are computed again to check
// them, count too.
func (p *Progress) Records() int64 { return p.records.Load() }

// Bytes returns the number of bytes of JSON Lines (decompressed) the
// workers have read so far, over all the inputs.
func (p *Progress) Bytes() int64 { return p.bytes.Load() }

// begin tells the display that the run starts answering the input in.
func (p *Progress) begin(in *InputProgress) {
	in.Start = p.bytes.Load()
	p.cur.Store(in)
	if p.Input != nil {
		p.Input(in)
	}
}

// endInput tells the display that the run has read the input whole.
func (p *Progress) endInput() {
	if p.Input != nil {
		p.Input(nil)
	}
}

// InputProgress is the input a run is answering, for Progress.Input.
type InputProgress struct {
	Name  string // as Input.Name
	Size  int64  // the size of the file (compressed, for a compressed file); -1: not a regular file
	Total int64  // the bytes of JSON Lines the run reads from Start: a shard's range to its nominal end, a plain file's rest; -1: unknown
	Start int64  // Progress.Bytes as the run started the input

	read *atomic.Int64
}

// Read returns the number of bytes of the file (compressed, for a
// compressed file) read so far: with Size, how much of a compressed file
// is done.
func (in *InputProgress) Read() int64 { return in.read.Load() }

// Snapshot is how far a run is at one moment (Progress.Snapshot).
type Snapshot struct {
	Input    string        // the input being answered; "" before the first
	Elapsed  time.Duration // since the run started
	Records  int64         // as Progress.Records
	Bytes    int64         // as Progress.Bytes
	Done     int64         // the bytes of JSON Lines of the input read
	Total    int64         // of the input's InputProgress.Total; -1: unknown
	Fraction float64       // of the input done, 0 to 1; -1: unknown
}

// Snapshot returns how far the run is now. The fraction done is that of
// the shard's range for a Shard, else that of the input file read (its
// compressed bytes for a compressed file); it is unknown for an input
// that is not a regular file.
func (p *Progress) Snapshot() Snapshot {
	s := Snapshot{Records: p.Records(), Bytes: p.Bytes(), Fraction: -1}
	if t := p.started.Load(); t != 0 {
		s.Elapsed = time.Since(time.Unix(0, t))
	}
	in := p.cur.Load()
	if in == nil {
		return s
	}
	s.Input, s.Done, s.Total = in.Name, s.Bytes-in.Start, in.Total
	switch {
	case in.Total > 0:
		s.Fraction = min(1, float64(s.Done)/float64(in.Total))
	case in.Total == 0:
		s.Fraction = 1
	case in.Size > 0:
		s.Fraction = min(1, float64(in.Read())/float64(in.Size))
	}
	return s
}

// Rates returns the records and the bytes answered per second since the
// run started, and the seconds left to the end of the input at that pace,
// -1 when unknown.
func (s Snapshot) Rates() (records, bytes, eta float64) {
	sec := s.Elapsed.Seconds()
	if sec <= 0 {
		return 0, 0, -1
	}
	eta = -1
	if s.Fraction > 0 {
		eta = sec * (1 - s.Fraction) / s.Fraction
	}
	return float64(s.Records) / sec, float64(s.Bytes) / sec, eta
}
