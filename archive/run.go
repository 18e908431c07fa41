package archive

// The run of Rehash and Verify: the options, the run over the inputs and
// the result lines; verify.go reads the records of Verify, summary.go
// counts the outcomes, out.go keeps OutFile and its sidecar, stream.go
// positions the run in an input and shard.go cuts it into shards.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/diag"
)

// Options configures a run of Rehash or Verify. The zero Options answers
// under canon.Strict, with one worker per GOMAXPROCS, the profile's size
// bound, and the result lines discarded (only the Summary is kept).
type Options struct {
	// Profile is the canonicalization profile applied to every line (to
	// the document of each record, for Verify). The zero Profile is
	// canon.Strict.
	Profile canon.Profile

	// Workers is the number of goroutines that canonicalize and hash; 0
	// means runtime.GOMAXPROCS(0). The answers do not depend on it.
	Workers int

	// MaxRecord is the longest line answered, in bytes; a longer one is
	// answered with the class too-large, unread. 0 means
	// Profile.MaxSize(); otherwise it must be within
	// 1..canon.MaxSizeLimit.
	MaxRecord int

	// Output receives the result lines when OutFile is "", written in
	// blocks as the run goes on (and whenever the run waits for input).
	// nil discards them.
	Output io.Writer

	// OutFile, when not "", is the file the result lines go to instead
	// of Output, bound to the run by its sidecar, OutFile+".resume", so
	// that Resume can continue it after a crash or a kill: see the
	// package documentation. Without Resume, the run starts it over.
	OutFile string

	// Resume continues OutFile from the last checkpoint its sidecar
	// records, once every line kept is found, byte for byte, to be the
	// line this run writes; it needs OutFile.
	Resume bool

	// Shard, when its Count is not 0, answers only the lines of the one
	// input that start in its Index-th of Count byte ranges (see the
	// package documentation).
	Shard Shard

	// NoInputSHA256 leaves out of the Summary the SHA-256 of the input
	// bytes before and at the end of each input's range (StartSHA256 and
	// EndSHA256 are then zero), which Join needs to chain the shards:
	// hashing every input byte costs a run about a fifth of its time.
	// With OutFile, the input is always hashed (Resume checks it).
	NoInputSHA256 bool

	// NoOutputSHA256 leaves the SHA-256 of the result lines out of the
	// Summary (Output.SHA256 is then zero; Output.Bytes is still
	// counted): hashing them costs the goroutine that writes them, which
	// every worker waits on, a few percent of a run. With OutFile, the
	// output is always hashed (Resume checks it).
	NoOutputSHA256 bool

	// Progress, if not nil, is kept up to date as the run goes on, for a
	// progress display.
	Progress *Progress
}

// Shard is one of Count byte ranges of an input, for Count processes that
// answer one input together with no coordination (the pods of a
// Kubernetes Indexed Job, say). The zero Shard is the whole input.
type Shard struct {
	Index, Count int64
}

// String returns the shard as "I/N", or "" for the zero Shard.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return strconv.FormatInt(s.Index, 10) + "/" + strconv.FormatInt(s.Count, 10)
}

// ErrOutFileIsInput is the error, wrapped, of a run whose OutFile (or
// its sidecar) is one of its inputs: the run would cut the input it
// reads.
var ErrOutFileIsInput = errors.New("archive: OutFile is also an input")

// Rehash answers every line of the inputs, in order, with one JSON result
// line: its line number and the digest of its canonical form, or the
// class, offset, pointer and message of its rejection (see the package
// documentation), and returns the summary of the run. With several
// inputs, each result line names its input ("file").
//
// The summary is returned even when the run fails, marked incomplete,
// but for a run that fails before it answers anything: invalid Options,
// an OutFile that cannot be opened or is one of the inputs, or, with
// Resume, an OutFile that is not an output of this run (*ResumeError).
// The error is a *FileError when an input or OutFile cannot be opened or
// read, a *WriteError when the result lines cannot be written, a
// *ResumeError or an *InterruptedError when ctx is done first.
func Rehash(ctx context.Context, inputs []Input, opts Options) (*Summary, error) {
	return start(ctx, "rehash", inputs, opts)
}

