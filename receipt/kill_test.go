package receipt

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/selfexec"
)

// killEnv names the log that the child of TestKill appends to.
const killEnv = "RECEIPT_TEST_KILL_CHILD"

// TestKillChild is the child process of TestKill (it skips otherwise): it
// opens the log named by $RECEIPT_TEST_KILL_CHILD and appends to it from
// eight goroutines until it is killed, printing each seq on stdout once
// its Append has returned.
func TestKillChild(t *testing.T) {
	path := os.Getenv(killEnv)
	if path == "" {
		t.Skip("the child process of TestKill")
	}
	l, err := Open(path, testSigner(7), Options{Wait: 10 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	var mu sync.Mutex
	for g := range 8 {
		go func() {
			for i := 0; ; i++ {
				r, err := l.Append(context.Background(), samplePayload(g+8*i))
				if err != nil {
					fmt.Fprintln(os.Stderr, "child:", err)
					os.Exit(3)
				}
				mu.Lock()
				os.Stdout.WriteString(strconv.FormatUint(r.Seq, 10) + "\n")
				mu.Unlock()
			}
		}()
	}
	select {}
}

// TestKill runs TestKillChild in a child process (this test binary again),
// kills it with SIGKILL after a random number of acknowledged receipts, and
// opens the log again, five times over: each time the log opens (cutting
// off a torn record if the kill left one), the whole file verifies, every
// receipt whose Append had returned is in it (the seqs run from 1 without
// a gap, so every acknowledged seq up to the last one), and an Append
// continues the chain.
func TestKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 16))
	s := testSigner(7)
	path := filepath.Join(t.TempDir(), "killed.jsonl")
	var maxAcked uint64
	for round := range 5 {
		cmd := selfexec.Command("-test.run=^TestKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killEnv+"="+path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		target := 20 + rng.IntN(400)
		sc := bufio.NewScanner(out)
		acked := 0
		for acked < target && sc.Scan() {
			acked++
			seq, err := strconv.ParseUint(sc.Text(), 10, 64)
			if err != nil {
				t.Fatalf("round %d: child printed %q", round, sc.Text())
			}
			maxAcked = max(maxAcked, seq)
		}
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		// What the child printed before it died: every whole line is an
		// acknowledged receipt.
		for sc.Scan() {
			if seq, err := strconv.ParseUint(sc.Text(), 10, 64); err == nil {
				maxAcked = max(maxAcked, seq)
			}
		}
		cmd.Wait()
		if acked < target {
			t.Fatalf("round %d: the child stopped after %d receipts: %s", round, acked, stderr.Bytes())
		}

		l, err := Open(path, s, Options{})
		if err != nil {
			t.Fatalf("round %d: Open after the kill: %v", round, err)
		}
		if tt := l.Recovered(); tt != nil {
			t.Logf("round %d: recovered a torn record: %+v", round, *tt)
		}
		b, _ := os.ReadFile(path)
		sum, err := verifyBytes(b, s.Public(), 0)
		if err != nil {
			t.Fatalf("round %d: Verify after the kill: %v", round, err)
		}
		if sum.LastSeq < maxAcked {
			t.Fatalf("round %d: the log ends at seq %d, but seq %d was acknowledged", round, sum.LastSeq, maxAcked)
		}
		r, err := l.Append(context.Background(), samplePayload(0))
		if err != nil || r.Seq != sum.LastSeq+1 || r.Payload.PrevHash != sum.Last {
			t.Fatalf("round %d: Append after the kill: seq %d (want %d), %v", round, r.Seq, sum.LastSeq+1, err)
		}
		l.Close()
		maxAcked = r.Seq
		t.Logf("round %d: %d receipts acknowledged, log at seq %d", round, acked, r.Seq)
	}
	b, _ := os.ReadFile(path)
	if sum, err := verifyBytes(b, s.Public(), 0); err != nil || sum.LastSeq != maxAcked {
		t.Errorf("the final log: %+v, %v", sum, err)
	}
}
