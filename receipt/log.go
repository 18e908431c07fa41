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
//     records its last record in the high-water file (mark.go), synced,
//     and answers each of its requests. The signer hands it the group it
//     has gathered whenever it is idle, so while one group is written and
//     synced the next one gathers, and a group holds what arrived during
//     the flush before it, up to maxGroup records.
//
// An Append sends its request and waits for the answer; it returns only
// once its line is synced and under the high-water mark (or failed).
// Close stops taking requests, waits for those in flight, and stops both
// goroutines.
//
// The order of the two syncs is the whole of the crash safety: the mark
// is never ahead of a durable log, so a log shorter than its mark lost
// acknowledged records (Open refuses it), and a record past the mark was
// never acknowledged (Open cuts it off). So at most one group, the one in
// flight, is ever past the mark.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	// Deterministic makes every signature crypto/ed25519.Sign's, RFC
	// 8032's deterministic one, so that the same key, payloads and clock
	// write the same log byte for byte (golden files, tests). By default
	// a Log signs with nonces drawn ahead on goroutines of its own (see
	// the package documentation, # Group commit), several times faster
	// on its serial path, and its signatures differ from run to run.
	Deterministic bool
}

// Receipt is one record as appended.
type Receipt struct {
	Seq     uint64
	Line    []byte         // the line, without its "\n"; owned by the Receipt
	Digest  hashing.Digest // SHA-256 of Line: the prev_hash of the next record
	Payload Payload        // with Seq, PrevHash, KeyID, ReceiptID and TimestampMS filled
}

// TornTail describes the bytes past the high-water mark that Open found
// and cut off: records never acknowledged, a torn record, or both (see
// Open).
type TornTail struct {
	Offset  int64  // where they started: the mark's Size, the length of the file after the cut
	Size    int64  // their bytes, now at the end of Path
	Seq     uint64 // the seq the first of them had or would have had, the mark's plus one, which the next Append takes (in a whole log, also its line)
	Records int    // the complete records among them, signed but never acknowledged; 0 when they are only a torn record
	Path    string // the file that keeps their bytes: the log's path + ".torn"
}

// Stats counts what a Log did since Open.
type Stats struct {
	Appends uint64 // records appended (written, synced, under the high-water mark)
	Writes  uint64 // write calls to the log: one per group
	Syncs   uint64 // fsync calls: two per group, the log's and then its high-water file's (plus those of a failure's cut)

	// Presigned counts the records signed with a nonce drawn ahead, on
	// the Log's own goroutines (see the package documentation, # Group
	// commit); the others were signed with crypto/ed25519.Sign.
	Presigned uint64
}

// Log is an append-only receipt file that one Log at a time has open (an
// exclusive flock on the file). Append is safe for concurrent use. Close
// it to release the file and the Log's two goroutines.
type Log struct {
	path string
	f    *os.File
	mark *markFile // the high-water file; owned by the flusher (and by Open before it starts)
	size int64     // the log's acknowledged length, the mark's Size; owned like mark
	s    *Signer
	now  func() time.Time
	torn *TornTail

	// The chain, owned by the signer goroutine (and by Open before it
	// starts).
	seq  uint64   // the last record's seq
	prev [32]byte // the last record's digest

	// Signing with nonces drawn ahead (nonce.go): the pool, nil with FIPS
	// 140-3 mode on, the nonce taken for the record being signed, and
	// signWith's scratch; used by the one goroutine that signs (the
	// signer, or an Append under serialMu).
	nonces  *noncePool
	nonce   nonce
	scratch *signScratch

	reqs    chan *request // Append to the signer; closed by Close
	flushQ  chan *group   // the signer to the flusher, unbuffered; closed by the signer
	spare   chan *group   // answered groups, back to the signer for reuse
	stopped chan struct{} // closed when the flusher has ended

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup

	failed atomic.Pointer[error] // the first write or fsync failure; wraps ErrFailed

	appends, writes, syncs, signed, presigned atomic.Uint64

	// Test hooks: serial makes each Append sign, write and sync its own
	// record, one Append at a time, on its own goroutine (the baseline of
	// BenchmarkAppend; set it before the first Append); write, sync and
	// truncate replace the log file's (fault injection, timing), and
	// mark.sync the high-water file's fsync; synced is called after a
	// group's fsync, before its high-water update (the kill test's
	// window).
	serial   bool
	serialMu sync.Mutex
	write    func(b []byte) error
	sync     func() error
	truncate func(size int64) error
	synced   func()
}

