package bolt

// Group commit: concurrent Emits and Resolves share transactions (see
// Ledger, Group commit). These tests hold what it must keep: exactly one
// true per envelope however the Resolves of it are grouped, a true only
// once its group is durable, every call of a group failed when its sync
// fails, and after a crash every reported consume still there.

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
)

// batchDigest is the digest of the i-th envelope of a batch test.
func batchDigest(i int) hashing.Digest { return hashing.Sum(fmt.Appendf(nil, "batch %d", i)) }

// emitBatch emits the envelopes batchDigest(0) to batchDigest(n-1) in l,
// and returns their digests.
func emitBatch(t *testing.T, l *Ledger, n int) []hashing.Digest {
	t.Helper()
	d := make([]hashing.Digest, n)
	for i := range d {
		d[i] = batchDigest(i)
		if err := l.Emit(d[i]); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// TestBoltLedgerBatch resolves each of 64 envelopes from 4 goroutines at
// once, 256 Resolves in flight, and emits more envelopes meanwhile:
// exactly one Resolve of each envelope reports true, every entry is as
// its calls left it, and the calls shared commits (fewer transactions
// than calls). It then does it again on the reopened file.
func TestBoltLedgerBatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	for round := range 2 {
		l, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		const envelopes, racers = 64, 4
		base := round * 2 * envelopes
		for i := range envelopes {
			if err := l.Emit(batchDigest(base + i)); err != nil {
				t.Fatal(err)
			}
		}
		c0 := l.Stats().Commits
		var trues [envelopes]atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range envelopes {
			for range racers {
				wg.Go(func() {
					<-start
					ok, err := l.Resolve(batchDigest(base+i), ledger.OutcomeAuthority)
					if err != nil {
						t.Error(err)
					}
					if ok {
						trues[i].Add(1)
					}
				})
			}
			wg.Go(func() { // emitted meanwhile, in the same groups
				<-start
				if err := l.Emit(batchDigest(base + envelopes + i)); err != nil {
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
		calls := envelopes * (racers + 1)
		commits := l.Stats().Commits - c0
		t.Logf("round %d: %d calls in %d commits", round, calls, commits)
		if commits >= uint64(calls) {
			t.Errorf("%d calls took %d commits: no group commit", calls, commits)
		}
		for i := range envelopes {
			if n := trues[i].Load(); n != 1 {
				t.Errorf("envelope %d: %d Resolves reported true, want exactly 1", i, n)
			}
			if e, err := l.Lookup(batchDigest(base + i)); err != nil || e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeAuthority {
				t.Errorf("envelope %d: %+v, %v, want resolved by authority", i, e, err)
			}
			if e, err := l.Lookup(batchDigest(base + envelopes + i)); err != nil || e.State != ledger.StateEmitted || e.EmittedAt.IsZero() {
				t.Errorf("envelope %d emitted meanwhile: %+v, %v, want emitted", envelopes+i, e, err)
			}
		}
		// A refusal in a group refuses that call alone.
		var refused, emitted error
		wg.Go(func() { refused = l.Emit(batchDigest(base)) })
		wg.Go(func() { emitted = l.Emit(batchDigest(-1 - round)) })
		wg.Wait()
		if !errors.Is(refused, ledger.ErrAlreadyResolved) {
			t.Errorf("Emit of a resolved envelope: %v, want ledger.ErrAlreadyResolved", refused)
		}
		if emitted != nil {
			t.Errorf("Emit beside a refused one: %v", emitted)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// holdGroups makes l's next group commit wait at its high-water update
// until n more calls wait in the queue, so that they form the group after
// it; then each high-water sync runs next(k), k counting them from 0 (the
// held one).
func holdGroups(t *testing.T, l *Ledger, n int, next func(k int) error) {
	t.Helper()
	var k int
	l.hwm.sync = func() error {
		defer func() { k++ }()
		if k == 0 {
			deadline := time.Now().Add(10 * time.Second)
			for {
				l.bmu.Lock()
				waiting := len(l.queue)
				l.bmu.Unlock()
				if waiting >= n {
					break
				}
				if time.Now().After(deadline) {
					t.Errorf("%d calls queued behind the held group, want %d", waiting, n)
					break
				}
				time.Sleep(100 * time.Microsecond)
			}
		}
		return next(k)
	}
}

// resolveGroup resolves d[0] alone, holds its group until the Resolves of
// d[1:] all wait, and returns each Resolve's answer.
func resolveGroup(t *testing.T, l *Ledger, d []hashing.Digest, next func(k int) error) (oks []bool, errs []error) {
	t.Helper()
	holdGroups(t, l, len(d)-1, next)
	oks, errs = make([]bool, len(d)), make([]error, len(d))
	var wg sync.WaitGroup
	wg.Go(func() { oks[0], errs[0] = l.Resolve(d[0], ledger.OutcomeAuthority) })
	for !l.isLeading() {
		time.Sleep(50 * time.Microsecond)
	}
	for i := 1; i < len(d); i++ {
		wg.Go(func() { oks[i], errs[i] = l.Resolve(d[i], ledger.OutcomeAuthority) })
	}
	wg.Wait()
	l.hwm.sync = nil
	return oks, errs
}

// isLeading reports whether a group is being committed.
func (l *Ledger) isLeading() bool {
	l.bmu.Lock()
	defer l.bmu.Unlock()
	return l.leading
}

// TestBoltLedgerBatchSyncFails fails the sync of a group of 32 Resolves
// (EIO at the high-water file's fdatasync, after bbolt's commit): all 32
// fail, none reports true, although their transaction committed; the
// envelopes stay consumed (at most once: a later Resolve reports false),
// the ledger goes on, and the file reopens with them resolved and every
// consume reported true there. The sync failures of bbolt's own commit
// are TestBoltLedgerBatchCommitFails (Linux).
func TestBoltLedgerBatchSyncFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 33
	d := emitBatch(t, l, n)
	tx0 := l.txid.Load()
	oks, errs := resolveGroup(t, l, d, func(k int) error {
		if k == 1 {
			return syscall.EIO
		}
		return nil
	})
	if !oks[0] || errs[0] != nil {
		t.Fatalf("the held group's Resolve: %v, %v, want true", oks[0], errs[0])
	}
	for i := 1; i < n; i++ {
		if oks[i] || !errors.Is(errs[i], syscall.EIO) {
			t.Errorf("Resolve %d of the failed group: %v, %v, want false and EIO", i, oks[i], errs[i])
		}
	}
	if got := l.txid.Load() - tx0; got != 2 {
		t.Errorf("%d commits, want 2 (the held group, and the 32 Resolves that waited)", got)
	}
	for i := 1; i < n; i++ {
		if ok, err := l.Resolve(d[i], ledger.OutcomeAuthority); ok || err != nil {
			t.Errorf("Resolve %d again after its group failed: %v, %v, want false (consumed unreported)", i, ok, err)
		}
	}
	fresh := batchDigest(n)
	if err := l.Emit(fresh); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.Resolve(fresh, ledger.OutcomeAuthority); !ok || err != nil {
		t.Fatalf("Resolve after the failure: %v, %v", ok, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = Open(path, nil)
	if err != nil {
		t.Fatalf("reopen after a failed sync: %v", err)
	}
	defer l.Close()
	for i, x := range append(d, fresh) {
		if e, err := l.Lookup(x); err != nil || e.State != ledger.StateResolved {
			t.Errorf("envelope %d after reopen: %+v, %v, want resolved", i, e, err)
		}
		if ok, err := l.Resolve(x, ledger.OutcomeAuthority); ok || err != nil {
			t.Errorf("envelope %d resolved again after reopen: %v, %v", i, ok, err)
		}
	}
}

// batchKillWorkers is how many goroutines of TestBoltLedgerBatchKill's
// child emit envelopes, each resolved by two Resolves at once.
const batchKillWorkers = 16

// batchKillChild is the child of TestBoltLedgerBatchKill: on the ledger at
// path, batchKillWorkers goroutines take envelope numbers in turn, emit
// the envelope, and resolve it from two goroutines at once; the one whose
// Resolve reports true writes the digest's hex to stdout (one write(2),
// after the ledger's syncs). Any error, or a count of trues other than
// one, ends it with status 3.
func batchKillChild(path string, round int) {
	l, err := Open(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	var next atomic.Int64
	fail := func(args ...any) {
		fmt.Fprintln(os.Stderr, args...)
		os.Exit(3)
	}
	var wg sync.WaitGroup
	for range batchKillWorkers {
		wg.Go(func() {
			for {
				d := crashDigest(round, int(next.Add(1)-1))
				if err := l.Emit(d); err != nil {
					fail("emit:", err)
				}
				var trues atomic.Int32
				var pair sync.WaitGroup
				for range 2 {
					pair.Go(func() {
						ok, err := l.Resolve(d, ledger.OutcomeAuthority)
						if err != nil {
							fail("resolve:", err)
						}
						if ok {
							trues.Add(1)
							os.Stdout.WriteString(hex.EncodeToString(d[:]) + "\n")
						}
					})
				}
				pair.Wait()
				if n := trues.Load(); n != 1 {
					fail("resolve:", n, "of 2 Resolves of", d, "reported true")
				}
			}
		})
	}
	wg.Wait()
}

// TestBoltLedgerBatchKill kills, with SIGKILL, a child whose 32 concurrent
// Resolves share group commits (batchKillChild), at a random moment after
// it has reported a random number of consumes, in several rounds on one
// file. Every file left opens and passes bbolt's check; no consume was
// reported twice, in a round or across rounds; every consume reported is
// resolved by authority and resolves no more; an envelope resolved but
// never reported is the at-most-once window (its group committed, the
// child was killed before it wrote the line); the pending ones were
// emitted and killed before their group committed.
func TestBoltLedgerBatchKill(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		var round int
		fmt.Sscan(os.Getenv(crashChildEnv+"_ROUND"), &round)
		batchKillChild(path, round)
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	path := filepath.Join(t.TempDir(), "ledger.db")
	seen := map[hashing.Digest]int{} // reported consume -> round
	for round := range 4 {
		killAfter := 50 + rng.IntN(400)
		killDelay := time.Duration(rng.IntN(3000)) * time.Microsecond
		reported := runCrashChild(t, "TestBoltLedgerBatchKill", path, round, func(lines int) bool { return lines == killAfter }, killDelay)
		if len(reported) < killAfter {
			t.Fatalf("round %d: child reported %d consumes, want at least %d", round, len(reported), killAfter)
		}
		for _, d := range reported {
			if r, dup := seen[d]; dup {
				t.Fatalf("round %d: %s reported consumed again (first in round %d)", round, d, r)
			}
			seen[d] = round
		}
		l, err := Open(path, &Options{})
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		if err := l.db.View(func(tx *bbolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		}); err != nil {
			t.Fatalf("round %d: bbolt check after kill: %v", round, err)
		}
		for d := range seen {
			if e, err := l.Lookup(d); err != nil || e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeAuthority || e.ResolvedAt.IsZero() {
				t.Fatalf("round %d: %s reported consumed, now %+v (%v)", round, d, e, err)
			}
		}
		// The envelopes of this round: taken in order by the workers, so
		// those past the last one in the file are absent.
		var unseen, pending, absent int
		for i := 0; absent < 4*batchKillWorkers; i++ {
			d := crashDigest(round, i)
			e, err := l.Lookup(d)
			if err != nil {
				t.Fatal(err)
			}
			_, rep := seen[d]
			switch {
			case e.State == ledger.StateResolved && !rep:
				unseen++
			case e.State == ledger.StateEmitted:
				pending++
			case e.State != ledger.StateResolved:
				absent++
				continue
			}
			absent = 0
		}
		for d := range seen {
			if ok, err := l.Resolve(d, ledger.OutcomeAuthority); ok || err != nil {
				t.Fatalf("round %d: %s resolved again after kill: %v, %v", round, d, ok, err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: killed after %d lines, %d reported consumed, %d consumed unreported, %d emitted and pending", round, killAfter, len(reported), unseen, pending)
	}
}
