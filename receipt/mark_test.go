package receipt

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMarkFollowsAppends checks the high-water file a Log writes: created
// with the log (the zero Mark, mode 0600), then after each Append the mark
// of the record it returned, which ReadMark reads back.
func TestMarkFollowsAppends(t *testing.T) {
	s := testSigner(1)
	path := filepath.Join(t.TempDir(), "log.jsonl")
	l, err := Open(path, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if m := readMark(t, path); m != (Mark{}) {
		t.Errorf("a new log's mark: %+v", m)
	}
	if st, err := os.Stat(MarkPath(path)); err != nil || st.Mode().Perm() != 0o600 || st.Size() != markFileSize {
		t.Errorf("the high-water file: %v, %v", st, err)
	}
	for i := range 4 {
		r, err := l.Append(context.Background(), samplePayload(i))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		want := Mark{Seq: r.Seq, Size: int64(len(b)), Digest: r.Digest}
		if m := readMark(t, path); m != want {
			t.Errorf("after seq %d: mark %+v, want %+v", r.Seq, m, want)
		}
	}
}

// TestLogMarkRefuses erases records from the end of a log, deletes it, and
// puts back an older copy, and checks that Open refuses each (the finding
// of issue 25: a log without its tail used to open, and the next Append
// continued the chain over the gap), changing nothing and recreating
// nothing, with an error that names both files; and that a log with
// records but no high-water file, or a damaged one, is refused too.
func TestLogMarkRefuses(t *testing.T) {
	s := testSigner(1)
	dir := t.TempDir()
	path, b, _ := writeLog(t, dir, s, 5)
	mark := readMark(t, path)
	markFile, _ := os.ReadFile(MarkPath(path))
	starts := lineStarts(b)
	for _, c := range []struct {
		name    string
		content []byte // nil: no log
		mark    []byte // nil: no high-water file
		want    error
		says    []string
	}{
		{"last line dropped", b[:starts[4]], markFile, ErrTruncated, []string{"fewer than the", "through seq 5"}},
		{"last two lines dropped", b[:starts[3]], markFile, ErrTruncated, []string{"through seq 5"}},
		{"emptied", []byte{}, markFile, ErrTruncated, []string{"has 0 bytes"}},
		{"deleted", nil, markFile, ErrTruncated, []string{"is missing, but its high-water file", "records seq 5", "deleted or moved"}},
		{"deleted, damaged mark", nil, make([]byte, 10), ErrTruncated, []string{"is missing, but its high-water file", "is there"}},
		{"cut inside the last record", b[:len(b)-10], markFile, ErrTruncated, nil},
		{"last record replaced", append(bytes.Clone(b[:starts[4]]), file(chain(s, 5, nil))[lineStarts(file(chain(s, 5, nil)))[4]:]...), markFile, ErrReplaced, nil},
		{"no high-water file", b, nil, ErrMark, []string{"but no high-water file"}},
		{"damaged high-water file", b, bytes.Repeat([]byte{0xff}, markFileSize), ErrMark, []string{"damaged"}},
		{"empty high-water file", b, []byte{}, ErrMark, []string{"damaged"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "log.jsonl")
			if c.content != nil {
				if err := os.WriteFile(p, c.content, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if c.mark != nil {
				if err := os.WriteFile(MarkPath(p), c.mark, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l, err := Open(p, s, Options{})
			if err == nil {
				l.Close()
				t.Fatal("opened")
			}
			t.Log(err)
			if !errors.Is(err, c.want) {
				t.Errorf("%v, want %v", err, c.want)
			}
			msg := err.Error()
			for _, want := range append(c.says, p) {
				if !strings.Contains(msg, want) {
					t.Errorf("the error does not say %q", want)
				}
			}
			if c.mark != nil && !strings.Contains(msg, MarkPath(p)) {
				t.Errorf("the error does not name the high-water file")
			}
			got, err := os.ReadFile(p)
			switch {
			case c.content == nil && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("the deleted log was recreated: %v", err)
			case c.content != nil && !bytes.Equal(got, c.content):
				t.Error("the log was changed")
			}
			if got, _ := os.ReadFile(MarkPath(p)); c.mark != nil && !bytes.Equal(got, c.mark) {
				t.Error("the high-water file was changed")
			}
			if _, err := os.Stat(p + ".torn"); err == nil {
				t.Error("path.torn written")
			}
		})
	}
	// The log put back whole opens, and continues from its mark.
	l, err := Open(path, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if r, err := l.Append(context.Background(), samplePayload(5)); err != nil || r.Seq != mark.Seq+1 || r.Payload.PrevHash != mark.Digest {
		t.Errorf("Append: seq %d, %v", r.Seq, err)
	}
}

// TestLogMarkNew checks when Open makes a new log: neither file there, or
// an empty log whose high-water file is missing or damaged (the crash
// windows of a log's creation), each opening at seq 0 with a zero mark
// written in both slots.
func TestLogMarkNew(t *testing.T) {
	s := testSigner(1)
	for name, setup := range map[string]func(path string){
		"nothing":                  func(string) {},
		"empty log":                func(p string) { os.WriteFile(p, nil, 0o600) },
		"empty log, empty mark":    func(p string) { os.WriteFile(p, nil, 0o600); os.WriteFile(MarkPath(p), nil, 0o600) },
		"empty log, damaged mark":  func(p string) { os.WriteFile(p, nil, 0o600); os.WriteFile(MarkPath(p), make([]byte, 600), 0o600) },
		"empty log, its zero mark": func(p string) { os.WriteFile(p, nil, 0o600); writeMark(t, MarkPath(p), Mark{}) },
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			setup(path)
			l, err := Open(path, s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			st, err := readMarkState(MarkPath(path))
			if err != nil || !st.valid[0] || !st.valid[1] || st.mark[0] != (Mark{}) || st.mark[1] != (Mark{}) {
				t.Errorf("the new log's high-water file: %+v, %v", st, err)
			}
			r, err := l.Append(context.Background(), samplePayload(0))
			if err != nil || r.Seq != 1 {
				t.Errorf("Append: seq %d, %v", r.Seq, err)
			}
			l.Close()
		})
	}
}

// TestLogMarkSlots damages one slot of the high-water file at a time, as a
// write torn by a crash does: Open reads the other, and the log opens at
// or past it (past: the group whose mark was being written, cut off). Two
// slots holding different marks of one seq, or none intact, are refused.
func TestLogMarkSlots(t *testing.T) {
	s := testSigner(1)
	dir := t.TempDir()
	_, b, _ := writeLog(t, dir, s, 4)
	path := filepath.Join(dir, "slots")
	at := func(n int) []byte {
		var slot [markSlotSize]byte
		encodeMarkSlot(slot[:], markAt(b, n))
		return slot[:]
	}
	damaged := make([]byte, markSlotSize)
	two := func(a, c []byte) []byte {
		f := make([]byte, markFileSize)
		copy(f, a)
		copy(f[markSlotStride:], c)
		return f
	}
	for _, c := range []struct {
		name   string
		mark   []byte
		cut    int // records cut off past the mark; -1: refused
		refuse error
	}{
		{"newest in 0, other torn", two(at(4), damaged), 0, nil},
		{"newest in 1, other torn", two(damaged, at(4)), 0, nil},
		{"torn write of mark 4 over 2", two(at(3), damaged), 1, nil},
		{"both intact, 0 newer", two(at(4), at(3)), 0, nil},
		{"both intact, 1 newer", two(at(2), at(4)), 0, nil},
		{"both intact, 1 behind", two(at(3), at(2)), 1, nil},
		{"slot 1 missing", at(4), 0, nil},
		{"one seq, two marks", two(at(4), func() []byte {
			m := markAt(b, 4)
			m.Digest[0] ^= 1
			var slot [markSlotSize]byte
			encodeMarkSlot(slot[:], m)
			return slot[:]
		}()), -1, ErrMark},
		{"none intact", two(damaged, damaged), -1, ErrMark},
		{"a bit flipped in each", func() []byte { f := two(at(4), at(3)); f[10] ^= 1; f[markSlotStride+20] ^= 1; return f }(), -1, ErrMark},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(path + ".torn")
			os.WriteFile(path, b, 0o600)
			os.WriteFile(MarkPath(path), c.mark, 0o600)
			l, err := Open(path, s, Options{})
			if c.cut < 0 {
				if err == nil {
					l.Close()
					t.Fatal("opened")
				}
				if !errors.Is(err, c.refuse) {
					t.Errorf("%v, want %v", err, c.refuse)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			tt := l.Recovered()
			if got := 0; tt != nil {
				got = tt.Records
				if got != c.cut {
					t.Errorf("cut %d records, want %d", got, c.cut)
				}
			} else if c.cut != 0 {
				t.Errorf("cut nothing, want %d records", c.cut)
			}
			r, err := l.Append(context.Background(), samplePayload(9))
			if err != nil || r.Seq != uint64(4-c.cut+1) {
				t.Errorf("Append: seq %d, %v", r.Seq, err)
			}
			got, _ := os.ReadFile(path)
			if m := readMark(t, path); m != markAt(got, int(r.Seq)) {
				t.Errorf("the mark after Append: %+v", m)
			}
		})
	}
}

// TestLogUnacknowledged puts whole records past the mark, as a crash
// between a group's fsync and its mark's leaves them, or a failure whose
// cut failed: Open cuts them off into path.torn, reports how many, and
// continues from the mark; more than a group's worth is refused.
func TestLogUnacknowledged(t *testing.T) {
	s := testSigner(1)
	dir := t.TempDir()
	_, b, rs := writeLog(t, dir, s, 6)
	path := filepath.Join(dir, "unacked")
	for _, n := range []int{1, 3, 6} {
		writeLogAt(t, path, b, markAt(b, 6-n))
		l, err := Open(path, s, Options{})
		if err != nil {
			t.Fatalf("%d past the mark: %v", n, err)
		}
		off := markAt(b, 6-n).Size
		want := TornTail{Offset: off, Size: int64(len(b)) - off, Seq: uint64(6 - n + 1), Records: n, Path: path + ".torn"}
		if tt := l.Recovered(); tt == nil || *tt != want {
			t.Errorf("%d past the mark: Recovered() = %+v, want %+v", n, tt, want)
		}
		if kept, _ := os.ReadFile(path + ".torn"); !bytes.Equal(kept, b[off:]) {
			t.Errorf("%d past the mark: path.torn holds %d bytes, want the %d cut", n, len(kept), len(b)-int(off))
		}
		r, err := l.Append(context.Background(), samplePayload(9))
		var prev [32]byte
		if n < 6 {
			prev = rs[6-n-1].Digest
		}
		if err != nil || r.Seq != uint64(6-n+1) || r.Payload.PrevHash != prev {
			t.Errorf("%d past the mark: Append: seq %d, %v", n, r.Seq, err)
		}
		l.Close()
	}

	// A group holds at most maxGroup records: more past the mark is not
	// what a crash leaves (a mark rolled back, another writer).
	big := file(chain(s, maxGroup+2, nil))
	writeLogAt(t, path, big, markAt(big, 1))
	if l, err := Open(path, s, Options{}); err == nil {
		l.Close()
		t.Errorf("%d records past the mark opened", maxGroup+1)
	} else if !strings.Contains(err.Error(), "one group holds at most") {
		t.Errorf("%d records past the mark: %v", maxGroup+1, err)
	}
	writeLogAt(t, path, big, markAt(big, 2))
	l, err := Open(path, s, Options{})
	if err != nil {
		t.Fatalf("%d records past the mark: %v", maxGroup, err)
	}
	if tt := l.Recovered(); tt == nil || tt.Records != maxGroup {
		t.Errorf("%d records past the mark: Recovered() = %+v", maxGroup, tt)
	}
	l.Close()
}

// TestLogGroupBound appends more records at once than a group holds, with
// a slow fsync so that they gather: no write holds more than maxGroup
// records.
func TestLogGroupBound(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "log"), testSigner(1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var most int
	l.write = func(b []byte) error {
		most = max(most, bytes.Count(b, []byte("\n")))
		_, err := l.f.Write(b)
		return err
	}
	release := make(chan struct{})
	first := true
	l.sync = func() error {
		if first {
			first = false
			<-release
		}
		return l.f.Sync()
	}
	const n = maxGroup + 100
	errs := make(chan error, n)
	for i := range n {
		go func() { _, err := l.Append(context.Background(), samplePayload(i)); errs <- err }()
	}
	for l.signed.Load() < maxGroup+1 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if most > maxGroup || most == 0 {
		t.Errorf("a write held %d records, want at most %d", most, maxGroup)
	}
	if st := l.Stats(); st.Appends != n {
		t.Errorf("stats %+v", st)
	}
}

// TestLogFsyncEIO is the finding of issue 25 on failed fsyncs: the write
// of a PASS receipt succeeds, its fsync fails with EIO, the Append fails
// (and the gate denies), but the signed PASS record stayed in the log,
// verified, and the chain continued from it. Now the failed group is cut
// back off: no record of it remains in the log, the mark still names the
// last acknowledged record, and the log opened again continues from that
// one. When the cut cannot be done either (the truncation fails), the Log
// stays failed, Verify with the mark reports the PASS as never
// acknowledged, and Open cuts it off into path.torn. When the high-water
// file's fsync fails, its slot is restored and the group cut off; and if
// that restore fails too, the mark is left ahead of the log and Open
// refuses the log (fail closed) rather than keep a PASS that was denied.
func TestLogFsyncEIO(t *testing.T) {
	pass := samplePayload(0) // a PASS
	if pass.Result != ResultPass {
		t.Fatal("samplePayload(0) is not a PASS")
	}
	setup := func(t *testing.T) (string, *Log, *Signer) {
		s := testSigner(1)
		path := filepath.Join(t.TempDir(), "log")
		l, err := Open(path, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, err := l.Append(context.Background(), samplePayload(i+1)); err != nil {
				t.Fatal(err)
			}
		}
		return path, l, s
	}
	once := func(f func() error) func() error {
		done := false
		return func() error {
			if !done {
				done = true
				return syscall.EIO
			}
			return f()
		}
	}
	// noPass checks that the log holds exactly the 3 acknowledged records.
	noPass := func(t *testing.T, path string, s *Signer) {
		t.Helper()
		b, _ := os.ReadFile(path)
		sum, err := verifyBytes(b, s.Public(), 0)
		if err != nil || sum.LastSeq != 3 {
			t.Errorf("after the failed Append the log holds %+v, %v: want seq 3 last, no record of the failed PASS", sum, err)
		}
		if m := readMark(t, path); m != markAt(b, 3) {
			t.Errorf("the mark %+v is not that of seq 3", m)
		}
	}
	reopen := func(t *testing.T, path string, s *Signer, wantCut int) {
		t.Helper()
		l, err := Open(path, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		switch tt := l.Recovered(); {
		case wantCut == 0 && tt != nil:
			t.Errorf("Open cut %+v", *tt)
		case wantCut > 0 && (tt == nil || tt.Records != wantCut || tt.Seq != 4):
			t.Errorf("Open cut %+v, want %d records from seq 4", tt, wantCut)
		}
		r, err := l.Append(context.Background(), samplePayload(7))
		if err != nil || r.Seq != 4 {
			t.Fatalf("Append after Open: seq %d, %v", r.Seq, err)
		}
		l.Close()
		b, _ := os.ReadFile(path)
		m := readMark(t, path)
		if sum, err := Verify(context.Background(), bytes.NewReader(b), s.Public(), VerifyOptions{Mark: &m}); err != nil || sum.LastSeq != 4 {
			t.Errorf("after reopening: %+v, %v", sum, err)
		}
		if bytes.Contains(b, []byte(`"result":"PASS","server"`)) {
			t.Error("the failed PASS is in the log")
		}
	}

	t.Run("log fsync", func(t *testing.T) {
		path, l, s := setup(t)
		l.sync = once(l.f.Sync)
		_, err := l.Append(context.Background(), pass)
		if !errors.Is(err, ErrFailed) || !errors.Is(err, syscall.EIO) {
			t.Fatalf("Append with a failing fsync: %v", err)
		}
		t.Log(err)
		noPass(t, path, s)
		if _, err := l.Append(context.Background(), samplePayload(2)); !errors.Is(err, ErrFailed) {
			t.Errorf("Append after the failure: %v", err)
		}
		l.Close()
		reopen(t, path, s, 0)
	})

	t.Run("log fsync, truncate fails", func(t *testing.T) {
		path, l, s := setup(t)
		l.sync = once(l.f.Sync)
		l.truncate = func(int64) error { return syscall.EIO }
		_, err := l.Append(context.Background(), pass)
		if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "failed too") {
			t.Fatalf("Append: %v", err)
		}
		t.Log(err)
		// The PASS stays in the file, whole: without the mark it verifies.
		b, _ := os.ReadFile(path)
		if sum, err := verifyBytes(b, s.Public(), 0); err != nil || sum.LastSeq != 4 {
			t.Fatalf("the file: %+v, %v", sum, err)
		}
		m := readMark(t, path)
		_, err = Verify(context.Background(), bytes.NewReader(b), s.Public(), VerifyOptions{Mark: &m})
		if ce := wantChainError(t, "verify against the mark", err, b, 4, ErrUnacknowledged); ce != nil && ce.Seq != 4 {
			t.Errorf("the record past the mark: %+v", ce)
		}
		if _, err := l.Append(context.Background(), samplePayload(2)); !errors.Is(err, ErrFailed) {
			t.Errorf("Append after the failure: %v", err)
		}
		l.Close()
		reopen(t, path, s, 1)
		if kept, _ := os.ReadFile(path + ".torn"); !bytes.Equal(kept, b[markAt(b, 3).Size:]) {
			t.Errorf("path.torn holds %q, want the PASS record", kept)
		}
	})

	t.Run("mark fsync", func(t *testing.T) {
		path, l, s := setup(t)
		l.mark.sync = once(l.mark.f.Sync)
		_, err := l.Append(context.Background(), pass)
		if !errors.Is(err, ErrFailed) || !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "off the log, which ends at seq 3 again") {
			t.Fatalf("Append with a failing fsync of the mark: %v", err)
		}
		t.Log(err)
		noPass(t, path, s)
		l.Close()
		reopen(t, path, s, 0)
	})

	t.Run("mark fsync, restore fails", func(t *testing.T) {
		path, l, s := setup(t)
		l.mark.sync = func() error { return syscall.EIO }
		writes := 0
		l.mark.writeAt = func(b []byte, off int64) error {
			if writes++; writes > 1 { // the restore
				return syscall.EIO
			}
			_, err := l.mark.f.WriteAt(b, off)
			return err
		}
		_, err := l.Append(context.Background(), pass)
		if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "failed too") {
			t.Fatalf("Append: %v", err)
		}
		t.Log(err)
		l.Close()
		// The page cache holds the mark of the PASS, and the log was cut
		// below it: refused, never opened with the PASS standing.
		if _, err := Open(path, s, Options{}); !errors.Is(err, ErrTruncated) {
			t.Errorf("Open: %v, want ErrTruncated", err)
		}
	})
}

// TestVerifyMark checks Verify against a mark: the log at its mark
// verifies; records removed from its end, torn at or below the mark, or
// an older copy, are ErrTruncated at the line where the missing record
// belongs; another record at the mark's seq is ErrReplaced; a record past
// it ErrUnacknowledged; a torn record past it ErrTorn; a mark no log has
// is an error.
func TestVerifyMark(t *testing.T) {
	s := testSigner(1)
	b := file(chain(s, 5, nil))
	starts := lineStarts(b)
	at := func(n int) *Mark { m := markAt(b, n); return &m }
	other := file(chain(s, 5, func(i int, p *Payload) { p.Detail = "other" }))
	for _, c := range []struct {
		name    string
		content []byte
		mark    *Mark
		line    int   // of the ChainError; 0: none
		want    error // nil: verifies
		records int64
	}{
		{"at the mark", b, at(5), 0, nil, 5},
		{"empty at zero", nil, &Mark{}, 0, nil, 0},
		{"last line dropped", b[:starts[4]], at(5), 5, ErrTruncated, 4},
		{"three lines dropped", b[:starts[2]], at(5), 3, ErrTruncated, 2},
		{"empty", nil, at(5), 1, ErrTruncated, 0},
		{"torn at the mark", b[:len(b)-1], at(5), 5, ErrTruncated, 4},
		{"torn below the mark", b[:starts[3]+10], at(5), 4, ErrTruncated, 3},
		{"torn past the mark", b[:len(b)-1], at(4), 5, ErrTorn, 4},
		{"one past the mark", b, at(4), 5, ErrUnacknowledged, 4},
		{"all past a zero mark", b, &Mark{}, 1, ErrUnacknowledged, 0},
		{"another log", other, at(5), 5, ErrReplaced, 4},
		{"another log, shorter", other[:starts[3]], at(3), 3, ErrReplaced, 2},
	} {
		sum, err := Verify(context.Background(), bytes.NewReader(c.content), s.Public(), VerifyOptions{Mark: c.mark})
		if c.want == nil {
			if err != nil || sum.Records != c.records {
				t.Errorf("%s: %+v, %v", c.name, sum, err)
			}
			continue
		}
		ce, ok := errors.AsType[*ChainError](err)
		starts := append(lineStarts(c.content), len(c.content)) // a missing record's line starts at the end
		switch {
		case !ok:
			t.Errorf("%s: %v, want a *ChainError", c.name, err)
		case !errors.Is(err, c.want):
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		case ce.Line != int64(c.line) || ce.Offset != int64(starts[c.line-1]):
			t.Errorf("%s: %v: line %d at offset %d, want line %d at offset %d", c.name, ce, ce.Line, ce.Offset, c.line, starts[c.line-1])
		default:
			t.Logf("%s: %v", c.name, ce)
		}
		if sum.Records != c.records {
			t.Errorf("%s: the summary covers %d records, want %d", c.name, sum.Records, c.records)
		}
	}
	for _, m := range []Mark{{Seq: 1}, {Size: 5}, {Seq: 0, Digest: [32]byte{1}}, {Seq: 3, Size: 2}} {
		if _, err := Verify(context.Background(), bytes.NewReader(b), s.Public(), VerifyOptions{Mark: &m}); err == nil || errors.Is(err, ErrTruncated) {
			t.Errorf("mark %+v: %v", m, err)
		}
	}
}

// TestReadMark checks ReadMark's answers: the mark; fs.ErrNotExist for no
// file; ErrMark for a damaged one.
func TestReadMark(t *testing.T) {
	dir := t.TempDir()
	_, b, _ := writeLog(t, dir, testSigner(1), 2)
	if m, err := ReadMark(filepath.Join(dir, "receipts.jsonl.hwm")); err != nil || m != markAt(b, 2) {
		t.Errorf("ReadMark: %+v, %v", m, err)
	}
	if _, err := ReadMark(filepath.Join(dir, "none.hwm")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no file: %v", err)
	}
	bad := filepath.Join(dir, "bad.hwm")
	os.WriteFile(bad, []byte("bbdRHW1\nnot a mark"), 0o600)
	if _, err := ReadMark(bad); !errors.Is(err, ErrMark) {
		t.Errorf("damaged: %v", err)
	}
}
