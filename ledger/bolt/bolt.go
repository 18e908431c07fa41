package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// boltBucket is the one bucket of a ledger file. Its keys are the 32 bytes
// of an envelope digest; its values are entrySize bytes (see appendEntry).
var boltBucket = []byte("binding_moment_envelopes")

// LockTimeout is how long Open waits by default for another process to
// release the ledger file: one process at a time may have it open.
const LockTimeout = 10 * time.Second

// errNoChange makes a read-write transaction roll back instead of
// committing: the call changes nothing.
var errNoChange = errors.New("no change")

// Options configures Open. The zero value waits for no lock and creates a
// missing ledger; nil options wait LockTimeout.
type Options struct {
	// Wait is how long to wait for another process to release the ledger
	// file: 0 fails at once if it is locked. Negative is an error.
	Wait time.Duration
	// MustExist makes Open fail with an error wrapping fs.ErrNotExist when
	// the file does not exist, instead of creating a new, empty ledger.
	// Set it to verify resolutions: a ledger that a typo or an unset
	// variable replaced by a new, empty file would check nothing. Emitting
	// may create the ledger; Create makes one that must be new.
	MustExist bool
}

// Ledger is a ledger.Ledger kept in a bbolt database file, so that single
// use survives restarts and holds across processes. It is safe for concurrent
// use. Close it when done.
//
// It is a ledger.Approvals store too: approval requests live in a second
// bucket of the same file, which the first Ask creates, written by the same
// synced transactions as the envelopes, under the same high-water file and
// lock, and checked entry by entry on open as they are (a CRC-32C over each
// key and value, the states, and that each act's open request is an open
// request of it). Ask's test for an open request and its store of a new one
// are one transaction, so gates in several processes asking for one act end
// with one request (TestApprovalsTwoProcesses). A bbdigest that predates
// the approvals refuses a file that holds them, as corrupt.
//
// # Durability and single use
//
// Every Emit and Resolve that changes the ledger is in a bbolt read-write
// transaction (shared by the concurrent ones: Group commit), synced to
// disk (fdatasync) before it returns, followed by an update of the
// high-water file, synced too. An envelope reported resolved
// stays resolved after a crash, and the test-and-set of Resolve is atomic
// across goroutines (one write at a time) and across processes (one
// process at a time has the file open; others wait up to Options.Wait,
// then fail with ledger.ErrLocked). A call that changes
// nothing (emitting an emitted envelope, resolving one that is not
// emitted) commits nothing.
//
// # Group commit
//
// Concurrent Emits and Resolves share transactions: while one group is
// committed and synced, the calls that arrive wait, and then commit
// together, up to 256 in one transaction, with one commit (bbolt's two
// fdatasyncs) and one high-water update for all of them. Within a group
// the calls run one after the other in the order they arrived, each
// seeing the changes of those before it: of two Resolves of one envelope,
// in one group or in two, exactly one reports true. Each call returns
// only once its group's commit and high-water update are synced, so a
// Resolve that reported true survives a crash (TestBoltLedgerBatchKill);
// if the commit or the update fails, every call of the group returns the
// error, and none reports true (TestBoltLedgerBatchSyncFails). A group
// whose commit failed may still have reached the disk, or be what the
// next transaction reads: its envelopes are then consumed with no one
// told, the at-most-once window below.
//
// Resolve is at most once, not exactly once (see package ledger, and the
// Resolver of package envelope). An envelope is
// consumed when the transaction commits; a process killed after that and
// before it acts has consumed it without acting on it. Lookup tells a host
// that restarts which outcome consumed the envelope, and when.
//
// # Integrity
//
// bbolt keeps two meta pages and, on open, silently falls back to the
// older one when the newer is damaged: the ledger would roll back, and a
// resolved envelope would be emitted again, ready for a second authority.
// So the ledger keeps, next to the file PATH, a high-water file PATH.hwm
// (PATH with symbolic links resolved) holding the transaction id of its
// last commit, and on open it:
//
//   - reads both meta pages itself and refuses the file if bbolt would use
//     a page that fails its checks (magic, version, page size, page header,
//     checksum), or if the page it uses is older than the high-water mark;
//   - refuses a ledger that has committed transactions but whose
//     high-water file is missing (deleted, or a ledger written by bbdigest
//     before the file existed: such ledgers are not supported) or damaged.
//     A ledger created but killed before its high-water file was written
//     holds no envelopes, and opens;
//   - walks every page of the file, with every offset bounds-checked, and
//     refuses it unless the pages in use and the free pages are disjoint
//     and cover the file, each page's keys and values are packed as bbolt
//     writes them (a damaged element count would otherwise drop entries),
//     keys are in the order bbolt's search needs, and every entry decodes:
//     each value carries a CRC-32C of its key and value, so a damaged
//     state, outcome, time or key is found rather than read as another
//     entry. The walk reads the whole file, so opening takes time linear
//     in the number of entries (BenchmarkBoltLedgerOpen).
//
// An older meta page that fails its checks is accepted when the newer one
// passes and is at or above the mark: that is a write torn by a crash of a
// commit that never completed (and never returned), or damage to history
// the ledger no longer reads. It is overwritten by the next commit.
//
// Every call into bbolt runs with debug.SetPanicOnFault and a recover, so
// bbolt's panics on damaged pages, and faults on its memory map, become
// errors wrapping ledger.ErrCorrupt; after one, the ledger refuses every
// call but Close.
//
// All of this detects accidental damage: a torn write, a flipped bit, a
// truncated file, an older copy of the ledger file put back. It cannot
// stop a writer that means harm: neither file is signed, so anyone who can
// write both can set any state, and putting back an older copy of both
// together rolls the ledger back undetected. Protect both files, and their
// directory, from every writer but the processes that keep this ledger
// (the agent's host, or the bbdigest commands it runs): file permissions
// (both are created mode 0600), no shared, synced or network folders, no
// restoring from backups or snapshots. Delete both together to start a new, empty ledger.
type Ledger struct {
	db   *bbolt.DB // bench_test.go sets db.NoSync
	path string
	file *os.File // bbolt's handle on the file (Options.OpenFile): read for the checks, closed if bbolt cannot be
	hwm  *hwmFile

	mu     sync.RWMutex // held exclusively by Close, shared by every other call
	closed bool         // guarded by mu
	wmu    sync.Mutex   // one write (commit and high-water update) at a time

	// Group commit of Emit and Resolve (batch): the calls that arrive
	// while a group commits wait in queue, and the first of them commits
	// the next group.
	bmu     sync.Mutex
	queue   []*op // guarded by bmu
	leading bool  // guarded by bmu: a call is committing a group
	txid    atomic.Uint64
	commits atomic.Uint64                // commits recorded in the high-water file (Stats)
	failed  atomic.Pointer[ledger.Error] // the first corruption found
	stuck   atomic.Bool                  // a panic may have left bbolt's locks held: Close must not wait for them
}

