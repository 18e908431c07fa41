// This file is the pipeline that every entry point runs:
//
//   - A source (source.go) fills blocks with records in input order: whole
//     lines of a stream in the block's buffer, a run of Records' documents,
//     or one record longer than a block. It takes a free block, fills it,
//     and queues it for the collector (order). There are cfg.blocks blocks
//     in all, so the source waits for a free one when that many are in
//     flight: memory stays flat.
//   - Workers process the blocks. Each canonicalizes the records of a
//     block with its own canon.Canonicalizer, keeps the canonical forms in
//     the block, then hashes them all together with hashing.SumMany (its
//     multi-buffer lanes), runs Options.Check on each accepted record if
//     it is set, and signals the block's done channel. With
//     Options.WorkersRead and at least as many workers as Ps, each fills
//     its next block itself, calling the source under a lock (pull), so
//     that a block is read on the core that then works on it; otherwise a
//     goroutine of the source's fills the blocks and queues them for the
//     workers too (work), and reads while they work (see pullWorkers).
//   - The collector, on the caller's goroutine, takes blocks from order,
//     so in input order, waits for each to be done, delivers its results
//     and puts it back on the free list.
//
// A record longer than a block needs memory of its own. It is carried in a
// block of its own, which holds the pipeline's one long-record token from
// the moment the source starts reading it until the collector has
// delivered it: so at most one such record is held at a time, whatever the
// number of workers. The source takes the token in input order, and the
// block holding it is older than any block waiting for it, so the wait
// always ends. The token is also that memory (longToken): the buffer a
// long line is gathered into and the Canonicalizer of long records, kept
// from one long record to the next for the rest of the run, so that a run
// of long records does not allocate, clear and drop their size each time.

package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// blockKind says what a block holds.
type blockKind uint8

const (
	kindLines    blockKind = iota // whole lines, in buf[:end]
	kindDocs                      // a run of Records' documents, in docs
	kindLong                      // one record longer than a block, in long
	kindTooLarge                  // one line longer than the bound, skipped unkept
)

// block is the unit of work. The source owns it until it is queued, then a
// worker until it signals done, then the collector until it is free again.
type block struct {
	// Set by the source.
	kind  blockKind
	buf   []byte     // a stream's input; buf[:end] is whole lines (kindLines)
	end   int        //
	docs  [][]byte   // kindDocs
	long  []byte     // kindLong
	size  int        // input bytes of the kindLong or kindTooLarge record, with its "\n"
	token *longToken // the long-record token, when the block holds it

	// Set by the worker.
	recs      []record
	digests   []hashing.Digest
	out       []byte // canonical forms that are not in the input
	abandoned bool   // the run was cancelled before the block was processed

	done chan struct{} // signalled by the worker
}

// record is the answer to one record of a block, until it is delivered.
type record struct {
	view []byte // the canonical form, once the block is done
	off  int    // where the canonical form starts in out, or -1 when view is set
	size int    // input bytes, with the "\n" of a line
	err  error
	in   []byte // the record itself, with Options.Select or Options.Check only
	part [2]int // the bounds Select chose in it
}

// pipeline is the state shared by the source, the workers and the
// collector of one run.
type pipeline struct {
	cfg   config
	free  chan *block
	work  chan *block // the blocks for the workers, when the source has a goroutine
	order chan *block
	long  chan *longToken // the long-record token, when it is free

	// With the workers pulling (pull), srcMu serializes their calls to
	// src.next, and srcDone says that it has returned no block.
	srcMu   sync.Mutex
	src     source
	srcDone bool
	srcErr  error // why the source stopped; read after order is closed
}

// source fills blocks with the records of the input, in input order.
type source interface {
	// next returns the next block, filled, or nil when there is none:
	// the input has ended (nil), it failed (the error), or ctx is done.
	// It waits for a free block (pipeline.acquire), and for the
	// long-record token if it needs it. Calls must not overlap.
	next(ctx context.Context) (*block, error)
}

// pullWorkers reports whether the workers of a run read their blocks
// themselves (pull) rather than take them from a source goroutine: when
// Options.WorkersRead is set (reads are copies) and they are at least as
// many as the Ps. A block's bytes are then read into memory on the core
// that canonicalizes and hashes them, in its cache, where a source
// goroutine on another core left them in that core's: canon's check of
// already-canonical records took 1.5 times as long on 256 KiB of archive
// records that another core had just read as on the same bytes read on
// its own core (120 against 78 us, AMD EPYC Zen 5). With fewer workers
// than Ps, a source goroutine reads while the workers work, on a core
// that would otherwise be idle (one worker that read for itself measured
// 5% slower: BenchmarkArchive); and a Read that computes (a decompressor)
// runs best on a goroutine of its own, its state in one core's cache
// (zstd archives: 30% slower when the workers took turns). forcePull
// (tests) sets the choice: 1 push, 2 pull.
func pullWorkers(cfg *config, workers int) bool {
	switch forcePull {
	case 1:
		return false
	case 2:
		return true
	}
	return cfg.workersRead && workers >= runtime.GOMAXPROCS(0)
}

