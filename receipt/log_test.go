package receipt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/race"
)

// TestLogAppend checks what Append returns and writes: the receipt's
// line is the file's, its digest the SHA-256 of the line, the payload
// filled (the caller's Seq, KeyID and the like replaced), and a log opened
// again continues the chain.
func TestLogAppend(t *testing.T) {
	s := testSigner(1)
	path := filepath.Join(t.TempDir(), "log.jsonl")
	clock := fixedClock()
	l, err := Open(path, s, Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if l.Recovered() != nil {
		t.Errorf("a new log recovered %+v", l.Recovered())
	}
	var rs []Receipt
	for i := range 3 {
		p := samplePayload(i)
		p.Seq, p.KeyID, p.ReceiptID, p.PrevHash = 99, "x", "y", [32]byte{1}
		if i == 2 {
			p.TimestampMS = 42
		}
		r, err := l.Append(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	var prev [32]byte
	for i, r := range rs {
		p := r.Payload
		switch {
		case r.Seq != uint64(i+1) || p.Seq != r.Seq:
			t.Errorf("receipt %d: seq %d, payload seq %d", i, r.Seq, p.Seq)
		case !bytes.Equal(r.Line, lines[i]):
			t.Errorf("receipt %d: line %s, file %s", i, r.Line, lines[i])
		case r.Digest != sha256.Sum256(lines[i]):
			t.Errorf("receipt %d: digest %v", i, r.Digest)
		case p.PrevHash != prev:
			t.Errorf("receipt %d: prev_hash %x, want %x", i, p.PrevHash, prev)
		case p.KeyID != independentKeyID(t, s.Public()) || p.ReceiptID != fmt.Sprintf("lavr:%s:%d", p.KeyID[7:23], i+1):
			t.Errorf("receipt %d: key id %s, receipt id %s", i, p.KeyID, p.ReceiptID)
		case i < 2 && p.TimestampMS != 1_780_000_000_000+int64(i)+1, i == 2 && p.TimestampMS != 42:
			t.Errorf("receipt %d: timestamp %d", i, p.TimestampMS)
		}
		prev = sha256.Sum256(lines[i])
	}
	if _, err := l.Append(context.Background(), samplePayload(0)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	if err := l.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: %v", err)
	}

	l, err = Open(path, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Append(context.Background(), samplePayload(5))
	if err != nil || r.Seq != 4 || r.Payload.PrevHash != rs[2].Digest {
		t.Errorf("after reopening: %+v, %v", r, err)
	}
	l.Close()
	b, _ = os.ReadFile(path)
	if sum, err := verifyBytes(b, s.Public(), 0); err != nil || sum.Records != 4 {
		t.Errorf("Verify: %+v, %v", sum, err)
	}
}

// TestLogRefuses checks that a payload Append cannot write, a done
// context, a nil signer, a negative wait and a path that is not a file
// are refused, and that a refused payload takes no seq.
func TestLogRefuses(t *testing.T) {
	s := testSigner(1)
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	l, err := Open(path, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bad := samplePayload(0)
	bad.Class = "HUGE"
	if _, err := l.Append(context.Background(), bad); err == nil {
		t.Error("bad class accepted")
	}
	big := samplePayload(0)
	big.Detail = string(bytes.Repeat([]byte("x"), MaxLineSize))
	if _, err := l.Append(context.Background(), big); err == nil {
		t.Error("a line over MaxLineSize accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Append(ctx, samplePayload(0)); err != context.Canceled {
		t.Errorf("canceled: %v", err)
	}
	if r, err := l.Append(context.Background(), samplePayload(0)); err != nil || r.Seq != 1 {
		t.Errorf("after refusals: seq %d, %v", r.Seq, err)
	}
	if _, err := Open(filepath.Join(dir, "x"), nil, Options{}); err == nil {
		t.Error("nil Signer accepted")
	}
	if _, err := Open(filepath.Join(dir, "x"), s, Options{Wait: -1}); err == nil {
		t.Error("negative wait accepted")
	}
	if _, err := Open(dir, s, Options{}); err == nil {
		t.Error("a directory opened")
	}
	// A missing directory: fs.ErrNotExist, the path named once.
	missing := filepath.Join(dir, "no", "log")
	_, err = Open(missing, s, Options{})
	if want := "receipt: open " + missing + ": no such file or directory"; !errors.Is(err, fs.ErrNotExist) || runtime.GOOS != "windows" && err.Error() != want {
		t.Errorf("Open in a missing directory: %v; want fs.ErrNotExist, %q", err, want)
	}
}

// TestLogConcurrent appends from 64 goroutines at once: every seq is
// given once, they run from 1 without a gap, each receipt is the line of
// its seq in the file, and the file verifies.
func TestLogConcurrent(t *testing.T) {
	s := testSigner(1)
	path := filepath.Join(t.TempDir(), "log")
	l, err := Open(path, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const goroutines = 64
	per := 20
	if race.Enabled || testing.Short() {
		per = 5
	}
	got := make([][]Receipt, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range per {
				r, err := l.Append(context.Background(), samplePayload(g*per+i))
				if err != nil {
					t.Error(err)
					return
				}
				got[g] = append(got[g], r)
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	n := goroutines * per
	seen := make([]bool, n+1)
	for _, rs := range got {
		for _, r := range rs {
			if r.Seq < 1 || r.Seq > uint64(n) || seen[r.Seq] {
				t.Fatalf("seq %d given twice or out of 1..%d", r.Seq, n)
			}
			seen[r.Seq] = true
			if !bytes.Equal(lines[r.Seq-1], r.Line) {
				t.Errorf("seq %d: the receipt is not line %d", r.Seq, r.Seq)
			}
		}
	}
	if len(lines) != n {
		t.Errorf("%d lines, want %d", len(lines), n)
	}
	if sum, err := verifyBytes(b, s.Public(), 0); err != nil || sum.Records != int64(n) {
		t.Errorf("Verify: %+v, %v", sum, err)
	}
	st := l.Stats()
	t.Logf("%d appends in %d writes and %d fsyncs", st.Appends, st.Writes, st.Syncs)
	if st.Appends != uint64(n) || st.Syncs != 2*st.Writes || st.Writes > st.Appends {
		t.Errorf("stats %+v", st)
	}
}

// TestLogGroupCommit makes each fsync take 20 ms, starts 64 Appends at
// once and checks that they took far fewer fsyncs than records (the first
// group holds one record, the second the other 63 but for stragglers),
// and that each returned only after its record's fsync.
func TestLogGroupCommit(t *testing.T) {
	s := testSigner(1)
	l, err := Open(filepath.Join(t.TempDir(), "log"), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var synced atomic.Uint64 // records written before the last fsync completed
	var written atomic.Uint64
	l.write = func(b []byte) error {
		written.Add(uint64(bytes.Count(b, []byte("\n"))))
		_, err := l.f.Write(b)
		return err
	}
	l.sync = func() error {
		time.Sleep(20 * time.Millisecond)
		err := l.f.Sync()
		synced.Store(written.Load())
		return err
	}
	const n = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			r, err := l.Append(context.Background(), samplePayload(i))
			if err != nil {
				t.Error(err)
			} else if synced.Load() < r.Seq {
				t.Errorf("seq %d returned before its fsync (%d synced)", r.Seq, synced.Load())
			}
		})
	}
	close(start)
	wg.Wait()
	st := l.Stats()
	t.Logf("%d appends in %d fsyncs", st.Appends, st.Syncs)
	if st.Appends != n || st.Syncs >= n/4 {
		t.Errorf("%d concurrent appends took %d fsyncs (stats %+v), want fewer than %d", n, st.Syncs, st, n/4)
	}
}

// TestLogSerial checks the benchmark's baseline: one write per Append,
// and two fsyncs (the log's, then its high-water file's).
func TestLogSerial(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "log"), testSigner(1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.serial = true
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if _, err := l.Append(context.Background(), samplePayload(i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if st := l.Stats(); st.Syncs != 32 || st.Appends != 16 {
		t.Errorf("stats %+v, want 32 fsyncs (the log's and the mark's)", st)
	}
}

// TestLogFailClosed injects a write error, a short write and an fsync
// error that lasts: the Appends of that group fail with it and ErrFailed,
// every later Append fails at once without writing, the log holds no
// record of the group (truncated back to the mark at once: with the
// lasting fsync error the truncation cannot be synced, and the error says
// so), and the file opened again verifies.
func TestLogFailClosed(t *testing.T) {
	boom := errors.New("injected")
	for _, kind := range []string{"write", "short write", "fsync"} {
		t.Run(kind, func(t *testing.T) {
			s := testSigner(1)
			path := filepath.Join(t.TempDir(), "log")
			l, err := Open(path, s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if _, err := l.Append(context.Background(), samplePayload(i)); err != nil {
					t.Fatal(err)
				}
			}
			release := make(chan struct{})
			switch kind {
			case "write":
				l.write = func([]byte) error { <-release; return boom }
			case "short write":
				l.write = func(b []byte) error {
					<-release
					l.f.Write(b[:len(b)/2])
					return boom
				}
			case "fsync":
				l.sync = func() error { <-release; return boom }
			}
			// The first Append leads a group alone and blocks in the hook;
			// the next ones gather behind it.
			errs := make(chan error, 8)
			go func() { _, err := l.Append(context.Background(), samplePayload(3)); errs <- err }()
			for l.Stats().Writes < 4 {
				time.Sleep(time.Millisecond)
			}
			for i := range 7 {
				go func() { _, err := l.Append(context.Background(), samplePayload(4+i)); errs <- err }()
			}
			for l.signed.Load() < 3+1+7 {
				time.Sleep(time.Millisecond)
			}
			close(release)
			for range 8 {
				if err := <-errs; !errors.Is(err, ErrFailed) || !errors.Is(err, boom) {
					t.Errorf("Append of a failed group: %v", err)
				} else if want := "never acknowledged, off the log, which ends at seq 3 again"; kind == "fsync" {
					want = "off the log failed too (fsync " + path + ": injected)"
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Append of a failed group: %v; want %q", err, want)
					}
				} else if !strings.Contains(err.Error(), want) {
					t.Errorf("Append of a failed group: %v; want %q", err, want)
				}
			}
			writes := l.Stats().Writes
			if _, err := l.Append(context.Background(), samplePayload(0)); !errors.Is(err, ErrFailed) {
				t.Errorf("Append after the failure: %v", err)
			}
			if w := l.Stats().Writes; w != writes {
				t.Errorf("%d writes after the failure", w-writes)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if m := readMark(t, path); m.Seq != 3 {
				t.Errorf("the mark after the failure: %+v, want seq 3", m)
			}
			b, _ := os.ReadFile(path)
			if sum, err := verifyBytes(b, s.Public(), 0); err != nil || sum.LastSeq != 3 {
				t.Errorf("after the failure: %+v, %v; want the group cut off, seq 3 last", sum, err)
			}
			l, err = Open(path, s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tt := l.Recovered(); tt != nil {
				t.Errorf("Open cut %+v, but the group was cut off already", *tt)
			}
			r, err := l.Append(context.Background(), samplePayload(0))
			if err != nil {
				t.Fatal(err)
			}
			l.Close()
			b, _ = os.ReadFile(path)
			if sum, err := verifyBytes(b, s.Public(), 0); err != nil || sum.LastSeq != r.Seq || r.Seq != 4 {
				t.Errorf("after recovery: %+v, %v (appended seq %d, want 4)", sum, err, r.Seq)
			}
		})
	}
}

// TestLogLock checks that a second Open of the file waits up to its Wait
// and fails with ErrLocked, that one that waits longer gets the file once
// the first closes it, and that Wait 0 tries once.
func TestLogLock(t *testing.T) {
	s := testSigner(1)
	path := filepath.Join(t.TempDir(), "log")
	l, err := Open(path, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if _, err := Open(path, s, Options{Wait: 150 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v", err)
	} else if d := time.Since(t0); d < 150*time.Millisecond {
		t.Errorf("second Open failed after %v, before its wait", d)
	} else {
		t.Log(err)
	}
	if _, err := Open(path, s, Options{}); !errors.Is(err, ErrLocked) {
		t.Errorf("Open with no wait: %v", err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		l.Close()
	}()
	l2, err := Open(path, s, Options{Wait: 10 * time.Second})
	if err != nil {
		t.Fatalf("Open waiting for Close: %v", err)
	}
	l2.Close()
}

// TestLogTorn cuts the file at every offset inside its last record (the
// "\n" included), with the high-water mark at the record before it (a
// crash during the append of the last one), and opens it: Open reports
// the torn record, keeps its bytes in path.torn, cuts it off, and the next
// Append takes its seq and links to the record before it, so that the
// whole file verifies again. The whole last record past the mark is cut
// off too, as a record never acknowledged; and a mark at the last record,
// with nothing past it, cuts nothing.
func TestLogTorn(t *testing.T) {
	s := testSigner(1)
	dir := t.TempDir()
	_, b, rs := writeLog(t, dir, s, 5)
	last := lineStarts(b)[4]
	path := filepath.Join(dir, "cut")
	for cut := last; cut <= len(b); cut++ {
		writeLogAt(t, path, b[:cut], markAt(b, 4))
		l, err := Open(path, s, Options{})
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		want := &TornTail{Offset: int64(last), Size: int64(cut - last), Seq: 5, Path: path + ".torn"}
		switch cut {
		case last:
			want = nil
		case len(b):
			want.Records = 1
		}
		if tt := l.Recovered(); (tt == nil) != (want == nil) || tt != nil && *tt != *want {
			t.Errorf("cut at %d: Recovered() = %+v, want %+v", cut, tt, want)
		}
		if kept, _ := os.ReadFile(path + ".torn"); !bytes.Equal(kept, b[last:cut]) {
			t.Errorf("cut at %d: kept %q, want %q", cut, kept, b[last:cut])
		}
		if m := readMark(t, path); m != markAt(b, 4) {
			t.Errorf("cut at %d: the mark is %+v after Open, want that of seq 4", cut, m)
		}
		r, err := l.Append(context.Background(), samplePayload(9))
		if err != nil || r.Seq != 5 || r.Payload.PrevHash != rs[3].Digest {
			t.Errorf("cut at %d: Append: seq %d, prev %x, %v", cut, r.Seq, r.Payload.PrevHash, err)
		}
		l.Close()
		got, _ := os.ReadFile(path)
		if sum, err := verifyBytes(got, s.Public(), 0); err != nil || sum.Records != 5 {
			t.Errorf("cut at %d: Verify: %+v, %v", cut, sum, err)
		}
		if m := readMark(t, path); m != markAt(got, 5) {
			t.Errorf("cut at %d: the mark is %+v after Append, want that of the new seq 5", cut, m)
		}
	}
	// With the mark at the last record, nothing is past it.
	writeLogAt(t, path, b, markAt(b, 5))
	l, err := Open(path, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tt := l.Recovered(); tt != nil {
		t.Errorf("a log at its mark: Recovered() = %+v", *tt)
	}
	l.Close()
}

// TestLogTornKinds opens files with each kind of tail past the mark: NUL
// bytes after a whole record or after a part of one, and a second torn
// record whose bytes are appended to the first's in path.torn; and files
// that Open must refuse without changing them or writing path.torn:
// whatever a crash does not leave past the mark (a tail that is not the
// start of a receipt, records that do not verify, do not link on from the
// mark's record, or are another key's), and a mark's record that is not
// the mark's or not the key's.
func TestLogTornKinds(t *testing.T) {
	s := testSigner(1)
	dir := t.TempDir()
	_, b, _ := writeLog(t, dir, s, 3)
	at3 := markAt(b, 3)
	path := filepath.Join(dir, "kinds")
	open := func(content []byte, m Mark, signer *Signer) (*Log, error) {
		writeLogAt(t, path, content, m)
		return Open(path, signer, Options{})
	}
	for name, tail := range map[string][]byte{
		"NULs":             make([]byte, 4096),
		"part and NULs":    append([]byte(`{"@version":"EP-REC`), make([]byte, 100)...),
		"NULs in the part": append([]byte(`{"@version"`), append(make([]byte, 18), `payload":{"receipt_id`...)...),
	} {
		l, err := open(append(bytes.Clone(b), tail...), at3, s)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if tt := l.Recovered(); tt == nil || tt.Size != int64(len(tail)) || tt.Records != 0 {
			t.Errorf("%s: Recovered() = %+v", name, tt)
		}
		l.Close()
	}
	// Two recoveries: path.torn keeps both, in order.
	os.Remove(path + ".torn")
	for _, tail := range []string{`{"@ver`, `{"@version":"EP`} {
		if err := os.WriteFile(path, append(bytes.Clone(b), tail...), 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := Open(path, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	if kept, _ := os.ReadFile(path + ".torn"); string(kept) != `{"@ver{"@version":"EP` {
		t.Errorf("path.torn holds %q", kept)
	}

	starts := lineStarts(b)
	lastLine := starts[2]
	flipped := bytes.Clone(b)
	flipped[len(b)-20] ^= 1
	respelt := append(append(bytes.Clone(b[:lastLine]), sigBreak(b[lastLine:len(b)-1], `\n`)...), '\n')
	other := file(chain(testSigner(2), 4, nil))
	refuse := map[string]struct {
		content []byte
		mark    Mark
		signer  *Signer
		want    error // nil: any error
	}{
		"junk tail":                {append(bytes.Clone(b), "hello"...), at3, s, nil},
		"receipt-like junk":        {append(bytes.Clone(b), `{"@version":"EP-RECEIPT-v1","payload":[`...), at3, s, nil},
		"not JSON":                 {append(bytes.Clone(b), " \n"...), at3, s, nil},
		"past: not canonical":      {append(append(bytes.Clone(b[:lastLine]), "{ "...), b[lastLine+1:]...), markAt(b, 2), s, ErrNotCanonical},
		"junk line":                {append(bytes.Clone(b), "x\n"...), at3, s, nil},
		"past: bad record":         {flipped, markAt(b, 2), s, ErrSignature},
		"past: respelt signature":  {respelt, markAt(b, 2), s, ErrMalformedSignature},
		"past: middle record lost": {append(bytes.Clone(b[:starts[1]]), b[lastLine:]...), markAt(b, 1), s, ErrSeq},
		"past: last two swapped":   {append(append(bytes.Clone(b[:starts[1]]), b[lastLine:]...), b[starts[1]:lastLine]...), markAt(b, 1), s, ErrSeq},
		"past: another key's":      {append(bytes.Clone(b), other[lineStarts(other)[3]:]...), at3, s, ErrKeyID},
		"past: another chain":      {append(bytes.Clone(b), file(chain(s, 4, nil))[lineStarts(file(chain(s, 4, nil)))[3]:]...), at3, s, ErrLink},
		"bad mark record":          {flipped, at3, s, ErrReplaced},
		"respelt mark record":      {respelt, at3, s, ErrReplaced},
		"last two swapped":         {append(append(bytes.Clone(b[:starts[1]]), b[lastLine:]...), b[starts[1]:lastLine]...), at3, s, ErrReplaced},
		"middle record lost":       {append(bytes.Clone(b[:starts[1]]), b[lastLine:]...), at3, s, ErrTruncated},
		"only a later one":         {bytes.Clone(b[lastLine:]), at3, s, ErrTruncated},
		"other key":                {b, at3, testSigner(2), ErrKeyID},
		"mark of another log":      {b, markAt(file(chain(s, 3, nil)), 3), s, ErrReplaced},
	}
	for name, c := range refuse {
		l, err := open(c.content, c.mark, c.signer)
		if err == nil {
			l.Close()
			t.Errorf("%s: opened", name)
			continue
		}
		t.Logf("%s: %v", name, err)
		if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, c.content) {
			t.Errorf("%s: the file was changed", name)
		}
		if _, err := os.Stat(path + ".torn"); err == nil {
			t.Errorf("%s: path.torn written", name)
		}
		if m := readMark(t, path); m != c.mark {
			t.Errorf("%s: the mark was changed: %+v", name, m)
		}
	}
}