// Open opens the ledger file at path, creating it (mode 0600) unless
// opts.MustExist, checks it (see Ledger, Integrity), and returns it. If
// another process has the file open, it waits up to opts.Wait for it, then
// fails with an error wrapping ledger.ErrLocked. nil opts means: wait
// LockTimeout, create the file if it is missing.
//
// Errors wrap ledger.ErrCorrupt when the file or its high-water file fails
// a check, ledger.ErrLocked, or fs.ErrNotExist (with opts.MustExist).
func Open(path string, opts *Options) (*Ledger, error) {
	return open(path, opts, false)
}

// Create creates a new, empty ledger at path: the file (mode 0600), its
// high-water file path.hwm and its bucket, each synced to disk as Open
// syncs a ledger it creates, and returns it open. Unlike Open it never
// opens a ledger that is there: it fails with an error wrapping
// fs.ErrExist, and changes nothing, when path exists (a ledger, any other
// file, a symbolic link) or when path.hwm does, which a ledger deleted
// without its high-water file leaves. opts.Wait is as for Open;
// opts.MustExist must be false. On any other failure Create removes the
// files it created.
//
// A crash during Create leaves either nothing, or files that Open accepts
// as an empty ledger.
func Create(path string, opts *Options) (*Ledger, error) {
	if opts != nil && opts.MustExist {
		return nil, &ledger.Error{Op: "create", Path: path, Err: errors.New("Options.MustExist is set")}
	}
	// open's O_EXCL makes the check on path atomic; this one first only
	// names the right file when both are there.
	if _, err := os.Lstat(path); err == nil {
		return nil, &ledger.Error{Op: "create", Path: path, Err: fs.ErrExist}
	}
	hwmPath := path + ".hwm"
	switch _, err := os.Lstat(hwmPath); {
	case err == nil:
		return nil, &ledger.Error{Op: "create", Path: path, Err: fmt.Errorf("the high-water file %s of an earlier ledger is there: %w", hwmPath, fs.ErrExist)}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, &ledger.Error{Op: "create", Path: path, Err: err}
	}
	return open(path, opts, true)
}