// request is one Append, from the caller to the signer and the flusher.
// Requests are pooled (requests): once its Append has taken the answer
// from done, no goroutine of the Log holds it.
type request struct {
	p      Payload  // the caller's; the signer fills Seq, PrevHash, KeyID, ReceiptID, TimestampMS
	g      *group   // the group that holds line; nil if the signer answered with an error
	line   []byte   // the signed line, without "\n", in g.buf
	digest [32]byte // SHA-256 of line
	err    error
	done   chan struct{} // one send once line or err is set (buffered: the answer never blocks)
}

// answer sets r's error and wakes its Append.
func (r *request) answer(err error) {
	r.err = err
	r.done <- struct{}{}
}

// requests pools the Appends' requests, with their done channels.
var requests = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

// group is the records of one write and fsync. The lines of its requests
// stay in its buf until each Append has copied its own out; the last one
// to do so hands the group back to the signer (spare), for a later group.
type group struct {
	buf    []byte
	reqs   []*request
	left   atomic.Int32 // the Appends still to take their answer: set before the first is answered
	seq    uint64       // the last record's seq
	digest [32]byte     // the last record's digest
}

// maxGroup is the most records a group holds. It bounds what a crash or a
// failure can leave past the high-water mark, which Open checks: more
// than one group past the mark is not what the Log leaves.
const maxGroup = 256

// Open opens the receipt log at path for appending with s, and takes an
// exclusive lock on it, waiting up to o.Wait for another Log to release it
// before failing with an error wrapping ErrLocked.
//
// The log's high-water file, MarkPath(path), records its last
// acknowledged record (see Mark). A new log is made only where neither
// file is: Open creates the log (mode 0600) and then its high-water file
// (the zero Mark), each synced with its directory entry. An empty log
// whose high-water file is missing or damaged is taken as new too: the
// crash window of its creation. Open refuses, changing nothing:
//
//   - a missing log beside a high-water file (ErrTruncated): the log was
//     deleted or moved, and a new one in its place would continue nothing;
//   - a log with records but no intact high-water file (ErrMark): written
//     by a bbdigest that kept none, or the file was deleted or damaged;
//   - a log shorter than its mark's Size (ErrTruncated): acknowledged
//     records were removed from its end, or an older copy put back;
//   - a log whose line ending at the mark's Size is not the mark's record
//     (ErrReplaced): its SHA-256 the mark's Digest, its seq the mark's, a
//     receipt that verifies under s's key (canonical, well formed, key_id
//     and receipt_id, signature), linked to the record before it (which
//     verifies too, its seq one less, prev_hash its digest) or the first.
//
// Open checks the log against this checkpoint, not the whole chain: the
// mark's digest commits to every record before it, through the prev_hash
// links, but Open does not read them again; Verify does, and a chain
// broken before the mark is found by Verify, not by Open. Every
// acknowledged record is at or below the mark, so erasing any of them
// shortens the log below the mark, or changes the mark's record.
//
// Past the mark there may be what a crash or a failed write or fsync left
// before the mark was updated (see the package documentation): complete
// records whose Appends never returned, each verifying under s's key and
// linked to the one before, starting from the mark's record, at most one
// group's worth; then, after the last "\n", a torn record. Their
// decisions never took effect, so Open cuts them off: their bytes are
// appended to path+".torn", which is synced, and the log is truncated to
// the mark's Size, synced; Recovered reports them. Anything else past the
// mark fails Open without changing the file. The next Append continues
// from the mark's record: its seq plus one, and its digest as prev_hash.
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
	f, created, err := openLog(path)
	if err != nil {
		return nil, err
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
		if l.mark != nil {
			l.mark.close()
		}
		return nil, err
	}
	l.reqs = make(chan *request, 256)
	l.flushQ = make(chan *group)
	l.spare = make(chan *group, 4)
	l.stopped = make(chan struct{})
	if !o.Deterministic {
		l.nonces, l.scratch = newNoncePool(s.key), newSignScratch()
	}
	go l.signer()
	go l.flusher()
	return l, nil
}