// Verify is Rehash for archives of claims: each line a record
// {"digest":"sha256:…","doc":…} whose doc is checked against the digest
// it claims (see the package documentation). A result line says "ok"
// and the digest, or why not: the digest and the one claimed (class
// mismatch), the rejection of doc, or of the record (class wrapper).
func Verify(ctx context.Context, inputs []Input, opts Options) (*Summary, error) {
	return start(ctx, "verify", inputs, opts)
}

// outBuf is the size of the output buffer of a run.
const outBuf = 256 << 10

// outBufs keeps the output buffers of the runs that are done, for the
// next run in the process (see lineStreamBufs).
var outBufs = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, outBuf) }}

// run is one run of Rehash or Verify.
type run struct {
	ctx    context.Context
	verify bool
	opts   batch.Options
	inputs []Input
	multi  bool // several inputs: every result line has "file"
	hashed bool // the input bytes are hashed
	shard  Shard
	prog   *Progress

	outPath string   // OutFile, or ""
	outFile *os.File // OutFile, open
	resume  resumeState
	refused bool // OutFile is not an output of this run

	out  *bufio.Writer // the result lines, through outH
	outH *outputHash
	line []byte // the result line being built
	file []byte // the current input's "file" member, with its comma

	sum Summary
}

// start runs Rehash or Verify, as command says.
func start(ctx context.Context, command string, inputs []Input, o Options) (*Summary, error) {
	p := o.Profile
	bound := p.MaxSize()
	switch {
	case len(inputs) == 0:
		return nil, errors.New("archive: no input")
	case o.Workers < 0:
		return nil, fmt.Errorf("archive: negative number of workers %d", o.Workers)
	case o.MaxRecord != 0 && (o.MaxRecord < 1 || o.MaxRecord > canon.MaxSizeLimit):
		return nil, fmt.Errorf("archive: MaxRecord %d not within 1..%d", o.MaxRecord, canon.MaxSizeLimit)
	case o.Resume && o.OutFile == "":
		return nil, errors.New("archive: Resume needs OutFile")
	case o.Shard.Count < 0 || o.Shard.Count > 0 && (o.Shard.Index < 0 || o.Shard.Index >= o.Shard.Count):
		return nil, fmt.Errorf("archive: shard %d of %d", o.Shard.Index, o.Shard.Count)
	case o.Shard.Count > 0 && len(inputs) != 1:
		return nil, fmt.Errorf("archive: a shard is a share of one input's size, not of %d inputs", len(inputs))
	}
	for _, in := range inputs {
		if in.Open == nil {
			return nil, fmt.Errorf("archive: input %s has no Open", diag.Quote(in.Name))
		}
	}
	if o.MaxRecord != 0 {
		bound = o.MaxRecord
	}
	a := &run{
		ctx:     ctx,
		verify:  command == "verify",
		opts:    batch.Options{Profile: p, Workers: o.Workers, MaxRecord: bound},
		inputs:  inputs,
		multi:   len(inputs) > 1,
		hashed:  !o.NoInputSHA256 || o.OutFile != "",
		shard:   o.Shard,
		prog:    o.Progress,
		outPath: o.OutFile,
	}
	if a.prog == nil {
		a.prog = new(Progress)
	}
	a.prog.started.Store(time.Now().UnixNano())
	a.sum.init(command, p)
	a.sum.Shard = a.shard
	a.sum.MaxRecord = int64(bound)
	if a.verify {
		a.opts.Select = selectDoc
	}
	if a.outPath != "" {
		if err := a.openOut(o.Resume); err != nil {
			if a.outFile != nil {
				a.outFile.Close()
			}
			return nil, err
		}
		defer a.outFile.Close()
	} else {
		w := o.Output
		if w == nil {
			w = io.Discard
		}
		a.outH = newOutputHash(w, !o.NoOutputSHA256)
	}
	a.out = outBufs.Get().(*bufio.Writer)
	a.out.Reset(a.outH)
	defer func() {
		a.out.Reset(nil)
		outBufs.Put(a.out)
	}()
	// Flush when the run waits for input: a slow input (a pipe, a
	// network volume) then gets its answers written as they come, and a
	// killed run loses little (Resume).
	a.opts.Idle = func() error {
		if err := a.out.Flush(); err != nil {
			return err
		}
		if err := a.syncOut(syncEvery); err != nil {
			return &WriteError{err}
		}
		return nil
	}
	err := a.runInputs()
	// A failure to write the end of the output replaces no other error
	// but an interruption.
	_, interrupted := errors.AsType[*InterruptedError](err)
	if ferr := a.out.Flush(); ferr != nil {
		if err == nil || interrupted {
			err = writeFailure(ferr)
		}
	} else if serr := a.syncOut(0); serr != nil && (err == nil || interrupted) {
		// Record the last checkpoint, whether the run completed or not.
		err = writeFailure(serr)
	}
	if a.outFile != nil {
		if cerr := a.outFile.Close(); cerr != nil && (err == nil || interrupted) {
			err = writeFailure(cerr)
		}
	}
	if a.refused {
		return nil, err
	}
	a.sum.Output = a.outH.summary()
	a.sum.Complete = err == nil
	if ie, ok := errors.AsType[*InterruptedError](err); ok {
		// OutFile and its sidecar are synced (or the run failed writing
		// them, and the error says so): Resume goes on from here.
		ie.Results = a.resume.synced.results
		if a.resume.lastSync.IsZero() && a.resume.side != nil {
			ie.Results = a.resume.side.Results // stopped before a sidecar of its own: the one read back
		}
	}
	return &a.sum, err
}