// open is Open, and with create Create (but for its check of the
// high-water file).
func open(path string, opts *Options, create bool) (*Ledger, error) {
	o := Options{Wait: LockTimeout}
	if opts != nil {
		o = *opts
	}
	op := "open"
	if create {
		op = "create"
	}
	if o.Wait < 0 {
		return nil, &ledger.Error{Op: op, Path: path, Err: fmt.Errorf("negative wait %v", o.Wait)}
	}
	l := &Ledger{path: path}
	created := false // by this call: removed if it fails
	bo := &bbolt.Options{
		// bbolt waits forever when Timeout is 0; a timeout of 1ns makes
		// one attempt.
		Timeout: max(o.Wait, time.Nanosecond),
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			switch {
			case o.MustExist:
				flag &^= os.O_CREATE
			case create:
				flag |= os.O_CREATE | os.O_EXCL
			}
			f, err := os.OpenFile(name, flag, perm)
			l.file = f
			created = create && err == nil
			return f, err
		},
	}
	err, panicked := bboltCall(path, func() (err error) {
		l.db, err = bbolt.Open(path, 0o600, bo)
		return err
	})
	removeCreated := func() {
		if created {
			os.Remove(path)
		}
	}
	switch {
	case panicked:
		if l.file != nil {
			releaseFile(l.file) // bbolt did not return: nothing else will close it
		}
		removeCreated()
		return nil, err
	case errors.Is(err, berrors.ErrTimeout):
		// Another process has the file open: it is not this call's to
		// remove, whoever created it.
		return nil, &ledger.Error{Op: op, Path: path, Err: fmt.Errorf("%w by another process (waited %v)", ledger.ErrLocked, o.Wait)}
	case o.MustExist && errors.Is(err, fs.ErrNotExist):
		return nil, &ledger.Error{Path: path, Err: fs.ErrNotExist}
	case create && errors.Is(err, fs.ErrExist):
		return nil, &ledger.Error{Op: "create", Path: path, Err: fs.ErrExist}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, &ledger.Error{Path: path, Err: fmt.Errorf("%w: not a ledger, or both bbolt meta pages damaged: %v", ledger.ErrCorrupt, err)}
	case err != nil:
		removeCreated()
		return nil, &ledger.Error{Op: op, Path: path, Err: pathErr(path, err)}
	}
	if err := l.init(); err != nil {
		l.abort()
		if created {
			if l.hwm != nil {
				os.Remove(l.hwm.path)
			}
			os.Remove(path)
		}
		return nil, err
	}
	return l, nil
}

