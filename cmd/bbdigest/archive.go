package main

// archive is "bbdigest archive rehash|verify": it answers every line of
// JSON Lines archives with one JSON result line, on every core, through
// package batch. This file holds the command line, the run over the
// inputs and the result lines; archive_verify.go reads the records of
// verify, and archive_summary.go counts the outcomes and writes the
// summary.

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// archiveOutBuf is the size of the output buffer of rehash and verify.
const archiveOutBuf = 256 << 10

// archiveOutBufs keeps the output buffers of the runs that are done, for
// the next run in the process (see lineStreamBufs).
var archiveOutBufs = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, archiveOutBuf) }}

// archiveRun is one run of rehash or verify.
type archiveRun struct {
	c       *cli
	fsName  string   // "archive rehash" or "archive verify"
	args    []string // the command line after "archive rehash|verify"
	ctx     context.Context
	verify  bool
	opts    batch.Options
	inputs  []string // as given; "-" is stdin
	multi   bool     // several inputs: every result line has "file"
	jsonSum bool     // --json

	shard       shardSpec
	summaryPath string // --summary, or ""
	prog        *progress

	outPath string   // --out, or ""
	outFile *os.File // --out FILE, open
	resume  resumeState
	refused bool // --out FILE is not an output of this run

	out  *bufio.Writer // the result lines, through outH
	outH *outputHash
	line []byte // the result line being built
	file []byte // the current input's "file" member, with its comma

	sum archiveSummary
}