// writeFailure returns err as a *WriteError.
func writeFailure(err error) error {
	if we, ok := errors.AsType[*WriteError](err); ok {
		return we
	}
	return &WriteError{err}
}

// runInputs answers every line of every input, in order. It stops at the
// first input that cannot be read, after the results of the lines read
// before the failure.
func (a *run) runInputs() error {
	for j := range a.inputs {
		if err := a.runInput(j); err != nil {
			return err
		}
	}
	if a.resume.remaining > 0 {
		return a.notThisRun(fmt.Sprintf("it holds %s, and the input has %s", diag.Plural(a.resume.lines, "result line", "result lines"), diag.Plural(a.resume.lines-a.resume.remaining, "line", "lines")))
	}
	return nil
}

// runInput answers every line of the input of index j.
func (a *run) runInput(j int) error {
	name := a.inputs[j].Name
	if a.multi {
		a.file = append(diag.AppendJSONString(append(a.file[:0], `"file":`...), name), ',')
	}
	in := a.sum.addInput(name)
	ai, err := openInput(a.ctx, a.inputs[j])
	if err != nil {
		return a.inputFailed(name, err)
	}
	defer ai.close()
	in.Compression = ai.compression
	s := newLineStream(ai.r, a.hashed)
	defer s.release() // after batch.Stream, which reads s, has returned
	hi := int64(-1)
	if sh := a.shard; sh.Count > 0 {
		size, err := streamSize(a.ctx, ai)
		if err != nil {
			return a.inputFailed(name, err)
		}
		in.Size, hi = size, mulDiv(size, sh.Index+1, sh.Count)
		if err := s.toBoundary(mulDiv(size, sh.Index, sh.Count)); err != nil {
			return a.inputFailed(name, err)
		}
	}
	in.Start, in.FirstLine, in.StartSHA256 = s.pos, s.lines()+1, s.sum()
	in.End, in.EndSHA256 = s.pos, in.StartSHA256
	pi := &InputProgress{Name: name, Size: ai.rawSize, Total: -1, read: &ai.rawRead}
	switch {
	case hi >= 0:
		pi.Total = max(0, hi-s.pos)
	case ai.compression == "none" && ai.rawSize >= 0:
		pi.Total = ai.rawSize - s.pos
	}
	// The progress covers the lines Resume checks (and computes again)
	// as well as those it answers.
	a.prog.begin(pi)
	s.count = &a.prog.bytes
	if err := a.skipAnswered(s, in, hi, j); err != nil {
		return err
	}
	before := a.sum.Records
	if a.outFile != nil {
		// Checkpoints: here, wherever a read ends at a line boundary
		// (on batch's reader goroutine), and at the end.
		a.push(checkpoint{results: before, input: j, inputSum: s.sum()})
		a.stamp()
		lines0 := s.lines()
		s.mark = func() {
			a.push(checkpoint{results: before + s.lines() - lines0, input: j, inputSum: s.sum()})
		}
	}
	a.opts.FirstLine = in.FirstLine + in.Lines
	// The workers read for themselves where a Read is a copy: not through
	// a decompressor, nor with every byte hashed as it is read (that
	// work is better on batch's reader goroutine, beside the workers').
	a.opts.WorkersRead = ai.compression == "none" && !a.hashed
	// Only checkpoints (s.mark) count lines from here: the run's are
	// counted by batch (in.Lines below).
	s.uncounted = s.mark == nil
	_, err = batch.Stream(a.ctx, s.reader(hi), a.opts, a.emit)
	if err == nil && a.ctx.Err() != nil {
		// ctx done as the input ended, which may be its writer's end by
		// the same Ctrl-C (a pipeline): no checkpoint at its end, whose
		// last line may be one cut short.
		err = a.ctx.Err()
	}
	a.prog.endInput()
	in.End, in.EndSHA256 = s.pos, s.sum()
	in.Lines += a.sum.Records - before
	s.mark = nil
	if err == nil && a.outFile != nil {
		a.push(checkpoint{results: a.sum.Records, input: j, inputSum: in.EndSHA256})
		a.stamp()
		a.resume.doneSums = append(a.resume.doneSums, in.EndSHA256)
	}
	if err != nil {
		if we, ok := errors.AsType[*WriteError](err); ok {
			return we
		}
		return a.inputFailed(name, err) // ctx's error too
	}
	if s.ended() {
		in.Size = s.pos
	}
	return nil
}