// pathErr returns err without its path when it is a *fs.PathError about
// path, which the message that wraps it already names: "open: no such
// file or directory", not "open PATH: no such file or directory". What it
// wraps (fs.ErrNotExist, a syscall.Errno) still matches errors.Is.
func pathErr(path string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path == path {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// init checks the file bbolt opened and the high-water file, and creates
// the bucket of a new ledger.
func (l *Ledger) init() error {
	st, err := l.file.Stat()
	if err != nil {
		return &ledger.Error{Op: "open", Path: l.path, Err: err}
	}
	size := st.Size()
	cur, pageSize, err := checkBoltMetas(l.file, size)
	if err != nil {
		return l.corrupt("%v", err)
	}
	hwmPath := l.path
	if p, err := filepath.EvalSymlinks(l.path); err == nil {
		hwmPath = p
	}
	hwmPath += ".hwm"
	hs, err := readHWM(hwmPath)
	if err != nil {
		return &ledger.Error{Op: "open", Path: l.path, Err: fmt.Errorf("high-water file: %w", err)}
	}
	// A file at transaction 0 or 1 is as bbolt creates it, before the
	// first commit: it holds nothing, so a missing or damaged high-water
	// file is the crash window of its creation. A valid mark above it
	// means the ledger was replaced by a new file.
	fresh := cur.txid <= 1
	mark, slot, markOK := hs.newest()
	switch {
	case fresh && markOK && mark > cur.txid:
		return l.corrupt("a new, empty file, but the high-water file %s records transaction %d: the ledger was replaced, truncated or deleted (delete both files to start a new ledger)", hwmPath, mark)
	case !fresh:
		if why := hs.check(cur.txid, hwmPath); why != "" {
			return l.corrupt("%s", why)
		}
	}
	if !fresh {
		var rc requestChecker
		if _, err := checkBoltTree(l.file, size, cur, pageSize, func(k, v []byte) error {
			_, err := decodeEntry(k, v)
			return err
		}, rc.entry); err != nil {
			return l.corrupt("%v", err)
		}
		if err := rc.check(); err != nil {
			return l.corrupt("bucket %q: %v", requestBucket, err)
		}
	}
	// bbolt must be at the meta page checked.
	l.txid.Store(cur.txid)
	if _, err := l.txn(false, func(tx *bbolt.Tx) error {
		if got := uint64(tx.ID()); got != cur.txid {
			return l.corrupt("bbolt opened transaction %d, the meta page checked is %d", got, cur.txid)
		}
		if !fresh && tx.Bucket(boltBucket) == nil {
			return l.corrupt("bucket %q missing", boltBucket)
		}
		return nil
	}); err != nil {
		return l.wrap(err)
	}
	if !fresh {
		if l.hwm, err = openHWM(hwmPath, slot); err != nil {
			return &ledger.Error{Op: "open", Path: l.path, Err: fmt.Errorf("high-water file: %w", err)}
		}
		if cur.txid > mark { // the last commit was not recorded: a crash
			if err := l.hwm.write(cur.txid); err != nil {
				return &ledger.Error{Op: "open", Path: l.path, Err: fmt.Errorf("high-water file %s: %w", hwmPath, err)}
			}
		}
		return nil
	}
	// A new ledger: the high-water file first, then the bucket.
	if l.hwm, err = createHWM(hwmPath, cur.txid); err != nil {
		return &ledger.Error{Op: "create", Path: l.path, Err: fmt.Errorf("high-water file: %w", err)}
	}
	return l.write(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(boltBucket)
		return err
	})
}

// abort releases what a failed Open holds.
func (l *Ledger) abort() {
	if l.hwm != nil {
		l.hwm.close()
	}
	if l.stuck.Load() {
		releaseFile(l.file)
		return
	}
	if _, panicked := bboltCall(l.path, l.db.Close); panicked {
		releaseFile(l.file)
	}
}

// Close closes the ledger. Every later call, Close included, returns an
// error wrapping ledger.ErrClosed. After bbolt panicked (see ledger.ErrCorrupt), Close
// releases the file without bbolt, which may be left holding its own
// locks; the file's memory map then stays until the process exits.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return &ledger.Error{Op: "close", Path: l.path, Err: ledger.ErrClosed}
	}
	l.closed = true
	var errs []error
	if err := l.hwm.close(); err != nil {
		errs = append(errs, err)
	}
	if l.stuck.Load() {
		errs = append(errs, releaseFile(l.file))
	} else {
		err, panicked := bboltCall(l.path, l.db.Close)
		if panicked {
			releaseFile(l.file)
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return &ledger.Error{Op: "close", Path: l.path, Err: err}
	}
	return nil
}

