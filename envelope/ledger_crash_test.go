package envelope

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

	bolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
)

// crashChildEnv, when set, makes TestBoltLedgerSurvivesKill the child: it
// names the ledger file to write.
const crashChildEnv = "BBDIGEST_LEDGER_CRASH_CHILD"

// crashDigest is the digest of the i-th envelope of round r.
func crashDigest(round, i int) hashing.Digest {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(round))
	binary.BigEndian.PutUint64(b[8:], uint64(i))
	return hashing.Sum(b[:])
}

// crashChild emits and resolves envelopes until it is killed, writing the
// hex of each digest to stdout once its Resolve has committed. os.Stdout
// is unbuffered: each line is one write(2), issued after the fsync.
func crashChild(path string, round int) {
	l, err := OpenBoltLedger(path)
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
		if ok, err := l.Resolve(d); !ok || err != nil {
			fmt.Fprintln(os.Stderr, "resolve:", ok, err)
			os.Exit(3)
		}
		os.Stdout.WriteString(hex.EncodeToString(d[:]) + "\n")
	}
}

// TestBoltLedgerSurvivesKill re-executes the test binary as a child that
// emits and resolves envelopes in a loop, kills it with SIGKILL while it
// writes, and checks in the parent that the file opens, passes bbolt's
// consistency check, and holds every envelope the child reported resolved
// as resolved, with none reopenable. It does so for several rounds on the
// same file, so a later child also opens the file an earlier one left.
func TestBoltLedgerSurvivesKill(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		var round int
		fmt.Sscan(os.Getenv(crashChildEnv+"_ROUND"), &round)
		crashChild(path, round)
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
		killAfter := 20 + rng.IntN(200) // lines read before the kill
		reported := runCrashChild(t, path, round, killAfter)
		if len(reported) < killAfter {
			t.Fatalf("round %d: child reported %d envelopes, want at least %d", round, len(reported), killAfter)
		}
		all = append(all, reported...)
		checkCrashLedger(t, path, all)
		t.Logf("round %d: killed after %d lines, %d reported resolved", round, killAfter, len(reported))
	}
}

func runCrashChild(t *testing.T, path string, round, killAfter int) []hashing.Digest {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBoltLedgerSurvivesKill$", "-test.count=1")
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
		if len(reported) == killAfter && !killed {
			killed = true
			if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
				t.Fatal(err)
			}
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

func checkCrashLedger(t *testing.T, path string, resolved []hashing.Digest) {
	t.Helper()
	l, err := OpenBoltLedger(path)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer l.Close()
	err = l.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("bbolt check after kill: %v", err)
	}
	for _, d := range resolved {
		if s, err := l.State(d); s != StateResolved || err != nil {
			t.Fatalf("%s reported resolved, now %v (%v)", d, s, err)
		}
		if err := l.Emit(d); !errors.Is(err, ErrAlreadyResolved) {
			t.Fatalf("%s re-emitted after kill: %v", d, err)
		}
		if ok, err := l.Resolve(d); ok || err != nil {
			t.Fatalf("%s resolved again after kill: %v, %v", d, ok, err)
		}
	}
}