// openLog opens the log at path for appending. It creates it (created is
// true) only when its high-water file is missing too: a missing log beside
// a high-water file was deleted or moved.
func openLog(path string) (f *os.File, created bool, err error) {
	fail := func(err error) (*os.File, bool, error) {
		// The message names path once, not "open PATH: open PATH: ...".
		return nil, false, fmt.Errorf("receipt: open %s: %w", path, pathError(path, err))
	}
	f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err == nil {
		return f, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fail(err)
	}
	markPath := MarkPath(path)
	ms, err := readMarkState(markPath)
	if err != nil {
		return nil, false, fmt.Errorf("receipt: open %s: the log is missing, and its high-water file %s cannot be read: %w", path, markPath, pathError(markPath, err))
	}
	if ms.exists {
		what := "is there"
		if m, _, ok := ms.newest(); ok {
			what = fmt.Sprintf("records seq %d (through offset %d)", m.Seq, m.Size)
		}
		return nil, false, fmt.Errorf("%w: %s is missing, but its high-water file %s %s: the log was deleted or moved", ErrTruncated, path, markPath, what)
	}
	f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f, true, nil
	}
	if errors.Is(err, fs.ErrExist) { // another Open created it since
		if f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0); err == nil {
			return f, false, nil
		}
	}
	return fail(err)
}

// tornPrefix is the start of every receipt line: a torn record's bytes
// must match it, but for NUL bytes (see checkTail).
const tornPrefix = linePrefix + `{"`

// recover checks the log against its high-water mark, as Open says, cuts
// off what is past the mark, and opens the high-water file (creating it
// for a new log). The lock is held: no other Log writes either file.
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
	markPath := MarkPath(l.path)
	ms, err := readMarkState(markPath)
	if err != nil {
		return fail("high-water file %s: %w", markPath, pathError(markPath, err))
	}
	m, slot, ok := ms.newest()
	if !ok {
		switch {
		case size > 0 && !ms.exists:
			return fmt.Errorf("%w: %s has %d bytes but no high-water file %s: written by a bbdigest that kept none, or the high-water file was deleted", ErrMark, l.path, size, markPath)
		case size > 0:
			return fmt.Errorf("%w: the high-water file %s of %s is damaged: neither of its two slots holds a mark", ErrMark, markPath, l.path)
		case !ms.exists:
			l.mark, err = createMark(markPath)
		default: // the crash window of createMark
			l.mark, err = rewriteMark(markPath)
		}
		if err != nil {
			return fail("create the high-water file %s: %w", markPath, pathError(markPath, err))
		}
		return nil
	}
	if size < m.Size {
		return fmt.Errorf("%w: %s has %d bytes, fewer than the %d through seq %d that its high-water file %s records: acknowledged records were removed from its end, or an older copy was put back", ErrTruncated, l.path, size, m.Size, m.Seq, markPath)
	}
	if m.Seq > 0 {
		if err := l.checkMark(m, markPath); err != nil {
			return err
		}
	}
	l.seq, l.prev, l.size = m.Seq, m.Digest, m.Size
	var records int
	if size > m.Size {
		var refuse error
		if records, refuse, err = l.checkTail(m, size); err != nil {
			return fail("%w", err)
		}
		if refuse != nil {
			return fail("the %d bytes past the high-water mark (seq %d, offset %d in %s) are not what a crash or a failed write leaves: %w; not cut", size-m.Size, m.Seq, m.Size, markPath, refuse)
		}
	}
	if l.mark, err = openMark(markPath, slot, m); err != nil {
		return fail("high-water file %s: %w", markPath, pathError(markPath, err))
	}
	if size > m.Size {
		if err := l.cutTorn(m.Size, size-m.Size); err != nil {
			return fail("keep the bytes past the high-water mark: %w", err)
		}
		l.torn = &TornTail{Offset: m.Size, Size: size - m.Size, Seq: m.Seq + 1, Records: records, Path: l.path + ".torn"}
	}
	return nil
}