// Emit implements ledger.Ledger. Concurrent Emits and Resolves share
// commits (see Ledger, Group commit).
func (l *Ledger) Emit(d hashing.Digest) error {
	return l.batch(func(tx *bbolt.Tx) error {
		b, e, err := l.get(tx, d)
		if err != nil {
			return err
		}
		switch e.State {
		case ledger.StateEmitted:
			return errNoChange
		case ledger.StateResolved:
			return errRefusal{fmt.Errorf("%w: %s", ledger.ErrAlreadyResolved, d)}
		}
		e = ledger.Entry{State: ledger.StateEmitted, EmittedAt: time.Now().Round(0)}
		return b.Put(d[:], appendEntry(nil, d, e))
	})
}

// Resolve implements ledger.Ledger. The test and the set are in one
// transaction, which concurrent Emits and Resolves share (see Ledger,
// Group commit): it reports true only once that transaction and the
// high-water file are synced.
func (l *Ledger) Resolve(d hashing.Digest, o ledger.Outcome) (bool, error) {
	if !o.Valid() {
		return false, &ledger.Error{Path: l.path, Err: fmt.Errorf("outcome %v does not resolve an envelope", o)}
	}
	ok := false
	err := l.batch(func(tx *bbolt.Tx) error {
		b, e, err := l.get(tx, d)
		if err != nil {
			return err
		}
		if e.State != ledger.StateEmitted {
			return errNoChange
		}
		e.State, e.Outcome, e.ResolvedAt = ledger.StateResolved, o, time.Now().Round(0) // e.EmittedAt kept
		if err := b.Put(d[:], appendEntry(nil, d, e)); err != nil {
			return err
		}
		ok = true
		return nil
	})
	if err != nil {
		return false, err
	}
	return ok, nil
}

// Lookup implements ledger.Ledger.
func (l *Ledger) Lookup(d hashing.Digest) (ledger.Entry, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if err := l.usable(); err != nil {
		return ledger.Entry{}, err
	}
	var e ledger.Entry
	_, err := l.txn(false, func(tx *bbolt.Tx) (err error) {
		_, e, err = l.get(tx, d)
		return err
	})
	if err != nil {
		return ledger.Entry{}, l.wrap(err)
	}
	return e, nil
}

// get returns the ledger's bucket in tx and the entry for d.
func (l *Ledger) get(tx *bbolt.Tx, d hashing.Digest) (*bbolt.Bucket, ledger.Entry, error) {
	b := tx.Bucket(boltBucket)
	if b == nil {
		return nil, ledger.Entry{}, l.corrupt("bucket %q missing", boltBucket)
	}
	v := b.Get(d[:])
	if v == nil {
		return b, ledger.Entry{}, nil
	}
	e, err := decodeEntry(d[:], v)
	if err != nil {
		return nil, ledger.Entry{}, l.corrupt("entry %s: %v", d, err)
	}
	return b, e, nil
}

// update runs fn in a read-write transaction and commits it, unless fn
// fails (errNoChange: nothing to do), then records the transaction in the
// high-water file.
func (l *Ledger) update(fn func(tx *bbolt.Tx) error) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if err := l.usable(); err != nil {
		return err
	}
	return l.write(fn)
}

