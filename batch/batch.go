package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// DefaultBlockSize is the block size used when [Options].BlockSize is 0:
// enough records of envelope size (1-2 KB) to fill the lanes of
// [hashing.SumMany] many times over, little enough that the blocks in
// flight stay small.
const DefaultBlockSize = 256 << 10

// Mode selects what each [Result] carries.
type Mode uint8

const (
	// ModeDigest gives the SHA-256 digest of each record's canonical form
	// (Result.Digest). It is the zero Mode.
	ModeDigest Mode = iota
	// ModeCanonical gives the canonical form of each record
	// (Result.Canonical) and computes no digest.
	ModeCanonical
	// ModeBoth gives the digest and the canonical form.
	ModeBoth
)

// String returns "digest", "canonical" or "both".
func (m Mode) String() string {
	switch m {
	case ModeDigest:
		return "digest"
	case ModeCanonical:
		return "canonical"
	case ModeBoth:
		return "both"
	}
	return fmt.Sprintf("Mode(%d)", m)
}

func (m Mode) digests() bool   { return m != ModeCanonical }
func (m Mode) canonical() bool { return m != ModeDigest }

// Options configures a run. The zero value digests every record under
// [canon.Strict], with one worker per GOMAXPROCS and the profile's size
// bound.
type Options struct {
	// Profile is the canonicalization profile applied to every record.
	// The zero Profile is canon.Strict.
	Profile canon.Profile

	// Mode selects what each Result carries; the zero Mode is ModeDigest.
	Mode Mode

	// Workers is the number of goroutines that canonicalize and hash.
	// 0 means runtime.GOMAXPROCS(0). Results do not depend on it.
	Workers int

	// MaxRecord is the longest record accepted, in bytes (for a line, its
	// bytes before the "\n", a "\r" included). A longer record is
	// answered with class too-large. 0 means Profile.MaxSize(); otherwise
	// it must be within 1..canon.MaxSizeLimit, and the profile's own size
	// bound is set to it.
	MaxRecord int

	// BlockSize is the size in bytes of the blocks of input handed to the
	// workers; 0 means DefaultBlockSize. A record longer than a block is
	// read and canonicalized on its own, and one such record at most is
	// held at a time (see the package documentation). Small blocks are
	// correct but slow.
	BlockSize int

	// WorkersRead lets Stream's workers read the input themselves, each
	// its next block in turn, when they are at least as many as
	// GOMAXPROCS, rather than take the blocks from a goroutine that reads
	// ahead for them: each block is then checked and hashed in the cache
	// of the core that read it. Set it when a Read of r is a copy (a
	// file, a pipe, memory): canon's check of already-canonical records
	// took 1.5 times as long on bytes another core had just read, and two
	// workers that read for themselves measured 4% faster on an archive
	// in memory (BenchmarkArchive). Leave it unset when a Read computes (a
	// decompressor, a reader that hashes what it reads): on a goroutine
	// of its own that work overlaps the workers', and a zstd archive read
	// by the workers measured 30% slower. Records ignores it.
	WorkersRead bool

	// Idle, if not nil, is called on the calling goroutine, between two
	// results, when every block read so far has been delivered and the
	// run may wait for input (the --lines mode of the bbdigest command
	// flushes its output at that point): the place to flush buffered
	// output, so that a producer that waits for an answer gets it. It is
	// not called again before more results have been delivered. An error
	// from Idle stops the run, which returns it.
	Idle func() error

	// FirstLine is the number of the first record (Result.Line); 0 means
	// 1. A host that answers a part of a larger input (a shard of an
	// archive, or the rest of an interrupted run) sets it to the number of
	// lines before that part plus one, so that the numbers are those of
	// the whole input.
	FirstLine int64

	// Select, if not nil, chooses the part of each record that is
	// canonicalized and hashed, for records that wrap the JSON text to
	// digest (a claimed digest beside a document, say). It is called on
	// the workers, concurrently, with each record within the size bound
	// (a line without its "\n", or a document of Records), and returns the
	// bounds of the part, record[start:end], or an error with which the
	// record is answered instead. A rejection of the part by canon is a
	// *canon.Error whose Offset is counted from the start of the record
	// (its Pointer, from the part). Each Result then carries the record
	// and the part's bounds (Result.Record, Result.Part), for the
	// callback to read what else it needs. Bounds outside the record are
	// answered with an error.
	Select func(record []byte) (start, end int, err error)

	// Check, if not nil, is more work to do on each accepted record, on
	// the workers: a signature to verify, say. It is called concurrently,
	// once the record's block has been canonicalized and hashed, with the
	// record as read (a line without its "\n", or a document of Records;
	// with Select, the whole record), its canonical form (of the part
	// Select chose) and its digest (zero in ModeCanonical). An error from
	// Check answers the record instead, as a rejection (Result.Err; the
	// Digest and Canonical are then zero). The slices are valid only
	// during the call and must not be modified or kept. Each Result then
	// carries the record (Result.Record), as with Select. A rejected
	// record is not checked.
	Check func(record, canonical []byte, digest hashing.Digest) error
}