// inputFailed returns the error of the input (or OutFile) called name
// that could not be read: an *InterruptedError when it is ctx that
// stopped the reading, else a *FileError.
func (a *run) inputFailed(name string, err error) error {
	if a.ctx.Err() != nil {
		return &InterruptedError{Err: a.ctx.Err()}
	}
	return &FileError{Name: name, Err: err}
}

// resultParts is what a result line says: the line number, and the
// outcome: accepted (class ""), rejected with class, offset, pointer and
// message, or for verify the digest and, when it is not the one claimed
// (class mismatch), the claimed one.
type resultParts struct {
	line            int64
	class           string
	offset          int64
	pointer         string
	message         string
	digest, claimed hashing.Digest
}

// appendResult appends the result line of r, as emit writes it, for the
// current input.
func (a *run) appendResult(b []byte, r *resultParts) []byte {
	b = append(b, '{')
	b = append(b, a.file...)
	b = append(b, `"line":`...)
	b = strconv.AppendInt(b, r.line, 10)
	switch {
	case r.class == classMismatch && a.verify:
		b = append(b, `,"ok":false,"digest":"`...)
		b = r.digest.AppendTo(b)
		b = append(b, `","claimed":"`...)
		b = r.claimed.AppendTo(b)
		return append(b, "\"}\n"...)
	case r.class != "":
		if a.verify {
			b = append(b, `,"ok":false`...)
		}
		b = append(b, `,"error":{"class":"`...)
		b = append(b, r.class...)
		b = append(b, `","offset":`...)
		b = strconv.AppendInt(b, r.offset, 10)
		b = append(b, `,"pointer":`...)
		b = diag.AppendJSONString(b, r.pointer)
		b = append(b, `,"message":`...)
		b = diag.AppendJSONString(b, r.message)
		return append(b, "}}\n"...)
	case a.verify:
		b = append(b, `,"ok":true,"digest":"`...)
	default:
		b = append(b, `,"digest":"`...)
	}
	b = r.digest.AppendTo(b)
	return append(b, "\"}\n"...)
}

