package receipt

// The Log: an append-only receipt file with group commit.
//
// Two goroutines per Log do the work, in a pipeline:
//
//   - The signer takes the Appends' requests in the order they arrive,
//     assigns each its seq, signs it and adds its line to the group being
//     gathered. Signing is serial by nature (each record's prev_hash is
//     the SHA-256 of the line before it, signature included), and one
//     goroutine doing all of it signs without handing a lock from caller
//     to caller between records.
//   - The flusher writes a group with one write, syncs it with one fsync,
//     and answers each of its requests. The signer hands it the group it
//     has gathered whenever it is idle, so while one group is written and
//     synced the next one gathers, and a group holds what arrived during
//     the flush before it.
//
// An Append sends its request and waits for the answer; it returns only
// once its line is synced (or failed). Close stops taking requests, waits
// for those in flight, and stops both goroutines.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/syncdir"
)

// Options configures Open. The zero value tries the lock once and stamps
// receipts with time.Now.
type Options struct {
	// Wait is how long Open waits for another Log, in this process or
	// another, to release the file: 0 tries once. Negative is an error.
	Wait time.Duration
	// Now, if not nil, is the clock for TimestampMS (tests).
	Now func() time.Time
}

// Receipt is one record as appended.
type Receipt struct {
	Seq     uint64
	Line    []byte         // the line, without its "\n"; owned by the Receipt
	Digest  hashing.Digest // SHA-256 of Line: the prev_hash of the next record
	Payload Payload        // with Seq, PrevHash, KeyID, ReceiptID and TimestampMS filled
}

// TornTail describes the torn last record that Open found and cut off.
type TornTail struct {
	Offset int64  // where it started, the length of the file after the cut
	Size   int64  // its bytes, now at the end of Path
	Seq    uint64 // the seq it would have had, which the next Append takes (in a whole log, also its line)
	Path   string // the file that keeps its bytes: the log's path + ".torn"
}

// Stats counts what a Log did since Open.
type Stats struct {
	Appends uint64 // records appended (written and synced)
	Writes  uint64 // write calls: one per group
	Syncs   uint64 // fsync calls: one per group; Appends/Syncs is the grouping
}

// Log is an append-only receipt file that one Log at a time has open (an
// exclusive flock on the file). Append is safe for concurrent use. Close
// it to release the file and the Log's two goroutines.
type Log struct {
	path string
	f    *os.File
	s    *Signer
	now  func() time.Time
	torn *TornTail

	// The chain, owned by the signer goroutine (and by Open before it
	// starts).
	seq     uint64   // the last record's seq
	prev    [32]byte // the last record's digest
	scratch []byte

	reqs    chan *request // Append to the signer; closed by Close
	flushQ  chan *group   // the signer to the flusher, unbuffered; closed by the signer
	spare   chan []byte   // a flushed group's buffer, back to the signer
	stopped chan struct{} // closed when the flusher has ended

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup

	failed atomic.Pointer[error] // the first write or fsync failure; wraps ErrFailed

	appends, writes, syncs, signed atomic.Uint64

	// Test hooks: serial makes each Append sign, write and sync its own
	// record, one Append at a time, on its own goroutine (the baseline of
	// BenchmarkAppend; set it before the first Append); write and sync
	// replace the file's (fault injection, timing).
	serial   bool
	serialMu sync.Mutex
	write    func(b []byte) error
	sync     func() error
}

// request is one Append, from the caller to the signer and the flusher.
type request struct {
	p    Payload
	rec  Receipt
	err  error
	done chan struct{} // closed once rec or err is set
}

// answer sets r's error and wakes its Append.
func (r *request) answer(err error) {
	r.err = err
	close(r.done)
}

// group is the records of one write and fsync.
type group struct {
	buf  []byte
	reqs []*request
}