// forcePull overrides pullWorkers in tests: 0 chooses, 1 push, 2 pull.
var forcePull int

// run runs a pipeline of workers goroutines over the blocks of the source
// that newSource makes, delivers the results to emit on the calling
// goroutine, and returns once all the goroutines it started have ended.
func run(ctx context.Context, cfg config, workers int, newSource func(*pipeline) source, emit func(Result) error) (Summary, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &pipeline{
		cfg:   cfg,
		free:  make(chan *block, cfg.blocks),
		work:  make(chan *block, cfg.blocks),
		order: make(chan *block, cfg.blocks),
		long:  make(chan *longToken, 1),
	}
	p.src = newSource(p)
	for range cfg.blocks {
		p.free <- getBlock()
	}
	p.long <- new(longToken)

	var wg sync.WaitGroup
	// However this returns, a panic in emit included: stop every
	// goroutine, wait for them, and then keep the blocks that are idle.
	defer func() {
		cancel()
		wg.Wait()
		p.putBlocks()
	}()

	pull := pullWorkers(&p.cfg, workers)
	if !pull {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b, err := p.src.next(ctx)
				if b == nil {
					p.srcErr = err
					break
				}
				p.send(b)
			}
			close(p.work)
			close(p.order)
		}()
	}
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			p.worker(ctx, pull)
		}()
	}
	return p.collect(ctx, emit)
}

// pull returns the next block of the source, queued for the collector,
// for the worker that calls it to process; nil once the source has none.
func (p *pipeline) pull(ctx context.Context) *block {
	p.srcMu.Lock()
	defer p.srcMu.Unlock()
	if p.srcDone {
		return nil
	}
	b, err := p.src.next(ctx)
	if b == nil {
		p.srcDone, p.srcErr = true, err
		close(p.order)
		return nil
	}
	p.order <- b
	return b
}

// blockPool keeps the blocks of finished runs, so that a host that runs
// many small batches does not allocate their buffers each time.
var blockPool = sync.Pool{New: func() any { return &block{done: make(chan struct{}, 1)} }}

func getBlock() *block { return blockPool.Get().(*block) }

// putBlocks returns the free blocks to blockPool once the run is over. A
// block still in flight when a run was stopped may have a signal pending
// on done: it is left to the garbage collector.
func (p *pipeline) putBlocks() {
	for {
		select {
		case b := <-p.free:
			blockPool.Put(b)
		default:
			return
		}
	}
}