// op is one Emit or Resolve in a group commit.
type op struct {
	// fn makes the call's change in the group's transaction, as update's
	// fn does (errNoChange: nothing to do). It fails only before it writes
	// anything: with a refusal of this call alone (errRefusal), or with an
	// error that fails the whole group.
	fn   func(tx *bbolt.Tx) error
	err  error
	lead bool          // set with the send on done: commit the next group
	done chan struct{} // buffered: one send, of the answer or of the lead
}

// maxBatch is the most calls one group commits.
const maxBatch = 256

// batch runs fn in a read-write transaction shared with the Emits and
// Resolves that wait with it (group commit), and returns once that
// transaction is committed and recorded in the high-water file, both
// synced, or failed. The calls of a group run one after the other, in the
// order they arrived, each seeing the changes of those before it, so a
// Resolve's test and set stay atomic. If the commit or the high-water
// update fails, every call of the group gets that error: none of them
// reports a change that may not be durable.
//
// There is no goroutine of the Ledger's: the first call to arrive while
// no group commits is the leader, and commits the calls waiting then
// (itself among them); when it is done it makes the first call that
// arrived meanwhile the next leader, and answers its group.
func (l *Ledger) batch(fn func(tx *bbolt.Tx) error) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if err := l.usable(); err != nil {
		return err
	}
	o := &op{fn: fn, done: make(chan struct{}, 1)}
	l.bmu.Lock()
	l.queue = append(l.queue, o)
	if l.leading {
		l.bmu.Unlock()
		<-o.done
		if !o.lead {
			return o.err
		}
		l.bmu.Lock()
	}
	l.leading = true
	n := min(len(l.queue), maxBatch)
	g := make([]*op, n)
	copy(g, l.queue)
	l.queue = append(l.queue[:0], l.queue[n:]...)
	l.bmu.Unlock()

	l.commitGroup(g)

	l.bmu.Lock()
	if len(l.queue) > 0 {
		next := l.queue[0]
		next.lead = true
		next.done <- struct{}{}
	} else {
		l.leading = false
	}
	l.bmu.Unlock()
	for _, x := range g {
		if x != o {
			x.done <- struct{}{}
		}
	}
	return o.err
}

// errRefusal marks an op's error that refuses that call alone (emitting a
// resolved envelope): its fn wrote nothing, and the group goes on.
type errRefusal struct{ err error }

func (e errRefusal) Error() string { return e.err.Error() }
func (e errRefusal) Unwrap() error { return e.err }

// commitGroup runs the fns of g in one transaction, commits it, records
// it in the high-water file, and sets each op's err.
func (l *Ledger) commitGroup(g []*op) {
	err := l.write(func(tx *bbolt.Tx) error {
		changed := false
		for _, o := range g {
			switch err := o.fn(tx); {
			case err == nil:
				changed = true
			case errors.Is(err, errNoChange):
			default:
				if r, ok := err.(errRefusal); ok {
					o.err = r.err
					continue
				}
				return err
			}
		}
		if !changed {
			return errNoChange
		}
		return nil
	})
	for _, o := range g {
		switch {
		case err != nil:
			o.err = err
		case o.err != nil:
			o.err = l.wrap(o.err)
		}
	}
}

// write is update without the checks of mu: for init, update and batch.
func (l *Ledger) write(fn func(tx *bbolt.Tx) error) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if err := l.usable(); err != nil { // a corruption found while waiting
		return err
	}
	txid, err := l.txn(true, fn)
	switch {
	case errors.Is(err, errNoChange):
		return nil
	case err != nil:
		return l.wrap(err)
	}
	l.txid.Store(txid)
	l.hwm.noSync = l.db.NoSync
	if err := l.hwm.write(txid); err != nil {
		return &ledger.Error{Path: l.path, Err: fmt.Errorf("transaction %d committed, but the high-water file %s was not updated: %w", txid, l.hwm.path, err)}
	}
	l.commits.Add(1)
	return nil
}