// Open opens the receipt log at path for appending with s, creating it
// (mode 0600, its directory entry synced) if it does not exist, and takes
// an exclusive lock on it, waiting up to o.Wait for another Log to release
// it before failing with an error wrapping ErrLocked.
//
// It then checks the tail of the file, not the whole chain (Verify does
// that): the bytes after the last "\n" are a torn record, the remains of
// an append that a crash cut short (see the package documentation for the
// rule). They are appended to path+".torn", which is synced, and cut off
// the log, which is synced too; Recovered reports them. The last complete
// record must verify under s's key (canonical, well formed, key_id and
// receipt_id, signature) and link to the record before it (that record
// verifies too, its seq is one less, and prev_hash is its digest), or be
// the first record (seq 1): if not, Open fails without changing the file.
// A chain broken further back is found by Verify, not by Open. The next Append continues from it: its seq plus one, and its
// digest as prev_hash.
func Open(path string, s *Signer, o Options) (*Log, error) {
	if s == nil {
		return nil, errors.New("receipt: open: nil Signer")
	}
	if o.Wait < 0 {
		return nil, fmt.Errorf("receipt: open %s: negative wait %v", path, o.Wait)
	}
	l := &Log{path: path, s: s, now: o.Now}
	if l.now == nil {
		l.now = time.Now
	}
	f, created, err := openFile(path)
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path == path {
		err = pe.Err // the message names path once, not "open PATH: open PATH: ..."
	}
	if err != nil {
		return nil, fmt.Errorf("receipt: open %s: %w", path, err)
	}
	l.f = f
	if err := lockFile(f, o.Wait); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%w: %s is open in another Log (waited %v)", ErrLocked, path, o.Wait)
		}
		return nil, fmt.Errorf("receipt: open %s: lock: %w", path, err)
	}
	if created {
		if err := syncdir.Sync(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, fmt.Errorf("receipt: open %s: sync directory: %w", path, err)
		}
	}
	if err := l.recover(); err != nil {
		f.Close()
		return nil, err
	}
	l.reqs = make(chan *request, 256)
	l.flushQ = make(chan *group)
	l.spare = make(chan []byte, 1)
	l.stopped = make(chan struct{})
	go l.signer()
	go l.flusher()
	return l, nil
}

// openFile opens path for appending, creating it if need be.
func openFile(path string) (f *os.File, created bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, false, err
	}
	f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	return f, false, err
}

// tornPrefix is the start of every receipt line: a torn record's bytes
// must match it, but for NUL bytes (see recover).
const tornPrefix = linePrefix + `{"`

// recover checks the tail of the file and cuts off a torn record.
func (l *Log) recover() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("receipt: open %s: "+format, append([]any{l.path}, args...)...)
	}
	st, err := l.f.Stat()
	if err != nil {
		return fail("%w", err)
	}
	if !st.Mode().IsRegular() {
		return fail("not a regular file")
	}
	size := st.Size()
	end, err := lastNewline(l.f, size, size) // the log's bytes are f[:end]
	if err != nil {
		return fail("%w", err)
	}
	start := int64(0) // where the last complete line starts
	if end > 0 {
		nl, err := lastNewline(l.f, end-1, MaxLineSize+1)
		if err != nil {
			return fail("%w", err)
		}
		if nl < 0 {
			return fail("the last record, before offset %d, is longer than %d bytes", end-1, MaxLineSize)
		}
		start = nl
	}
	torn := size - end
	if torn > 0 {
		// What a crash leaves: a prefix of the line being written,
		// perhaps followed or replaced by the NUL bytes of blocks the
		// file system had not written. Anything else after the last
		// "\n" is not ours to cut.
		head := make([]byte, min(torn, int64(len(tornPrefix))))
		if _, err := l.f.ReadAt(head, end); err != nil {
			return fail("%w", err)
		}
		for i, c := range head {
			if c != 0 && c != tornPrefix[i] {
				return fail("the %d bytes after the last record, from offset %d, end without \"\\n\" but are not the start of a receipt: not cut", torn, end)
			}
		}
	}
	if end > 0 {
		line := make([]byte, end-1-start)
		if _, err := l.f.ReadAt(line, start); err != nil {
			return fail("%w", err)
		}
		var p Payload
		v := newVerifier(l.s.pub)
		le := notCanonical(line, nil)
		if le == nil {
			le = v.check(line, &p)
		}
		if le != nil {
			return fmt.Errorf("receipt: open %s: the last record, at offset %d: %w", l.path, start, le)
		}
		// The last record must link to the one before it (or be the
		// first): the next Append continues from it, and a chain broken
		// just before its end (records lost or out of order, two logs
		// run together) must not be continued as if whole. The rest of
		// the chain is Verify's to check.
		if err := l.checkLink(start, &p); err != nil {
			return fail("the last record, at offset %d: %w", start, err)
		}
		l.seq, l.prev = p.Seq, hashing.Sum(line)
	}
	if torn > 0 {
		if err := l.cutTorn(end, torn); err != nil {
			return fail("keep the torn record: %w", err)
		}
		l.torn = &TornTail{Offset: end, Size: torn, Seq: l.seq + 1, Path: l.path + ".torn"}
	}
	return nil
}