// checkMark checks that the line of the log that ends at m.Size is the
// record m names, under the Log's key, linked to the one before it.
func (l *Log) checkMark(m Mark, markPath string) error {
	replaced := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format+", which its high-water file %s records as seq %d", append(append([]any{ErrReplaced, l.path}, args...), markPath, m.Seq)...)
	}
	var nl [1]byte
	if _, err := l.f.ReadAt(nl[:], m.Size-1); err != nil {
		return fmt.Errorf("receipt: open %s: %w", l.path, err)
	}
	if nl[0] != '\n' {
		return replaced("no line ends at offset %d", m.Size)
	}
	start, err := lastNewline(l.f, m.Size-1, MaxLineSize+1)
	if err != nil {
		return fmt.Errorf("receipt: open %s: %w", l.path, err)
	}
	if start < 0 {
		return replaced("the line that ends at offset %d is longer than %d bytes", m.Size, MaxLineSize)
	}
	line := make([]byte, m.Size-1-start)
	if _, err := l.f.ReadAt(line, start); err != nil {
		return fmt.Errorf("receipt: open %s: %w", l.path, err)
	}
	if d := hashing.Sum(line); d != m.Digest {
		return replaced("the line at offset %d, %v, is not %v", start, d, m.Digest)
	}
	// The line is the one acknowledged; it must still be a receipt of
	// this key (another key's log and mark are refused here), and link to
	// the one before it: the next Append continues from it.
	var p Payload
	le := notCanonical(line, nil)
	if le == nil {
		le = newVerifier(l.s.pub).check(line, &p)
	}
	if le != nil {
		return fmt.Errorf("receipt: open %s: the record of the high-water mark, at offset %d: %w", l.path, start, le)
	}
	if p.Seq != m.Seq {
		return replaced("the record at offset %d has seq %d", start, p.Seq)
	}
	if err := l.checkLink(start, &p); err != nil {
		return fmt.Errorf("receipt: open %s: the record of the high-water mark, at offset %d: %w", l.path, start, err)
	}
	return nil
}

// checkTail checks the bytes of the log past the mark m, up to size: the
// records of at most one group, each verifying and linked to the one
// before from m's record, then a torn record. It returns how many records
// there are, or why the bytes are not that (refuse), or an error reading
// them.
func (l *Log) checkTail(m Mark, size int64) (records int, refuse, err error) {
	end, err := lastNewline(l.f, size, size-m.Size) // the records are f[m.Size:end]
	if err != nil {
		return 0, nil, err
	}
	end = max(end, m.Size) // -1 or 0: no "\n" past the mark
	if end > m.Size {
		v := newVerifier(l.s.pub)
		sc := bufio.NewScanner(io.NewSectionReader(l.f, m.Size, end-m.Size))
		sc.Buffer(make([]byte, 0, 64<<10), MaxLineSize+1)
		sc.Split(scanLine)
		seq, prev, off := m.Seq, m.Digest, m.Size
		for sc.Scan() {
			line := sc.Bytes()
			if records++; records > maxGroup {
				return 0, fmt.Errorf("more than %d records, which one group holds at most: the high-water file was rolled back, or another writer appended to the log", maxGroup), nil
			}
			var p Payload
			le := notCanonical(line, nil)
			if le == nil {
				le = v.check(line, &p)
			}
			switch {
			case le != nil:
				return 0, fmt.Errorf("the line at offset %d: %w", off, le), nil
			case p.Seq != seq+1:
				return 0, fmt.Errorf("the record at offset %d: %w: seq %d follows seq %d", off, ErrSeq, p.Seq, seq), nil
			case p.PrevHash != prev:
				return 0, fmt.Errorf("the record at offset %d: %w: its prev_hash is not the SHA-256 of the record before it", off, ErrLink), nil
			}
			seq, prev = p.Seq, hashing.Sum(line)
			off += int64(len(line)) + 1
		}
		if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
			return 0, fmt.Errorf("the line at offset %d is longer than %d bytes", off, MaxLineSize), nil
		} else if err != nil {
			return 0, nil, err
		}
	}
	if torn := size - end; torn > 0 {
		// What a crash leaves: a prefix of the line being written,
		// perhaps followed or replaced by the NUL bytes of blocks the
		// file system had not written. Anything else after the last
		// "\n" is not ours to cut.
		head := make([]byte, min(torn, int64(len(tornPrefix))))
		if _, err := l.f.ReadAt(head, end); err != nil {
			return 0, nil, err
		}
		for i, c := range head {
			if c != 0 && c != tornPrefix[i] {
				return 0, fmt.Errorf("the %d bytes after the last \"\\n\", from offset %d, are not the start of a receipt", torn, end), nil
			}
		}
	}
	return records, nil, nil
}