// config is a validated Options.
type config struct {
	profile     canon.Profile
	mode        Mode
	workers     int
	maxRecord   int
	blockSize   int
	maxRecs     int // records per block at most
	blocks      int // blocks in flight
	idle        func() error
	workersRead bool
	firstLine   int64
	selectFn    func([]byte) (int, int, error)
	check       func(record, canonical []byte, digest hashing.Digest) error
}

func (o Options) config() (config, error) {
	c := config{profile: o.Profile, mode: o.Mode, workers: o.Workers, blockSize: o.BlockSize, idle: o.Idle, workersRead: o.WorkersRead,
		firstLine: o.FirstLine, selectFn: o.Select, check: o.Check}
	if o.Mode > ModeBoth {
		return c, fmt.Errorf("batch: unknown mode %d", o.Mode)
	}
	switch {
	case o.FirstLine < 0:
		return c, fmt.Errorf("batch: negative first line %d", o.FirstLine)
	case o.FirstLine == 0:
		c.firstLine = 1
	}
	switch {
	case o.Workers < 0:
		return c, fmt.Errorf("batch: negative number of workers %d", o.Workers)
	case o.Workers == 0:
		c.workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.BlockSize < 0:
		return c, fmt.Errorf("batch: negative block size %d", o.BlockSize)
	case o.BlockSize == 0:
		c.blockSize = DefaultBlockSize
	}
	c.maxRecord = o.Profile.MaxSize()
	if o.MaxRecord != 0 {
		p, err := o.Profile.WithMaxSize(o.MaxRecord)
		if err != nil {
			return c, fmt.Errorf("batch: record size bound: %w", err)
		}
		c.profile, c.maxRecord = p, o.MaxRecord
	}
	// A block of short records holds at most this many, so that the
	// per-record state of the blocks in flight stays within a few times
	// the block size even for an input of empty lines.
	c.maxRecs = max(c.blockSize/64, 16)
	// Twice the workers, plus the block being read and the block being
	// delivered: a worker that finishes early starts another block
	// while the collector waits for an older one.
	c.blocks = 2*c.workers + 2
	return c, nil
}

// Result is the answer to one record.
type Result struct {
	// Line is the record's number, counted from Options.FirstLine (1 by
	// default): its line in a stream, its index plus one in a slice.
	Line int64

	// Digest is the SHA-256 digest of the record's canonical form. It is
	// zero when the record was rejected, and in ModeCanonical.
	Digest hashing.Digest

	// Canonical is the record's canonical form, in ModeCanonical and
	// ModeBoth; nil when the record was rejected. It is valid only until
	// the callback that receives the Result returns (copy it to keep it),
	// may share memory with the input (a record that is already canonical
	// is not copied), and must not be modified.
	Canonical []byte

	// Err is nil when the record was accepted. Otherwise it is a
	// *canon.Error (see errors.AsType) with the class, the byte offset in
	// the record, the JSON Pointer and the message. A line longer than
	// MaxRecord is answered with class too-large at offset MaxRecord,
	// pointer "" and the message "line longer than the N-byte bound"; a
	// record of Records longer than MaxRecord gets canon's own
	// too-large error ("input longer than the N-byte bound"). With
	// Options.Select or Options.Check, it may also be the error Select or
	// Check returned.
	Err error

	// Record is set only when Options.Select or Options.Check is, and
	// Part only when Select is: Record is the record as read (for a line,
	// without its "\n"), and Record[Part[0]:Part[1]] the part that Select
	// chose, when it chose one. Record is nil for a line longer than MaxRecord, which is not
	// kept. Like Canonical, Record is valid only until the callback
	// returns and must not be modified.
	Record []byte
	Part   [2]int
}