// checkLink checks that p, the payload of the last line, which starts at
// offset start, links to the line before it: the first record (seq 1, a
// zero prev_hash) when there is none, else the next seq after that line's,
// with prev_hash its SHA-256. The line before is checked as a receipt
// under the same key.
func (l *Log) checkLink(start int64, p *Payload) error {
	if start == 0 {
		if p.Seq != 1 || p.PrevHash != ([32]byte{}) {
			return fmt.Errorf("%w: it is the only record but has seq %d", ErrSeq, p.Seq)
		}
		return nil
	}
	ps, err := lastNewline(l.f, start-1, MaxLineSize+1)
	if err != nil {
		return err
	}
	if ps < 0 {
		return fmt.Errorf("the record before it is longer than %d bytes", MaxLineSize)
	}
	prev := make([]byte, start-1-ps)
	if _, err := l.f.ReadAt(prev, ps); err != nil {
		return err
	}
	var pp Payload
	if le := newVerifier(l.s.pub).check(prev, &pp); le != nil {
		return fmt.Errorf("the record before it, at offset %d: %w", ps, le)
	}
	if p.Seq != pp.Seq+1 {
		return fmt.Errorf("%w: seq %d follows seq %d", ErrSeq, p.Seq, pp.Seq)
	}
	if p.PrevHash != [32]byte(hashing.Sum(prev)) {
		return fmt.Errorf("%w: its prev_hash is not the SHA-256 of the record before it", ErrLink)
	}
	return nil
}

// lastNewline returns the offset just past the last "\n" in f[before-limit:
// before] (0 if f[:before] has none and before <= limit), or -1 if there is
// none within limit bytes. It reads backwards, 64 KiB at a time.
func lastNewline(f *os.File, before, limit int64) (int64, error) {
	buf := make([]byte, 64<<10)
	lo := max(before-limit, 0)
	for hi := before; hi > lo; {
		n := min(int64(len(buf)), hi-lo)
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, hi-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return hi - n + int64(i) + 1, nil
		}
		hi -= n
	}
	if lo == 0 {
		return 0, nil
	}
	return -1, nil
}

// cutTorn appends f[off:off+n] to path.torn, syncs it, and truncates the
// log to off, synced.
func (l *Log) cutTorn(off, n int64) error {
	tf, created, err := openFile(l.path + ".torn")
	if err != nil {
		return err
	}
	_, err = io.Copy(tf, io.NewSectionReader(l.f, off, n))
	if err == nil {
		err = tf.Sync()
	}
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		err = syncdir.Sync(filepath.Dir(l.path))
	}
	if err != nil {
		return err
	}
	if err := l.f.Truncate(off); err != nil {
		return err
	}
	return l.f.Sync()
}

// Recovered returns the torn record Open cut off, or nil when the file
// ended with a complete record.
func (l *Log) Recovered() *TornTail { return l.torn }

// Stats returns what the Log has done since Open.
func (l *Log) Stats() Stats {
	return Stats{Appends: l.appends.Load(), Writes: l.writes.Load(), Syncs: l.syncs.Load()}
}

// Append records p as the next receipt and returns it once its line is
// written and synced to disk (fsync). It fills p's Seq (the last record's
// plus one), PrevHash (the last line's SHA-256), KeyID and ReceiptID, and
// TimestampMS when it is zero, then signs p under the strict profile's JCS.
//
// Concurrent Appends share writes and fsyncs (group commit): while one
// group is being written, the records that arrive are signed and gathered
// into the next, so a burst of N Appends costs far fewer than N fsyncs.
// Each record still returns only once it is durable.
//
// A payload that cannot be written (see Payload) is refused with nothing
// appended. ctx is looked at before the record is handed to the signer:
// once it is, the Append waits for its write and sync, which end on their
// own, whatever ctx does. If a write or sync fails, Append returns an error
// wrapping it and ErrFailed, and the Log is failed: every later Append
// returns the first failure at once (fail closed), and the records of the
// group that failed may or may not be in the file. Open the file again to
// go on.
func (l *Log) Append(ctx context.Context, p Payload) (Receipt, error) {
	if err := ctx.Err(); err != nil {
		return Receipt{}, err
	}
	if err := p.check(); err != nil {
		return Receipt{}, err
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return Receipt{}, ErrClosed
	}
	l.inflight.Add(1)
	l.mu.Unlock()
	defer l.inflight.Done()
	if err := l.failure(); err != nil {
		return Receipt{}, err
	}
	r := &request{p: p, done: make(chan struct{})}
	if l.serial {
		// The benchmark's baseline: sign, write and sync one record at a
		// time, here, with no goroutine between (the signer and the flusher
		// stay idle).
		l.serialMu.Lock()
		g := &group{}
		if l.sign(g, r); len(g.reqs) > 0 {
			l.commit(g)
		}
		l.serialMu.Unlock()
	} else {
		l.reqs <- r
	}
	<-r.done
	if r.err != nil {
		return Receipt{}, r.err
	}
	return r.rec, nil
}