// acquire returns a free block, or ctx's error.
func (p *pipeline) acquire(ctx context.Context) (*block, error) {
	select {
	case b := <-p.free:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// send queues b for the workers and the collector. It never waits: the
// queues have room for every block.
func (p *pipeline) send(b *block) {
	p.order <- b
	p.work <- b
}

// unused gives back a block that the source took and does not send.
func (p *pipeline) unused(b *block) { p.free <- b }

// longToken is the long-record token, and the memory that its holder, and
// only its holder, uses for the one long record of the run held at a time.
// It lives as long as the run: one long record may be up to the size bound,
// and a pool would keep that much past the run.
type longToken struct {
	buf []byte               // what a long line was last gathered into (lineSource.long)
	cz  *canon.Canonicalizer // canonicalizes long records; nil until the first
}

// takeLong waits for the long-record token.
func (p *pipeline) takeLong(ctx context.Context) (*longToken, error) {
	select {
	case t := <-p.long:
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// releaseLong gives the long-record token back.
func (p *pipeline) releaseLong(t *longToken) { p.long <- t }

// recycle drops b's references to records and puts it on the free list.
func (p *pipeline) recycle(b *block) {
	if b.token != nil {
		p.releaseLong(b.token)
		b.token = nil
	}
	clear(b.recs)
	b.recs = b.recs[:0]
	b.docs, b.long = nil, nil
	if cap(b.out) > 4*p.cfg.blockSize {
		b.out = nil // do not keep the memory of one odd block
	}
	p.free <- b
}

// collect delivers the results of the blocks in input order.
func (p *pipeline) collect(ctx context.Context, emit func(Result) error) (Summary, error) {
	var sum Summary
	digests := p.cfg.mode.digests()
	canonical := p.cfg.mode.canonical()
	first := p.cfg.firstLine
	delivered := false // results delivered since Idle was last called
	idle := func() error {
		if !delivered || p.cfg.idle == nil {
			return nil
		}
		delivered = false
		return p.cfg.idle()
	}
	for {
		var b *block
		var ok bool
		select {
		case b, ok = <-p.order:
		default: // the source waits for input, or has not sent yet
			if err := idle(); err != nil {
				return sum, err
			}
			select {
			case b, ok = <-p.order:
			case <-ctx.Done():
				return sum, ctx.Err()
			}
		}
		if !ok {
			return sum, p.srcErr
		}
		select {
		case <-b.done:
		case <-ctx.Done():
			return sum, ctx.Err()
		}
		if b.abandoned {
			return sum, ctx.Err()
		}
		for k := range b.recs {
			if err := ctx.Err(); err != nil {
				return sum, err
			}
			r := &b.recs[k]
			res := Result{Line: first + sum.Records, Err: r.err, Record: r.in, Part: r.part}
			if r.err == nil {
				if digests {
					res.Digest = b.digests[k]
				}
				if canonical {
					res.Canonical = r.view
				}
			}
			if emit != nil {
				if err := emit(res); err != nil {
					return sum, err
				}
			}
			sum.add(r)
			delivered = true
		}
		p.recycle(b)
	}
}

// add counts one delivered record.
func (s *Summary) add(r *record) {
	s.Records++
	s.Bytes += int64(r.size)
	if r.err == nil {
		s.Accepted++
		return
	}
	s.Rejected++
	// Every error is a *canon.Error, but those of Options.Select.
	e, ok := errors.AsType[*canon.Error](r.err)
	if !ok {
		return
	}
	if s.ByClass == nil {
		s.ByClass = make(map[canon.Class]int64)
	}
	s.ByClass[e.Class]++
}

// worker processes blocks until the source has queued its last: those it
// reads itself (pull), or those the source goroutine queues on work.
func (p *pipeline) worker(ctx context.Context, pull bool) {
	w := workerPool.Get().(*worker)
	w.cfg = &p.cfg
	w.cz.Reset(p.cfg.profile)
	defer func() {
		w.cfg = nil
		// Records up to a block long grow the arena to a few times a
		// block; a default block's stay within the bound (see
		// TestWorkerPoolable).
		if w.cz.Poolable() {
			workerPool.Put(w)
		}
	}()
	for {
		var b *block
		if pull {
			b = p.pull(ctx)
		} else {
			b = <-p.work
		}
		if b == nil {
			return
		}
		b.abandoned = ctx.Err() != nil
		if !b.abandoned {
			w.process(b)
		}
		b.done <- struct{}{}
	}
}

// workerPool keeps the state of the workers of finished runs: a
// Canonicalizer grows its arena to the records it sees, and a run that
// started from a new one would grow it again.
var workerPool = sync.Pool{New: func() any { return &worker{cz: new(canon.Canonicalizer)} }}

// worker is the state of one worker goroutine.
type worker struct {
	cfg  *config
	cz   *canon.Canonicalizer
	msgs [][]byte         // the canonical forms of a block's accepted records
	idx  []int            // their indexes in the block
	sums []hashing.Digest // their digests, when some record was rejected
}

// process canonicalizes and hashes every record of b.
func (w *worker) process(b *block) {
	if cap(b.out) == 0 {
		b.out = make([]byte, 0, w.cfg.blockSize) // rather than grow it by doubling
	}
	b.recs, b.out = b.recs[:0], b.out[:0]
	switch b.kind {
	case kindLines:
		rest := b.buf[:b.end]
		for len(rest) > 0 {
			line, size := rest, len(rest) // the last line of the input may have no "\n"
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line, size = rest[:i], i+1
			}
			rest = rest[size:]
			if len(line) > w.cfg.maxRecord {
				b.recs = append(b.recs, record{off: -1, size: size, err: lineTooLarge(w.cfg.maxRecord)})
				continue
			}
			w.record(b, w.cz, line, size)
		}
	case kindDocs:
		for _, d := range b.docs {
			w.record(b, w.cz, d, len(d))
		}
	case kindLong:
		// The token's Canonicalizer, not the worker's, so that the
		// workers' scratch memory stays within what blocks need, and one
		// long record's at most is held. Its output is not rewritten
		// before the record is delivered (the token goes back only then),
		// so it is used where it lies.
		if b.token.cz == nil {
			b.token.cz = canon.New(w.cfg.profile)
		}
		w.record(b, b.token.cz, b.long, b.size)
	case kindTooLarge:
		b.recs = append(b.recs, record{off: -1, size: b.size, err: lineTooLarge(w.cfg.maxRecord)})
	}
	for k := range b.recs {
		if r := &b.recs[k]; r.off >= 0 {
			r.view = b.out[r.off : r.off+len(r.view)]
		}
	}
	if w.cfg.mode.digests() {
		w.hash(b)
	}
	if w.cfg.check != nil {
		w.check(b)
	}
}

// hash computes the digests of the accepted records of b.
func (w *worker) hash(b *block) {
	// All the accepted records of the block in one call, so that the
	// lanes run full from the first record to the last but a few.
	w.msgs, w.idx = w.msgs[:0], w.idx[:0]
	for k := range b.recs {
		if r := &b.recs[k]; r.err == nil {
			w.msgs = append(w.msgs, r.view)
			w.idx = append(w.idx, k)
		}
	}
	b.digests = slices.Grow(b.digests[:0], len(b.recs))[:len(b.recs)]
	if len(w.msgs) == len(b.recs) {
		hashing.SumMany(w.msgs, b.digests)
	} else {
		w.sums = slices.Grow(w.sums[:0], len(w.msgs))[:len(w.msgs)]
		hashing.SumMany(w.msgs, w.sums)
		for j, k := range w.idx {
			b.digests[k] = w.sums[j]
		}
	}
	clear(w.msgs) // do not keep the block's memory reachable
}

// check runs Options.Check on each accepted record of b, and answers with
// its error those it fails.
func (w *worker) check(b *block) {
	digests := w.cfg.mode.digests()
	for k := range b.recs {
		r := &b.recs[k]
		if r.err != nil {
			continue
		}
		var d hashing.Digest
		if digests {
			d = b.digests[k]
		}
		if err := w.cfg.check(r.in, r.view, d); err != nil {
			r.err, r.view = err, nil
		}
	}
}

// record appends the answer to rec, a record of size bytes of input, to
// b.recs: the answer to its part that Options.Select chooses, if it is
// set, else to rec itself. With Select or Check, the answer keeps rec.
func (w *worker) record(b *block, cz *canon.Canonicalizer, rec []byte, size int) {
	sel := w.cfg.selectFn
	if sel == nil {
		w.canonicalize(b, cz, rec, size, 0)
		if w.cfg.check != nil {
			b.recs[len(b.recs)-1].in = rec
		}
		return
	}
	if len(rec) > w.cfg.maxRecord { // a document of Records: canon's too-large
		w.canonicalize(b, cz, rec, size, 0)
	} else if start, end, err := sel(rec); err != nil {
		b.recs = append(b.recs, record{off: -1, size: size, err: err})
	} else if start < 0 || end < start || end > len(rec) {
		err := fmt.Errorf("batch: Select returned the bounds [%d, %d) in a record of %d bytes", start, end, len(rec))
		b.recs = append(b.recs, record{off: -1, size: size, err: err})
	} else {
		w.canonicalize(b, cz, rec[start:end], size, start)
		b.recs[len(b.recs)-1].part = [2]int{start, end}
	}
	b.recs[len(b.recs)-1].in = rec
}

// canonicalize appends the answer to src, a record of size bytes of input
// or the part of one that starts at offset base in it, to b.recs. A
// canonical form that is src itself, or that cz will not rewrite (b is
// kindLong), is kept where it lies; any other is copied to b.out, and its
// place recorded in off (view then holds it only for its length until
// process fixes it). The offset of an error is counted from the record's
// start.
func (w *worker) canonicalize(b *block, cz *canon.Canonicalizer, src []byte, size, base int) {
	v, err := cz.View(src)
	switch {
	case err != nil:
		if e, ok := errors.AsType[*canon.Error](err); ok && base > 0 {
			moved := *e
			moved.Offset += int64(base)
			err = &moved
		}
		b.recs = append(b.recs, record{off: -1, size: size, err: err})
	case b.kind == kindLong || sameStart(v, src):
		b.recs = append(b.recs, record{view: v, off: -1, size: size})
	default:
		b.recs = append(b.recs, record{view: v, off: len(b.out), size: size})
		b.out = append(b.out, v...)
	}
}

// sameStart reports whether the canonical form v is src itself, as View
// returns it for a record that is already canonical (neither is empty).
func sameStart(v, src []byte) bool {
	return len(v) > 0 && len(src) > 0 && &v[0] == &src[0]
}

// lineTooLarge is the answer to a line longer than limit, as the --lines
// mode of the bbdigest command has always given it.
func lineTooLarge(limit int) *canon.Error {
	return &canon.Error{
		Class:  canon.ClassTooLarge,
		Offset: int64(limit),
		Msg:    "line longer than the " + strconv.Itoa(limit) + "-byte bound",
	}
}