// Summary counts the results delivered: those passed to the callback,
// but for one whose callback returned an error. Records = Accepted +
// Rejected, and the counts of ByClass add up to Rejected (less the
// records rejected by an Options.Select or Options.Check error that is
// not a *canon.Error, which ByClass does not count).
type Summary struct {
	Records  int64
	Accepted int64
	Rejected int64
	// ByClass counts the rejected records by class; nil when none was
	// counted.
	ByClass map[canon.Class]int64
	// Bytes is the input behind the results delivered: for a stream, the
	// lines with their "\n"; for Records, the lengths of the records.
	Bytes int64
}

// Stream answers every line of r, a stream of JSON Lines, with one Result,
// and calls emit with each in input order, on the calling goroutine.
//
// A line ends at "\n", which is not part of it; a "\r" before it is
// (JSON whitespace, dropped with the rest). Every line is answered, an
// empty one included; the bytes after the last "\n", if any, are the last
// line; an empty input has no lines. The answers are exactly those of the
// --lines mode of the bbdigest command.
//
// Stream returns when r is exhausted, when emit returns an error (which
// Stream returns), when ctx is done (ctx.Err()), or when r fails. A read
// error is returned as it is, after the results of every line that ended
// before it; a line cut short by the error is not answered. In every case
// the results delivered are a prefix of those of the whole input, and
// Stream returns only once every goroutine it started has ended. It cannot
// interrupt a Read that blocks: to stop waiting on a pipe or a socket,
// also close it.
//
// The lines are read in blocks (Options.BlockSize), and a block is handed
// to the workers as soon as a Read from r returns complete lines, so a
// producer that writes one line and waits for its answer gets it (a
// caller that buffers its output flushes it in Options.Idle). A reader
// that returns a little at a time (a pipe, a decompressor) thus makes
// smaller blocks; wrap it in one that fills its buffer if that matters
// more than the prompt answer.
func Stream(ctx context.Context, r io.Reader, opts Options, emit func(Result) error) (Summary, error) {
	cfg, err := opts.config()
	if err != nil {
		return Summary{}, err
	}
	return run(ctx, cfg, cfg.workers, func(p *pipeline) source {
		return &lineSource{p: p, r: r}
	}, emit)
}

// Lines is [Stream] as an iterator: it yields each Result with a nil
// error, in input order, and then, if the run failed, one zero Result with
// the error. Breaking out of the loop stops the run; the loop ends only
// once every goroutine of the run has ended.
//
//	for res, err := range batch.Lines(ctx, r, opts) {
//		if err != nil {
//			return err
//		}
//		...
//	}
func Lines(ctx context.Context, r io.Reader, opts Options) iter.Seq2[Result, error] {
	return func(yield func(Result, error) bool) {
		_, err := Stream(ctx, r, opts, func(res Result) error {
			if !yield(res, nil) {
				return errStopped
			}
			return nil
		})
		if err != nil && err != errStopped {
			yield(Result{}, err)
		}
	}
}

// errStopped is how Lines stops a run when its loop breaks.
var errStopped = errors.New("batch: iteration stopped")

// Records answers each of docs, JSON texts held in memory, with one
// Result, and calls emit with each in order (docs[i] has Line i+1), on the
// calling goroutine. A record may be any JSON text, newlines included.
// Records does not modify docs, and docs must not change until it
// returns. Its errors and its ending are as for [Stream], without the
// read errors.
func Records(ctx context.Context, docs [][]byte, opts Options, emit func(Result) error) (Summary, error) {
	cfg, err := opts.config()
	if err != nil {
		return Summary{}, err
	}
	// No more workers than blocks.
	total := 0
	for _, d := range docs {
		total += min(len(d), cfg.blockSize)
	}
	workers := min(cfg.workers, len(docs), total/cfg.blockSize+1)
	cfg.workersRead = false // nothing to read: the documents are in memory
	return run(ctx, cfg, max(workers, 1), func(p *pipeline) source {
		return &docsSource{p: p, docs: docs}
	}, emit)
}

// Digests returns the digests of docs under profile, computed on every
// core: out[i] answers docs[i] (Line i+1, Canonical nil). If ctx is done
// before the end, it returns the results so far, a prefix, and ctx.Err().
func Digests(ctx context.Context, docs [][]byte, profile canon.Profile) ([]Result, error) {
	out := make([]Result, 0, len(docs))
	_, err := Records(ctx, docs, Options{Profile: profile}, func(r Result) error {
		out = append(out, r)
		return nil
	})
	return out, err
}