// failure returns the error that failed the Log, or nil.
func (l *Log) failure() error {
	if e := l.failed.Load(); e != nil {
		return *e
	}
	return nil
}

// signer signs the requests in the order they arrive, gathering their
// lines into groups for the flusher, until Close closes l.reqs.
func (l *Log) signer() {
	defer close(l.flushQ)
	g := &group{}
	for {
		var r *request
		var ok bool
		if len(g.reqs) == 0 {
			r, ok = <-l.reqs
		} else {
			select {
			case l.flushQ <- g:
				g = &group{}
				select {
				case g.buf = <-l.spare:
				default:
				}
				continue
			case r, ok = <-l.reqs:
			}
		}
		if !ok {
			if len(g.reqs) > 0 {
				l.flushQ <- g
			}
			return
		}
		l.sign(g, r)
	}
}

// sign assigns r its seq, signs it and adds its line to g; or answers it
// with an error, taking no seq.
func (l *Log) sign(g *group, r *request) {
	if err := l.failure(); err != nil {
		r.answer(err)
		return
	}
	if l.seq >= maxSafe {
		r.answer(fmt.Errorf("receipt: the log is full: seq %d is 2^53-1", l.seq))
		return
	}
	p := &r.p
	if p.TimestampMS == 0 {
		p.TimestampMS = l.now().UnixMilli() // here: in seq order, as far as the clock goes
	}
	p.Seq, p.PrevHash = l.seq+1, l.prev
	p.KeyID, p.ReceiptID = l.s.keyID, l.s.receiptID(p.Seq)
	line := l.s.appendLine(l.scratch[:0], p)
	l.scratch = line[:0]
	if len(line) > MaxLineSize {
		r.answer(fmt.Errorf("receipt: the receipt line would be %d bytes, above %d", len(line), MaxLineSize))
		return
	}
	r.rec = Receipt{Seq: p.Seq, Line: bytes.Clone(line), Digest: hashing.Sum(line), Payload: *p}
	l.seq, l.prev = p.Seq, r.rec.Digest
	g.buf = append(append(g.buf, line...), '\n')
	g.reqs = append(g.reqs, r)
	l.signed.Add(1)
}

// flusher writes and syncs each group the signer hands it, and answers
// its requests, until the signer closes l.flushQ.
func (l *Log) flusher() {
	defer close(l.stopped)
	for g := range l.flushQ {
		l.commit(g)
		if cap(g.buf) <= 1<<20 {
			select {
			case l.spare <- g.buf[:0]:
			default:
			}
		}
	}
}

// commit writes and syncs g, unless the Log has failed, and answers its
// requests. A failure fails the Log.
func (l *Log) commit(g *group) {
	err := l.failure()
	if err == nil {
		if err = l.writeSync(g.buf); err != nil {
			err = fmt.Errorf("%w: %w", ErrFailed, err)
			l.failed.Store(&err) // only commit fails the Log, one group at a time
		} else {
			l.appends.Add(uint64(len(g.reqs)))
		}
	}
	for _, r := range g.reqs {
		r.answer(err)
	}
}

// writeSync writes b at the end of the file and syncs it.
func (l *Log) writeSync(b []byte) error {
	l.writes.Add(1)
	var err error
	if l.write != nil {
		err = l.write(b)
	} else {
		_, err = l.f.Write(b)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	l.syncs.Add(1)
	if l.sync != nil {
		err = l.sync()
	} else {
		err = l.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("fsync %s: %w", l.path, err)
	}
	return nil
}

// Close waits for the Appends in progress, then closes the file, which
// releases the lock. Later Appends return ErrClosed; so does a second
// Close.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closed = true
	l.mu.Unlock()
	l.inflight.Wait()
	close(l.reqs)
	<-l.stopped
	return l.f.Close()
}
