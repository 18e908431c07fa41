package batch

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// pullEnv carries the mode of the tests (forcePull) to the child processes
// that tests start (selfexec): each runs once, in its parent's mode.
const pullEnv = "BBDIGEST_TEST_BATCH_PULL"

// TestMain runs every test twice: with a source goroutine that queues the
// blocks for the workers (push), and with the workers reading their blocks
// themselves (pull), the two ways a run can go (pullWorkers). Benchmarks,
// and the tests of a child process, run once: with the choice pullWorkers
// makes, and in the parent's mode.
func TestMain(m *testing.M) {
	flag.Parse()
	if v := os.Getenv(pullEnv); v != "" {
		forcePull, _ = strconv.Atoi(v)
		os.Exit(m.Run())
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		os.Exit(m.Run())
	}
	for _, mode := range []int{1, 2} {
		forcePull = mode
		os.Setenv(pullEnv, strconv.Itoa(mode))
		if code := m.Run(); code != 0 {
			fmt.Fprintf(os.Stderr, "batch: the tests failed with the workers %s\n", [...]string{1: "taking their blocks from a source goroutine", 2: "reading their blocks"}[mode])
			os.Exit(code)
		}
	}
	os.Exit(0)
}

// TestPullWorkers checks when a run's workers read their blocks
// themselves: with WorkersRead, and as many workers as Ps or more.
func TestPullWorkers(t *testing.T) {
	withPull(t, 0)
	procs := runtime.GOMAXPROCS(0)
	for _, tt := range []struct {
		read    bool
		workers int
		want    bool
	}{
		{false, procs, false},
		{false, procs + 1, false},
		{true, procs, true},
		{true, procs + 1, true},
		{true, procs - 1, false},
	} {
		if tt.workers < 1 {
			continue
		}
		cfg, err := Options{WorkersRead: tt.read, Workers: tt.workers}.config()
		if err != nil {
			t.Fatal(err)
		}
		if got := pullWorkers(&cfg, tt.workers); got != tt.want {
			t.Errorf("WorkersRead %v, %d workers, GOMAXPROCS %d: pull %v, want %v", tt.read, tt.workers, procs, got, tt.want)
		}
	}
}

// withPull sets forcePull to mode (0: pullWorkers chooses) until tb ends.
func withPull(tb testing.TB, mode int) {
	old := forcePull
	forcePull = mode
	tb.Cleanup(func() { forcePull = old })
}