// archiveRun runs "bbdigest archive rehash|verify [FLAGS] [FILE...|-]".
func (c *cli) archiveRun(sub string, args []string) int {
	fs := c.flagSet("archive " + sub)
	profile := fs.String("profile", "strict", "")
	workers := new(workersFlag) // 1..maxWorkers, as for --lines; 0 (unset): one per core
	fs.Var(workers, "workers", "")
	jsonSum := fs.Bool("json", false, "")
	maxRecord := fs.Int("max-record", 0, "")
	out := fs.String("out", "", "")
	resume := fs.Bool("resume", false, "")
	shard := fs.String("shard", "", "")
	shards := fs.Int64("shards", 0, "")
	summary := fs.String("summary", "", "")
	progressFlag := fs.String("progress", "auto", "")
	operands, code := c.parse(fs, args, -1)
	if code >= 0 {
		return code
	}
	p, ok := c.profile(*profile)
	if !ok {
		return exitUsage
	}
	// A flag given with an empty value (--out=, --summary "") is refused,
	// not taken as absent: the run would otherwise answer on stdout, or
	// write no summary, where one was asked for.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range []string{"out", "summary"} {
		if v := fs.Lookup(name).Value.String(); given[name] && (v == "" || name == "out" && v == "-") {
			return c.usageError(fs.Name(), "--"+name+" needs a file name; without --"+name+" "+map[string]string{
				"out":     "the results go to stdout",
				"summary": "the summary goes to stderr",
			}[name])
		}
	}
	bound := p.MaxSize()
	if given["max-record"] {
		if *maxRecord < 1 || *maxRecord > canon.MaxSizeLimit {
			return c.usageError(fs.Name(), "--max-record must be within 1.."+strconv.Itoa(canon.MaxSizeLimit))
		}
		bound = min(bound, *maxRecord)
	}
	mode, ok := progressMode(*progressFlag, c.stderr)
	if !ok {
		return c.usageError(fs.Name(), "--progress takes auto (the default), bar, json or off, not "+quote(*progressFlag))
	}
	switch {
	case *resume && *out == "":
		return c.usageError(fs.Name(), "--resume needs --out FILE")
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	a := &archiveRun{
		c:       c,
		fsName:  fs.Name(),
		args:    args,
		ctx:     context.Background(),
		verify:  sub == "verify",
		opts:    batch.Options{Profile: p, Workers: int(*workers), MaxRecord: bound},
		inputs:  operands,
		multi:   len(operands) > 1,
		jsonSum: *jsonSum,
		outPath: *out,

		summaryPath: *summary,
		prog:        newProgress(mode, c.stderr),
	}
	if code := a.shardFlags(*shard, *shards); code >= 0 {
		return code
	}
	if a.summaryPath == "-" || a.summaryPath != "" && a.summaryPath == a.outPath {
		return c.usageError(fs.Name(), "--summary needs a file name of its own")
	}
	a.sum.init(sub, p)
	a.sum.shard = a.shard
	a.sum.maxRecord = int64(bound)
	if a.verify {
		a.opts.Select = selectDoc
	}
	if a.outPath != "" {
		// A run whose output --resume can continue stops on Ctrl-C with
		// its output in order, and says how to go on (interrupted).
		var stop context.CancelFunc
		a.ctx, stop = interruptible()
		defer stop()
		if code := a.openOut(a.outPath, *resume); code >= 0 {
			return code
		}
		defer a.outFile.Close()
	} else {
		a.outH = newOutputHash(stdoutWriter{c.stdout})
	}
	a.out = archiveOutBufs.Get().(*bufio.Writer)
	a.out.Reset(a.outH)
	defer func() {
		a.out.Reset(nil)
		archiveOutBufs.Put(a.out)
	}()
	// Flush when the run waits for input: a slow input (a pipe, a
	// network volume) then gets its answers written as they come, and a
	// killed run loses little (--resume).
	a.opts.Idle = func() error {
		if err := a.out.Flush(); err != nil {
			return err
		}
		if err := a.syncOut(syncEvery); err != nil {
			return writeError{err}
		}
		return nil
	}
	code = a.runInputs()
	a.prog.end()
	if err := a.out.Flush(); err != nil && code != exitUsage {
		code = a.writeFailure(err)
	} else if err == nil {
		// Record the last checkpoint, whether the run completed or not.
		if err := a.syncOut(0); err != nil && code != exitUsage {
			code = a.writeFailure(err)
		}
	}
	if a.outFile != nil {
		if err := a.outFile.Close(); err != nil && code != exitUsage {
			code = a.writeFailure(err)
		}
	}
	if a.refused {
		return code
	}
	a.sum.output = a.outH.summary()
	a.sum.complete = code != exitUsage && code != exitInterrupted
	a.writeSummary()
	if a.summaryPath != "" {
		if err := writeFileAtomic(a.summaryPath, a.sum.appendJSON(nil)); err != nil {
			c.errorf("%s: %s", fileField(a.summaryPath), ioMessage(err))
			code = exitUsage
		}
	}
	if code == exitInterrupted {
		// FILE and its sidecar are synced (or the run failed writing
		// them, and the code says so): --resume goes on from here.
		a.interrupted(fs)
	}
	return code
}

// runInputs answers every line of every input, in order, and returns the
// exit code. It stops at the first input that cannot be read, after the
// results of the lines read before the failure.
func (a *archiveRun) runInputs() int {
	for j, name := range a.inputs {
		if code := a.runInput(j, name); code != exitOK {
			return code
		}
	}
	if a.resume.remaining > 0 {
		return a.notThisRun(fmt.Sprintf("it holds %s, and the input has %s", plural(a.resume.lines, "result line", "result lines"), plural(a.resume.lines-a.resume.remaining, "line", "lines")))
	}
	return a.sum.exitCode()
}

