package bolt

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/selfexec"
	"github.com/bbdigest/bbdigest/ledger"
)

// crashChildEnv, when set, makes TestBoltLedgerSurvivesKill or
// TestBoltLedgerCreationKill the child: it names the ledger file to write.
const crashChildEnv = "BBDIGEST_LEDGER_CRASH_CHILD"

// crashDigest is the digest of the i-th envelope of round r.
func crashDigest(round, i int) hashing.Digest {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(round))
	binary.BigEndian.PutUint64(b[8:], uint64(i))
	return hashing.Sum(b[:])
}

// crashChild opens (or creates) the ledger, with Create when create is
// true, and emits and resolves envelopes until it is killed, writing the
// hex of each digest to stdout once its Resolve has returned. os.Stdout is
// unbuffered: each line is one write(2), issued after the ledger's fsyncs.
func crashChild(path string, round int, create bool) {
	open := Open
	if create {
		open = Create
	}
	l, err := open(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for i := 0; ; i++ {
		d := crashDigest(round, i)
		if err := l.Emit(d); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if ok, err := l.Resolve(d, ledger.OutcomeAuthority); !ok || err != nil {
			fmt.Fprintln(os.Stderr, "resolve:", ok, err)
			os.Exit(3)
		}
		os.Stdout.WriteString(hex.EncodeToString(d[:]) + "\n")
	}
}

// crashChildMain runs the child if this process is one; it creates the
// ledger with Create in the rounds for which create returns true (nil:
// none).
func crashChildMain(create func(round int) bool) bool {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		return false
	}
	var round int
	fmt.Sscan(os.Getenv(crashChildEnv+"_ROUND"), &round)
	crashChild(path, round, create != nil && create(round))
	return true
}

// TestBoltLedgerSurvivesKill re-executes the test binary as a child that
// emits and resolves envelopes in a loop, kills it with SIGKILL while it
// writes, and checks in the parent that the file opens (meta pages, the
// high-water file and the full page walk all pass), passes bbolt's
// consistency check, and holds every envelope the child reported resolved
// as resolved by authority, with none reopenable. It does so for several
// rounds on the same file, so a later child also opens the file an earlier
// one left. Envelopes the ledger holds as resolved that the child never
// reported are the at-most-once window (see package ledger): consumed, with
// nobody told; Lookup still names their outcome.
func TestBoltLedgerSurvivesKill(t *testing.T) {
	if crashChildMain(nil) {
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	path := filepath.Join(t.TempDir(), "ledger.db")
	var all []hashing.Digest
	for round := range 3 {
		killAfter := 20 + rng.IntN(200) // lines read before the kill, which comes 0 to 3 ms later: anywhere in a cycle
		killDelay := time.Duration(rng.IntN(3000)) * time.Microsecond
		reported := runCrashChild(t, "TestBoltLedgerSurvivesKill", path, round, func(lines int) bool { return lines == killAfter }, killDelay)
		if len(reported) < killAfter {
			t.Fatalf("round %d: child reported %d envelopes, want at least %d", round, len(reported), killAfter)
		}
		all = append(all, reported...)
		unseen := checkCrashLedger(t, path, all, round, len(reported))
		t.Logf("round %d: killed after %d lines, %d reported resolved, %d resolved but unreported", round, killAfter, len(reported), unseen)
	}
}

// TestBoltLedgerCreationKill kills children that create a new ledger at
// random moments of their first milliseconds: before the file exists,
// after bbolt created it but before the high-water file, before the
// bucket, before or during the first commits. Every file left must open
// (never "corrupt": a crash is not damage) and hold what the child
// reported. The children of odd rounds create the ledger with Create,
// the others with Open.
func TestBoltLedgerCreationKill(t *testing.T) {
	if crashChildMain(func(round int) bool { return round%2 == 1 }) {
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	states := map[string]int{}
	for round := range 24 {
		path := filepath.Join(dir, fmt.Sprintf("ledger-%d.db", round))
		delay := time.Duration(rng.IntN(40_000)) * time.Microsecond
		reported := runCrashChild(t, "TestBoltLedgerCreationKill", path, round, nil, delay)
		_, dbErr := os.Stat(path)
		_, hwmErr := os.Stat(path + ".hwm")
		state := fmt.Sprintf("ledger exists %v, .hwm exists %v", dbErr == nil, hwmErr == nil)
		if len(reported) > 0 {
			state += ", envelopes reported"
		}
		states[state]++
		checkCrashLedger(t, path, reported, round, len(reported))
	}
	t.Logf("states after the kill: %v", states)
}

// runCrashChild runs the child test of name on the ledger at path and kills
// it delay after kill(lines read) is first true, or after delay from its
// start if kill is nil. It returns the digests the child reported.
func runCrashChild(t *testing.T, name, path string, round int, kill func(int) bool, delay time.Duration) []hashing.Digest {
	t.Helper()
	cmd := selfexec.Command("-test.run=^"+name+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path, fmt.Sprintf("%s_ROUND=%d", crashChildEnv, round))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() }) // never hang
	defer timer.Stop()
	if kill == nil {
		time.AfterFunc(delay, func() { cmd.Process.Kill() })
	}

	var reported []hashing.Digest
	sc := bufio.NewScanner(out)
	killed := false
	for sc.Scan() {
		b, err := hex.DecodeString(sc.Text())
		if err != nil || len(b) != hashing.Size {
			t.Errorf("child wrote %q", sc.Text())
			continue
		}
		reported = append(reported, hashing.Digest(b))
		if kill != nil && kill(len(reported)) && !killed {
			killed = true
			time.AfterFunc(delay, func() { cmd.Process.Kill() }) // SIGKILL on Unix
			// Keep reading: lines written before the kill still count.
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != -1 {
		t.Fatalf("child exited with %v, want killed by a signal", err)
	}
	return reported
}

// checkCrashLedger opens the ledger a killed child left and checks it:
// every digest of resolved is resolved by authority; of the envelopes of
// this round after the first n reported, those resolved are counted
// (unseen) and must have an outcome and a time too.
func checkCrashLedger(t *testing.T, path string, resolved []hashing.Digest, round, n int) (unseen int) {
	t.Helper()
	l, err := Open(path, &Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer l.Close()
	err = l.db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("bbolt check after kill: %v", err)
	}
	for _, d := range resolved {
		if e, err := l.Lookup(d); e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeAuthority || e.ResolvedAt.IsZero() || err != nil {
			t.Fatalf("%s reported resolved, now %+v (%v)", d, e, err)
		}
		if err := l.Emit(d); !errors.Is(err, ledger.ErrAlreadyResolved) {
			t.Fatalf("%s re-emitted after kill: %v", d, err)
		}
		if ok, err := l.Resolve(d, ledger.OutcomeAuthority); ok || err != nil {
			t.Fatalf("%s resolved again after kill: %v, %v", d, ok, err)
		}
	}
	for i := n; ; i++ {
		e, err := l.Lookup(crashDigest(round, i))
		if err != nil {
			t.Fatal(err)
		}
		if e.State != ledger.StateResolved {
			break
		}
		if e.Outcome != ledger.OutcomeAuthority || e.ResolvedAt.IsZero() {
			t.Fatalf("unreported envelope %d resolved as %+v", i, e)
		}
		unseen++
	}
	return unseen
}
