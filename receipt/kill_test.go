package receipt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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

// killEnv names the log that the child of TestKill appends to, and
// windowEnv, when set, the group after whose fsync the child stops.
const (
	killEnv   = "RECEIPT_TEST_KILL_CHILD"
	windowEnv = "RECEIPT_TEST_KILL_WINDOW"
)

// TestKillChild is the child process of TestKill (it skips otherwise): it
// opens the log named by $RECEIPT_TEST_KILL_CHILD and appends to it from
// eight goroutines until it is killed, printing each seq on stdout once
// its Append has returned. With $RECEIPT_TEST_KILL_WINDOW=N, the flusher
// stops after the log's fsync of the Nth group, before its high-water
// update, and prints "window": the parent kills it there.
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
	if w := os.Getenv(windowEnv); w != "" {
		n, err := strconv.Atoi(w)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		groups := 0
		l.synced = func() {
			if groups++; groups == n {
				mu.Lock()
				os.Stdout.WriteString("window\n")
				select {} // killed here, holding mu: nothing more is printed
			}
		}
	}
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
// opens the log again, eight times over; in every other round the kill
// falls between a group's fsync and its high-water update (windowEnv).
// After each kill, before Open, the high-water mark covers every receipt
// whose Append had returned and never claims more than the log holds: the
// log verifies against it, but for records past it, which a window round
// always leaves. Then the log opens (cutting off what is past the mark),
// the whole file verifies, every acknowledged receipt is in it (the seqs
// run from 1 without a gap, so every acknowledged seq up to the last one),
// the mark is the log's last record, and an Append continues the chain.
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
	for round := range 8 {
		window := round%2 == 1
		cmd := selfexec.Command("-test.run=^TestKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killEnv+"="+path)
		if window {
			cmd.Env = append(cmd.Env, windowEnv+"="+strconv.Itoa(2+rng.IntN(40)))
		}
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
		acked, inWindow := 0, false
		for (window || acked < target) && sc.Scan() {
			if inWindow = sc.Text() == "window"; inWindow {
				break
			}
			acked++
			seq, err := strconv.ParseUint(sc.Text(), 10, 64)
			if err != nil {
				t.Fatalf("round %d: child printed %q", round, sc.Text())
			}
			maxAcked = max(maxAcked, seq)
		}
		if !window {
			time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		}
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
		if !window && acked < target || window && !inWindow {
			t.Fatalf("round %d: the child stopped after %d receipts: %s", round, acked, stderr.Bytes())
		}

		// Before Open: the mark is at or past every acknowledged record,
		// and at or below the log.
		m := readMark(t, path)
		if m.Seq < maxAcked {
			t.Fatalf("round %d: the high-water mark is at seq %d, but seq %d was acknowledged", round, m.Seq, maxAcked)
		}
		b, _ := os.ReadFile(path)
		_, err = Verify(context.Background(), bytes.NewReader(b), s.Public(), VerifyOptions{Mark: &m})
		switch {
		case window && !errors.Is(err, ErrUnacknowledged):
			t.Fatalf("round %d: killed between a group's fsync and its mark, Verify against the mark: %v; want the group past it", round, err)
		case err != nil && !errors.Is(err, ErrUnacknowledged) && !errors.Is(err, ErrTorn):
			t.Fatalf("round %d: Verify against the mark after the kill: %v", round, err)
		}

		l, err := Open(path, s, Options{})
		if err != nil {
			t.Fatalf("round %d: Open after the kill: %v", round, err)
		}
		tt := l.Recovered()
		if tt != nil {
			t.Logf("round %d: cut off past the mark: %+v", round, *tt)
		}
		if window && (tt == nil || tt.Records < 1) {
			t.Fatalf("round %d: killed between a group's fsync and its mark, Open cut %+v, want the group's records", round, tt)
		}
		b, _ = os.ReadFile(path)
		sum, err := verifyBytes(b, s.Public(), 0)
		if err != nil {
			t.Fatalf("round %d: Verify after the kill: %v", round, err)
		}
		if sum.LastSeq < maxAcked {
			t.Fatalf("round %d: the log ends at seq %d, but seq %d was acknowledged", round, sum.LastSeq, maxAcked)
		}
		if m := readMark(t, path); m != (Mark{Seq: sum.LastSeq, Size: int64(len(b)), Digest: sum.Last}) {
			t.Fatalf("round %d: after Open the mark is %+v, the log ends at seq %d (%d bytes, %v)", round, m, sum.LastSeq, len(b), sum.Last)
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