// runInput answers every line of the input called name.
func (a *archiveRun) runInput(j int, name string) int {
	c := a.c
	if a.multi {
		a.file = append(appendJSONString(append(a.file[:0], `"file":`...), name), ',')
	}
	in := a.sum.addInput(name)
	ai, err := c.openArchive(a.ctx, name)
	if err != nil {
		return a.ioFail(name, err)
	}
	defer ai.close()
	in.compression = ai.compression
	s := newLineStream(ai.r, a.jsonSum || a.summaryPath != "" || a.outPath != "")
	defer s.release() // after batch.Stream, which reads s, has returned
	hi := int64(-1)
	if sh := a.shard; sh.count > 0 {
		size, err := c.streamSize(a.ctx, ai)
		if err != nil {
			return a.ioFail(name, err)
		}
		in.size, hi = size, mulDiv(size, sh.index+1, sh.count)
		if err := s.toBoundary(mulDiv(size, sh.index, sh.count)); err != nil {
			return a.ioFail(name, err)
		}
	}
	in.start, in.firstLine, in.startSHA256 = s.pos, s.lines()+1, s.sum()
	in.end, in.endSHA256 = s.pos, in.startSHA256
	pi := &progressInput{name: name, raw: &ai.rawRead, rawSize: ai.rawSize, total: -1}
	switch {
	case hi >= 0:
		pi.total = max(0, hi-s.pos)
	case ai.compression == "none" && ai.rawSize >= 0:
		pi.total = ai.rawSize - s.pos
	}
	// The progress covers the lines --resume checks (and computes again)
	// as well as those it answers.
	a.prog.begin(pi)
	s.count = &a.prog.bytes
	if code := a.skipAnswered(s, in, hi, j); code >= 0 {
		return code
	}
	before := a.sum.records
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
	a.opts.FirstLine = in.firstLine + in.lines
	_, err = batch.Stream(a.ctx, s.reader(hi), a.opts, a.emit)
	if err == nil && a.ctx.Err() != nil {
		// Ctrl-C as the input ended, which may be its writer's end by the
		// same Ctrl-C (a pipeline): no checkpoint at its end, whose last
		// line may be one cut short.
		err = a.ctx.Err()
	}
	a.prog.endInput()
	in.end, in.endSHA256 = s.pos, s.sum()
	in.lines += a.sum.records - before
	s.mark = nil
	if err == nil && a.outFile != nil {
		a.push(checkpoint{results: a.sum.records, input: j, inputSum: in.endSHA256})
		a.stamp()
		a.resume.doneSums = append(a.resume.doneSums, in.endSHA256)
	}
	if err != nil {
		if we, ok := errors.AsType[writeError](err); ok {
			return a.writeFailure(we.err)
		}
		return a.ioFail(name, err) // ctx's error too: Ctrl-C
	}
	if s.ended() {
		in.size = s.pos
	}
	return exitOK
}

// ioFail reports that the input called name could not be read, unless
// it was Ctrl-C that stopped the reading.
func (a *archiveRun) ioFail(name string, err error) int {
	a.prog.end()
	if a.ctx.Err() != nil {
		return exitInterrupted
	}
	a.c.ioFailure(name, err)
	return exitUsage
}

// writeFailure reports an error writing the output.
func (a *archiveRun) writeFailure(err error) int {
	a.prog.end()
	if we, ok := errors.AsType[writeError](err); ok {
		err = we.err
	}
	a.c.errorf("%s", writeMessage(err))
	return exitUsage
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
func (a *archiveRun) appendResult(b []byte, r *resultParts) []byte {
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
		b = appendJSONString(b, r.pointer)
		b = append(b, `,"message":`...)
		b = appendJSONString(b, r.message)
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
func (a *archiveRun) count(r *resultParts) {
	if r.class != "" {
		a.sum.fail(r.class)
	} else {
		a.sum.accept()
	}
}

// resultOf returns what the result line of one record says.
func (a *archiveRun) resultOf(res batch.Result) (resultParts, error) {
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
func (a *archiveRun) emit(res batch.Result) error {
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
				return writeError{err}
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

// outputHash passes the output through, counting its bytes and hashing
// them with SHA-256, for the summary.
type outputHash struct {
	w io.Writer
	h hash.Hash
	n int64
}

func newOutputHash(w io.Writer) *outputHash {
	return &outputHash{w: w, h: hashing.New()}
}

func (o *outputHash) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	o.h.Write(p[:n])
	o.n += int64(n)
	return n, err
}

// summary returns the count and the digest of the bytes written so far.
func (o *outputHash) summary() outputSummary {
	var d hashing.Digest
	copy(d[:], o.h.Sum(nil))
	return outputSummary{bytes: o.n, sha256: d}
}