// scanLine is a bufio.SplitFunc for lines that end with "\n", and only
// "\n" (bufio.ScanLines would drop a "\r" before it).
func scanLine(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
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
	tf, created, err := openAppend(l.path + ".torn")
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

// openAppend opens path for appending, creating it (mode 0600) if need be.
func openAppend(path string) (f *os.File, created bool, err error) {
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

// Recovered returns what Open found past the high-water mark and cut off,
// or nil when the log ended at its mark.
func (l *Log) Recovered() *TornTail { return l.torn }

// Stats returns what the Log has done since Open.
func (l *Log) Stats() Stats {
	return Stats{Appends: l.appends.Load(), Writes: l.writes.Load(), Syncs: l.syncs.Load(), Presigned: l.presigned.Load()}
}

// Append records p as the next receipt and returns it once its line is
// written and synced to disk (fsync), and then recorded as the log's
// high-water mark, synced too (see Mark). It fills p's Seq (the last record's
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
// own, whatever ctx does.
//
// If a write or fsync of the log or of its high-water file fails, Append
// returns an error wrapping it and ErrFailed, and the Log is failed: every
// later Append returns the first failure at once (fail closed). The
// records of the group that failed were never acknowledged, and their
// decisions do not take effect (a gate denies), so the Log cuts them off:
// it writes the mark before them into the high-water file again (if that
// was the write that failed), then truncates the log to it and syncs, and
// the error says whether that worked. If it did not, they stay past the
// mark, where Verify given the mark reports them (ErrUnacknowledged) and
// the next Open cuts them off. Either way no record of that group stands
// in the log as a decision. Close the Log and Open the file again to go
// on.
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
	r := requests.Get().(*request)
	r.p = p
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
	// The receipt is made here, on the caller's goroutine, not on the
	// signer's, which signs every record one after the other.
	var rec Receipt
	err := r.err
	if err == nil {
		rec = Receipt{Seq: r.p.Seq, Line: bytes.Clone(r.line), Digest: r.digest, Payload: r.p}
	}
	if g := r.g; g != nil && g.left.Add(-1) == 0 {
		l.recycle(g)
	}
	*r = request{done: r.done}
	requests.Put(r)
	return rec, err
}

// recycle hands g, whose Appends have all taken their answers, back to
// the signer, unless its buffer grew large or the signer has enough.
func (l *Log) recycle(g *group) {
	if cap(g.buf) > 1<<20 {
		return
	}
	clear(g.reqs)
	g.buf, g.reqs = g.buf[:0], g.reqs[:0]
	select {
	case l.spare <- g:
	default:
	}
}

// newGroup returns an empty group: a recycled one if there is one.
func (l *Log) newGroup() *group {
	select {
	case g := <-l.spare:
		return g
	default:
		return &group{}
	}
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
	g := l.newGroup()
	for {
		var r *request
		var ok bool
		switch {
		case len(g.reqs) == 0:
			r, ok = <-l.reqs
		case len(g.reqs) >= maxGroup:
			l.flushQ <- g
			g = l.newGroup()
			continue
		default:
			select {
			case l.flushQ <- g:
				g = l.newGroup()
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
	// The line goes straight into the group's buffer: a line that is too
	// long is taken out again. A line keeps its place when the buffer
	// grows: the old array stays as it was, for the Appends whose lines
	// are in it.
	start := len(g.buf)
	var n *nonce
	if l.nonces != nil && l.nonces.take(&l.nonce) {
		n = &l.nonce
	}
	buf := l.s.appendLineWith(g.buf, p, n, l.scratch)
	if n != nil {
		// A used nonce's r and its signature give the key away: keep
		// neither copy of r past the signature. (Go does not promise that
		// no other copy was made; the key itself is in memory too.)
		l.nonce = nonce{}
	}
	line := buf[start:len(buf):len(buf)]
	if len(line) > MaxLineSize {
		g.buf = buf[:start]
		r.answer(fmt.Errorf("receipt: the receipt line would be %d bytes, above %d", len(line), MaxLineSize))
		return
	}
	if n != nil {
		l.presigned.Add(1) // a record of the log, as Stats.Presigned says
	}
	r.g, r.line, r.digest = g, line, hashing.Sum(line)
	l.seq, l.prev = p.Seq, r.digest
	g.seq, g.digest = p.Seq, r.digest
	g.buf = append(buf, '\n')
	g.reqs = append(g.reqs, r)
	l.signed.Add(1)
}

// flusher writes and syncs each group the signer hands it, and answers
// its requests, until the signer closes l.flushQ.
func (l *Log) flusher() {
	defer close(l.stopped)
	for g := range l.flushQ {
		l.commit(g)
	}
}

// commit writes and syncs g, then records its last record as the
// high-water mark, unless the Log has failed, and answers its requests. A
// failure fails the Log.
func (l *Log) commit(g *group) {
	err := l.failure()
	if err == nil {
		if markTried, cause := l.persist(g); cause != nil {
			err = l.fail(cause, g, markTried) // only commit fails the Log, one group at a time
		} else {
			l.appends.Add(uint64(len(g.reqs)))
		}
	}
	g.left.Store(int32(len(g.reqs)))
	for _, r := range g.reqs {
		r.answer(err)
	}
}

// persist writes g at the end of the log and syncs it, then writes its
// last record in the high-water file and syncs that: never the other way
// round, so the mark is never ahead of a durable log. markTried reports
// whether the high-water file was written to.
func (l *Log) persist(g *group) (markTried bool, err error) {
	if err := l.writeSync(g.buf); err != nil {
		return false, err
	}
	if l.synced != nil {
		l.synced()
	}
	m := Mark{Seq: g.seq, Size: l.size + int64(len(g.buf)), Digest: g.digest}
	l.syncs.Add(1)
	if err := l.mark.write(m); err != nil {
		return true, fmt.Errorf("high-water file %s: %w", l.mark.path, err)
	}
	l.size = m.Size
	return true, nil
}

// fail fails the Log with cause, the failure of persist(g), and cuts g's
// records off, which were never acknowledged: first the high-water file's
// other slot gets the current mark again (when persist wrote to it, it may
// hold g's), then the log is truncated to the mark and synced. A crash
// between the two leaves the log past its mark, which Open cuts; a
// failure of either is said in the error, and leaves the log past its
// mark (Open cuts) or, when the mark could not be restored and g's mark
// reached the disk after all, below it (Open refuses: fail closed). It
// returns the error that every Append of g, and every later one, gets.
func (l *Log) fail(cause error, g *group, markTried bool) error {
	var undo []string
	if markTried {
		l.syncs.Add(1)
		if err := l.mark.restore(); err != nil {
			undo = append(undo, fmt.Sprintf("restore high-water file %s: %v", l.mark.path, err))
		}
	}
	if err := l.cut(l.size); err != nil {
		undo = append(undo, err.Error())
	}
	var err error
	if len(undo) == 0 {
		err = fmt.Errorf("%w: %w; cut this group's %s, never acknowledged, off the log, which ends at seq %d again", ErrFailed, cause, plural(len(g.reqs), "record"), l.mark.cur.Seq)
	} else {
		err = fmt.Errorf("%w: %w; cutting this group's %s, never acknowledged, off the log failed too (%s): Open will cut what is past the high-water mark, or refuse the log if the mark is ahead of it", ErrFailed, cause, plural(len(g.reqs), "record"), strings.Join(undo, "; "))
	}
	l.failed.Store(&err)
	return err
}

// plural returns "1 record" or "N records".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// cut truncates the log to size and syncs it.
func (l *Log) cut(size int64) error {
	truncate := l.f.Truncate
	if l.truncate != nil {
		truncate = l.truncate
	}
	if err := truncate(size); err != nil {
		return fmt.Errorf("truncate %s: %w", l.path, err)
	}
	l.syncs.Add(1)
	if err := l.syncLog(); err != nil {
		return fmt.Errorf("fsync %s: %w", l.path, err)
	}
	return nil
}

// syncLog syncs the log (or runs the sync hook).
func (l *Log) syncLog() error {
	if l.sync != nil {
		return l.sync()
	}
	return syncdir.Data(l.f)
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
	if err := l.syncLog(); err != nil {
		return fmt.Errorf("fsync %s: %w", l.path, err)
	}
	return nil
}

// Close waits for the Appends in progress, then closes the log, which
// releases the lock, and its high-water file. Later Appends return ErrClosed; so does a second
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
	if l.nonces != nil {
		l.nonces.stop()
	}
	merr := l.mark.close()
	if err := l.f.Close(); err != nil {
		return err
	}
	return merr
}
