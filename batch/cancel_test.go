package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/canon"
)

// settle waits until no more goroutines run than before, and fails the
// test with every goroutine's stack if that does not happen within a few
// seconds: a run left one behind.
func settle(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before the run:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// cyclePool returns the lines of an endless generated stream (genReader)
// and the reference answer to each.
func cyclePool(t *testing.T) (pool [][]byte, want []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	var in []byte
	for i := range 300 {
		line := genRecord(rng, false)
		if i%10 == 0 {
			line = []byte(badLines[rng.IntN(len(badLines))])
		}
		line = append(line, '\n')
		pool = append(pool, line)
		in = append(in, line...)
	}
	want, _ = reference(in, canon.Strict, testMaxRecord, ModeDigest)
	for i := range want {
		want[i] = want[i][strings.IndexByte(want[i], ' ')+1:] // without the line number
	}
	return pool, want
}

// TestCancelMidStream cancels an endless stream at various points, from
// inside the callback: the run ends with context.Canceled, the results
// delivered are exactly the first ones of the stream, in order, none is
// delivered after the cancellation, and no goroutine is left behind.
func TestCancelMidStream(t *testing.T) {
	pool, want := cyclePool(t)
	for _, workers := range []int{1, 2, 8} {
		for _, bs := range []int{100, 0} {
			for _, stopAt := range []int64{1, 77, 5000} {
				label := fmt.Sprintf("workers=%d/block=%d/stop=%d", workers, bs, stopAt)
				before := runtime.NumGoroutine()
				ctx, cancel := context.WithCancel(context.Background())
				var n int64
				sum, err := Stream(ctx, newGenReader(pool, -1), Options{Workers: workers, BlockSize: bs, MaxRecord: testMaxRecord}, func(r Result) error {
					n++
					if r.Line != n {
						t.Fatalf("%s: result %d has line %d", label, n, r.Line)
					}
					if got, w := answer(r, ModeDigest), fmt.Sprintf("%d: %s", n, want[(n-1)%int64(len(want))]); got != w {
						t.Fatalf("%s: %q, want %q", label, got, w)
					}
					if n == stopAt {
						cancel()
					}
					return nil
				})
				cancel()
				if !errors.Is(err, context.Canceled) || n != stopAt || sum.Records != stopAt {
					t.Errorf("%s: %d results (summary %d), error %v; want %d and context.Canceled", label, n, sum.Records, err, stopAt)
				}
				settle(t, before)
			}
		}
	}
}

// TestCancelFromOutside cancels while the callback is blocked, so that the
// source has filled every block and waits for a free one, and the workers
// are idle.
func TestCancelFromOutside(t *testing.T) {
	pool, _ := cyclePool(t)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	n := 0
	done := make(chan error, 1)
	go func() {
		_, err := Stream(ctx, newGenReader(pool, -1), Options{Workers: 2, BlockSize: 4096}, func(r Result) error {
			n++
			if n == 10 {
				<-release
			}
			return nil
		})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the source fill every block
	cancel()
	close(release)
	if err := <-done; !errors.Is(err, context.Canceled) || n != 10 {
		t.Errorf("%d results, error %v; want 10 and context.Canceled", n, err)
	}
	settle(t, before)
}

// TestCancelLongLine cancels while the source reads an endless line, past
// a block: while it gathers it (within the bound) and while it skips it
// (past the bound); neither may hold the run.
func TestCancelLongLine(t *testing.T) {
	for _, bs := range []int{1000, 0} {
		for _, maxRecord := range []int{100, 64 << 20} {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			r := io.MultiReader(strings.NewReader("[1]\n["), spaces{})
			// Cancel 20 ms after the first line's answer, by when the source
			// is in the endless line: a timer started before the run would
			// race the first answer on a loaded machine.
			n := 0
			_, err := Stream(ctx, r, Options{BlockSize: bs, MaxRecord: maxRecord}, func(Result) error {
				if n++; n == 1 {
					time.AfterFunc(20*time.Millisecond, cancel)
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) || n != 1 {
				t.Errorf("block=%d/max=%d: %d results, error %v; want 1 and context.Canceled", bs, maxRecord, n, err)
			}
			cancel()
			settle(t, before)
		}
	}
}

// TestStopByCallback stops a run by an error from the callback (Stream
// and Records), and by breaking out of Lines.
func TestStopByCallback(t *testing.T) {
	pool, _ := cyclePool(t)
	docs := make([][]byte, 10_000)
	for i := range docs {
		docs[i] = pool[i%len(pool)]
	}
	stop := errors.New("stop")
	for _, workers := range []int{1, 8} {
		for name, run := range map[string]func(emit func(Result) error) error{
			"Stream": func(emit func(Result) error) error {
				_, err := Stream(context.Background(), newGenReader(pool, -1), Options{Workers: workers}, emit)
				return err
			},
			"Records": func(emit func(Result) error) error {
				_, err := Records(context.Background(), docs, Options{Workers: workers, BlockSize: 1000}, emit)
				return err
			},
		} {
			before := runtime.NumGoroutine()
			n := 0
			err := run(func(Result) error {
				if n++; n == 1000 {
					return stop
				}
				return nil
			})
			if err != stop || n != 1000 {
				t.Errorf("workers=%d: %s: %d results, error %v; want 1000 and stop", workers, name, n, err)
			}
			settle(t, before)
		}

		before := runtime.NumGoroutine()
		n := 0
		for r, err := range Lines(context.Background(), newGenReader(pool, -1), Options{Workers: workers}) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; r.Line == 1000 {
				break
			}
		}
		if n != 1000 {
			t.Errorf("workers=%d: Lines: %d results before break, want 1000", workers, n)
		}
		settle(t, before)
	}
}

// TestCancelled checks a context that is done before the run: nothing is
// read or delivered.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := readFunc(func([]byte) (int, error) { t.Error("read"); return 0, io.EOF })
	if _, err := Stream(ctx, r, Options{}, func(Result) error { t.Error("result"); return nil }); err != context.Canceled {
		t.Errorf("Stream: %v", err)
	}
	res, err := Digests(ctx, [][]byte{[]byte("1")}, canon.Strict)
	if len(res) != 0 || err != context.Canceled {
		t.Errorf("Digests: %v, %v", res, err)
	}
}

// TestCancelDigestsPrefix cancels Digests part-way through: what it
// returns is a prefix of the full answer.
func TestCancelDigestsPrefix(t *testing.T) {
	pool, _ := cyclePool(t)
	docs := make([][]byte, 50_000)
	for i := range docs {
		docs[i] = bytes.TrimSuffix(pool[i%len(pool)], []byte("\n"))
	}
	full, err := Digests(context.Background(), docs, canon.Strict)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(5*time.Millisecond, cancel)
	part, err := Digests(ctx, docs, canon.Strict)
	if err != nil && err != context.Canceled || err == nil && len(part) != len(docs) {
		t.Fatalf("%d results, error %v", len(part), err)
	}
	for i, r := range part {
		if fmt.Sprint(r) != fmt.Sprint(full[i]) {
			t.Fatalf("result %d: %v, want %v", i, r, full[i])
		}
	}
	t.Logf("%d of %d results before the cancellation", len(part), len(docs))
}