// Stats counts what a Ledger did since Open.
type Stats struct {
	// Commits is the read-write transactions committed and recorded in
	// the high-water file: each is three syncs (bbolt's two fdatasyncs,
	// of its pages and of its meta page, and the high-water file's), and
	// holds one group of Emits and Resolves, or one other change.
	Commits uint64
}

// Stats returns what the ledger has done since Open.
func (l *Ledger) Stats() Stats { return Stats{Commits: l.commits.Load()} }

// txn runs fn in a bbolt transaction, through bboltCall, and commits it if
// writable and fn succeeds; it returns the id of the transaction committed.
// A transaction older than one the ledger has seen is a rollback of the
// file under it.
func (l *Ledger) txn(writable bool, fn func(tx *bbolt.Tx) error) (uint64, error) {
	var tx *bbolt.Tx
	var txid uint64
	floor := l.txid.Load() // before Begin: a commit after this only raises the txid seen
	err, panicked := bboltCall(l.path, func() error {
		var err error
		if tx, err = l.db.Begin(writable); err != nil {
			return err
		}
		id := uint64(tx.ID())
		if id < floor || writable && id == floor {
			tx.Rollback()
			return l.corrupt("bbolt transaction %d after transaction %d: the file was rolled back while open", id, floor)
		}
		if err := fn(tx); err != nil {
			tx.Rollback()
			return err
		}
		if !writable {
			return tx.Rollback()
		}
		if err := tx.Commit(); err != nil {
			if tx.DB() != nil {
				tx.Rollback()
			}
			return err
		}
		txid = id
		return nil
	})
	if panicked {
		// Release bbolt's locks if the transaction can still be closed. If
		// it cannot, or the panic came from Begin, bbolt may hold them.
		if tx != nil && tx.DB() != nil {
			bboltCall(l.path, tx.Rollback)
		}
		if tx == nil || tx.DB() != nil {
			l.stuck.Store(true)
		}
	}
	return txid, err
}

// bboltCall runs fn, a call into bbolt, and turns a panic into an error
// wrapping ledger.ErrCorrupt: bbolt asserts, indexes and dereferences
// whatever damaged pages say, and debug.SetPanicOnFault, set for the call,
// makes a fault on its memory map (a page past the end of the file) a
// panic too.
func bboltCall(path string, fn func() error) (err error, panicked bool) {
	defer func(old bool) {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err, panicked = &ledger.Error{Path: path, Err: fmt.Errorf("%w: bbolt panicked: %v", ledger.ErrCorrupt, r)}, true
		}
	}(debug.SetPanicOnFault(true))
	return fn(), false
}

// usable returns the error every call gets on a closed or failed ledger.
// Callers hold mu.
func (l *Ledger) usable() error {
	if l.closed {
		return &ledger.Error{Path: l.path, Err: ledger.ErrClosed}
	}
	if p := l.failed.Load(); p != nil {
		first := *p
		return &ledger.Error{Op: first.Op, Path: first.Path, Err: fmt.Errorf("%w (refusing every call since)", first.Err)}
	}
	return nil
}

// corrupt returns the *ledger.Error of a corruption of the ledger, which
// wraps ledger.ErrCorrupt.
func (l *Ledger) corrupt(format string, args ...any) error {
	return &ledger.Error{Path: l.path, Err: fmt.Errorf("%w: %s", ledger.ErrCorrupt, fmt.Sprintf(format, args...))}
}

// wrap returns err as a *ledger.Error naming the ledger (err itself when
// it is one already), and records a corruption so that the ledger
// refuses every later call.
func (l *Ledger) wrap(err error) error {
	le, ok := errors.AsType[*ledger.Error](err)
	if !ok {
		le = &ledger.Error{Path: l.path, Err: err}
	}
	if errors.Is(le, ledger.ErrCorrupt) {
		l.failed.CompareAndSwap(nil, le)
	}
	return le
}

