package archive

import "sync/atomic"

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
	Total int64  // the bytes of JSON Lines the run reads from Start: a shard's range, a plain file's rest; -1: unknown
	Start int64  // Progress.Bytes as the run started the input

	read *atomic.Int64
}

// Read returns the number of bytes of the file (compressed, for a
// compressed file) read so far: with Size, how much of a compressed file
// is done.
func (in *InputProgress) Read() int64 { return in.read.Load() }