// count counts the outcome of r in the summary.
func (a *run) count(r *resultParts) {
	if r.class != "" {
		a.sum.fail(r.class)
	} else {
		a.sum.accept()
	}
}

// resultOf returns what the result line of one record says.
func (a *run) resultOf(res batch.Result) (resultParts, error) {
	r := resultParts{line: res.Line}
	switch {
	case res.Err != nil:
		r.class, r.offset, r.pointer, r.message = errorParts(res.Err, a.verify && res.Part[1] > 0)
	case !a.verify:
		r.digest = res.Digest
	default:
		claimed, err := claimOf(res)
		if err != nil {
			return r, err // Select accepted the record: never
		}
		r.digest = res.Digest
		if claimed != res.Digest {
			r.claimed, r.class = claimed, classMismatch
		}
	}
	return r, nil
}

// emit writes the result line of one record and counts its outcome.
func (a *run) emit(res batch.Result) error {
	r, err := a.resultOf(res)
	if err != nil {
		return err
	}
	b := a.appendResult(a.line[:0], &r)
	a.count(&r)
	a.line = b
	a.prog.records.Add(1)
	if _, err := a.out.Write(b); err != nil {
		return err
	}
	if a.outFile != nil {
		a.resume.outH.Write(b)
		a.resume.outN += int64(len(b))
		if a.stamp() {
			if err := a.syncOut(syncEveryBusy); err != nil {
				return &WriteError{err}
			}
		}
	}
	return nil
}

// errorParts returns the class, offset, JSON pointer and message of the
// error that rejected a record: a *canon.Error, or a *wrapperError of
// verify. The offset and the pointer are both in the line: inDoc says
// that the error is canon's rejection of verify's doc, whose pointer,
// from doc, gets doc's own, "/doc", in front (batch already counts its
// offset from the line's start). A too-large line has the pointer "" (the
// line, unread), and so has a wrapper error: it is the record itself
// that is not {"digest":…,"doc":…}, read without decoding it (a member
// name written with escapes is refused, not decoded), and the offset says
// where the reading stopped.
func errorParts(err error, inDoc bool) (class string, off int64, pointer, msg string) {
	if e, ok := errors.AsType[*canon.Error](err); ok {
		pointer = e.Pointer
		if inDoc {
			pointer = docPointer + pointer
		}
		return e.Class.String(), e.Offset, pointer, e.Msg
	}
	if e, ok := errors.AsType[*wrapperError](err); ok {
		return classWrapper, int64(e.offset), "", e.msg
	}
	return "internal", 0, "", err.Error() // batch never gives another error
}

// quote returns s double-quoted, escaped as every name in a message.
func quote(s string) string { return diag.Quote(s) }

// outputHash passes the output through, counting its bytes and hashing
// them with SHA-256, for the summary. An error writing is a *WriteError.
type outputHash struct {
	w io.Writer
	h hash.Hash
	n int64
}

// newOutputHash returns an outputHash that writes to w, and hashes what
// it writes if hashed is set (else its summary has a zero SHA256).
func newOutputHash(w io.Writer, hashed bool) *outputHash {
	o := &outputHash{w: w}
	if hashed {
		o.h = hashing.New()
	}
	return o
}

func (o *outputHash) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if o.h != nil {
		o.h.Write(p[:n])
	}
	o.n += int64(n)
	if err != nil {
		err = &WriteError{err}
	}
	return n, err
}

// summary returns the count and the digest of the bytes written so far.
func (o *outputHash) summary() OutputSummary {
	var d hashing.Digest
	if o.h != nil {
		copy(d[:], o.h.Sum(nil))
	}
	return OutputSummary{Bytes: o.n, SHA256: d}
}