// An entry's value is entrySize bytes:
//
//	0      state: 1 emitted, 2 resolved (ledger.State)
//	1      outcome that resolved it: 0 none, 1 authority, 2 declined,
//	       3 answer, 4 question
//	2:10   when it was resolved: Unix nanoseconds, big-endian; 0 if not
//	10:18  when it was emitted: Unix nanoseconds, big-endian; 0 only in a
//	       resolved entry rewritten from an entry of legacyEntrySize
//	18:22  CRC-32C (Castagnoli) of the key and bytes 0:18, big-endian
//
// The codes are stored and never renumbered. An emitted entry has outcome
// and resolution time 0 and an emission time; a resolved one has neither
// outcome nor resolution time 0.
//
// Ledgers written before the emission time was recorded hold entries of
// legacyEntrySize bytes, the same without bytes 10:18 (the CRC-32C, of the
// key and bytes 0:10, at 10:14). They are read as they are, with a zero
// EmittedAt, and never rewritten in that form: resolving such an entry
// writes an entry of entrySize whose emission time is 0. So an older file
// opens and works without a migration step, and its pending envelopes stay
// without an emission time (TestOpenEarlierLedger).
const (
	entrySize       = 22
	legacyEntrySize = 14
)

// entryChecksum returns the CRC-32C of the key k and the bytes of v before
// its checksum.
func entryChecksum(k, v []byte) uint32 {
	return crc32.Update(crc32.Checksum(k, castagnoli), castagnoli, v[:len(v)-4])
}

// appendEntry appends the stored value of e, the entry for d, to dst.
func appendEntry(dst []byte, d hashing.Digest, e ledger.Entry) []byte {
	var v [entrySize]byte
	v[0] = byte(e.State)
	if e.State == ledger.StateResolved {
		v[1] = byte(e.Outcome)
		binary.BigEndian.PutUint64(v[2:], uint64(e.ResolvedAt.UnixNano()))
	}
	if !e.EmittedAt.IsZero() {
		binary.BigEndian.PutUint64(v[10:], uint64(e.EmittedAt.UnixNano()))
	}
	binary.BigEndian.PutUint32(v[18:], entryChecksum(d[:], v[:]))
	return append(dst, v[:]...)
}

// decodeEntry decodes the stored value v of key k: an entry of entrySize,
// or of legacyEntrySize.
func decodeEntry(k, v []byte) (ledger.Entry, error) {
	if len(k) != hashing.Size {
		return ledger.Entry{}, fmt.Errorf("key of %d bytes", len(k))
	}
	if len(v) != entrySize && len(v) != legacyEntrySize {
		return ledger.Entry{}, fmt.Errorf("value of %d bytes, want %d (or %d) (a ledger of an older bbdigest, or damage)", len(v), entrySize, legacyEntrySize)
	}
	if got, want := binary.BigEndian.Uint32(v[len(v)-4:]), entryChecksum(k, v); got != want {
		return ledger.Entry{}, fmt.Errorf("checksum %08x, computed %08x", got, want)
	}
	state, code, at := ledger.State(v[0]), ledger.Outcome(v[1]), int64(binary.BigEndian.Uint64(v[2:]))
	var emitted int64
	legacy := len(v) == legacyEntrySize
	if !legacy {
		emitted = int64(binary.BigEndian.Uint64(v[10:]))
	}
	var e ledger.Entry
	switch {
	case state == ledger.StateEmitted && code == 0 && at == 0 && (legacy || emitted != 0):
		e = ledger.Entry{State: ledger.StateEmitted}
	case state == ledger.StateResolved && code.Valid() && at != 0:
		e = ledger.Entry{State: ledger.StateResolved, Outcome: code, ResolvedAt: time.Unix(0, at)}
	default:
		return ledger.Entry{}, fmt.Errorf("state %d, outcome %d, time %d, emitted %d", state, code, at, emitted)
	}
	if emitted != 0 {
		e.EmittedAt = time.Unix(0, emitted)
	}
	return e, nil
}
