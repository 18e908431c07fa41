package archive

// The output of Rehash and Verify: Options.Output, or OutFile (FILE
// below, the bbdigest command's --out FILE); with Resume (--resume), FILE
// is continued from the last point its run recorded.
//
// A run with OutFile binds FILE to itself with a sidecar, FILE.resume
// (sidecar below): the command and the flags that change the answers,
// the inputs, and a checkpoint: the number of result lines answered, the
// SHA-256 of the input bytes read up to the end of the lines they answer
// (of each input before, whole, and of the input the checkpoint is in,
// up to there), and the length of FILE at that point and the SHA-256 of
// its bytes up to there. The run takes a checkpoint at the start and end
// of every input and wherever a read of the input ends at a line
// boundary; at most every syncEvery (syncEveryBusy when the run is not
// waiting for input), it flushes FILE, fsyncs it and then writes the
// sidecar of the last checkpoint FILE holds (write, fsync, rename). So
// whenever the run is killed, the sidecar describes a prefix of FILE.
//
// --resume refuses FILE, leaving it and the sidecar as they are, unless
// the sidecar is there (or FILE is missing or empty: the run starts),
// names the same command, --profile, --max-record, --shard and inputs,
// FILE is at least its length and its prefix of that length hashes to
// the SHA-256 recorded and holds the number of lines recorded, the input
// has the lines that prefix answers and its bytes up to there hash to
// the SHA-256 recorded, and each line of the prefix is, byte for byte,
// the result line this run writes for its line of the input. The lines
// kept are not trusted: skipAnswered computes them again from the input,
// with batch on every worker as the run answers the rest, so a --resume
// costs the canonicalization and hashing of the lines it skips, as much
// CPU as a run over them, and no output write. Then FILE is cut at that
// length and the run goes on from the next line: the result lines FILE
// held past the checkpoint are computed again. The finished FILE is byte
// for byte the output of a run never stopped, and the summary counts the
// outcomes of the lines kept (TestArchiveResumeCuts, TestArchiveResumeKill;
// TestArchiveResumeForged: a kept line forged, with a sidecar recomputed
// to match, is refused).
//
// The sidecar is not authenticated: whoever can write FILE can write
// FILE.resume to match it. As --resume keeps only lines it has computed
// again, a forged FILE or sidecar can make it refuse, or compute more
// (a checkpoint earlier than the real one), but not finish with a line
// that a run over the inputs, as this run reads them, would not write.
// What it does not protect: the inputs themselves (a sidecar rewritten
// for an input changed since the run was killed resumes, and FILE then
// answers the input as it is now, whose SHA-256 the summary's
// end_sha256 gives), and FILE once a run has ended (compare it with the
// SHA-256 of the summary's "output").
//
// The sidecar is kept when the run completes: --resume of a completed
// FILE checks it and its input again, writes nothing more and prints the
// same summary.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/boundedread"
	"github.com/bbdigest/bbdigest/internal/diag"
)

// resumeSuffix names the sidecar of FILE: FILE.resume.
const resumeSuffix = ".resume"

// sidecarKind is FILE.resume, which holds a name and a digest for each
// input; the run writes it itself, always as a regular file.
var sidecarKind = boundedread.Kind{What: "a " + resumeSuffix + " file", Limit: 64 << 20, Regular: true}

// syncEvery is how long the run waits at least between two sidecars when
// it waits for input, and syncEveryBusy when it does not.
const (
	syncEvery     = 10 * time.Millisecond
	syncEveryBusy = time.Second
)

// sidecar is FILE.resume, as written and read back.
type sidecar struct {
	Command   string   `json:"command"`
	Profile   string   `json:"profile"`
	MaxRecord int64    `json:"max_record"`
	Shard     string   `json:"shard"` // "I/N", or "" without sharding
	Inputs    []string `json:"inputs"`
	// The checkpoint: Results result lines answered, which end in the
	// input of index Input. InputsSHA256 holds the SHA-256 of the bytes
	// read of each input up to there: inputs 0..Input-1 whole, and input
	// Input up to the end of the last line answered; it is empty when
	// Results is 0 (nothing was answered, nothing to check).
	Results      int64            `json:"results"`
	Input        int              `json:"input"`
	InputsSHA256 []hashing.Digest `json:"inputs_sha256"`
	OutputBytes  int64            `json:"output_bytes"`
	OutputSHA256 hashing.Digest   `json:"output_sha256"`
}

// checkpoint is a point of the run where every line of the input read so
// far is answered, once it is: results lines, in the input of index
// input, whose bytes read up to there hash to inputSum. outBytes and
// outSum are set when the result lines are written (stamp).
type checkpoint struct {
	results  int64
	input    int
	inputSum hashing.Digest
	outBytes int64
	outSum   hashing.Digest
}

// resumeState is the binding of FILE to the run: the sidecar read back by
// Resume, and the checkpoints of the run.
type resumeState struct {
	side      *sidecar      // read back by --resume; nil: the run started
	back      *bufio.Reader // FILE's kept lines, read as the input is skipped
	kept      int64         // bytes of FILE kept
	lines     int64         // result lines kept
	remaining int64         // result lines kept and not yet matched to the input

	mu    sync.Mutex   // guards queue: checkpoints come from batch's reader
	queue []checkpoint // taken, their lines not yet all written

	ready    checkpoint       // the last checkpoint whose lines are written
	hasReady bool             //
	synced   checkpoint       // the checkpoint of the sidecar on disk
	lastSync time.Time        // when it was written
	doneSums []hashing.Digest // the SHA-256 of each input done, whole
	outH     hash.Hash        // the result lines written so far, kept lines first
	outN     int64            // their bytes
}

// maxResultLine bounds a result line read back by --resume: a result
// line is short (a file name, a number, a digest or a class and a
// message), so a longer line is not one.
const maxResultLine = 64 << 10

// openOut opens OutFile, checks it with Resume against its sidecar, and
// directs the output there.
func (a *run) openOut(resume bool) error {
	path := a.outPath
	for _, in := range a.inputs {
		if in.path != "" && (same(in.path, path) || same(in.path, path+resumeSuffix)) {
			return fmt.Errorf("%w: %s", ErrOutFileIsInput, quote(path))
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return &FileError{Name: path, Err: err}
	}
	a.outFile = f
	a.outH = newOutputHash(f, true)
	a.resume.outH = hashing.New()
	if resume {
		if err := a.readBack(f); err != nil {
			if e, ok := errors.AsType[notOutputError](err); ok {
				a.refused = true
				return &ResumeError{File: path, Reason: e.msg}
			}
			return &FileError{Name: path, Err: err}
		}
	}
	if a.resume.side == nil || a.resume.side.Results == 0 {
		// Nothing to check against the input: start (over), recording
		// first that nothing is answered.
		a.resume.side = nil
		a.resume.hasReady = true
		a.resume.ready = checkpoint{outSum: emptySHA256}
		if err := a.writeSidecar(a.resume.ready); err != nil {
			return &FileError{Name: path + resumeSuffix, Err: err}
		}
		return a.startOut()
	}
	return nil
}

// startOut cuts FILE after the lines kept, where the run goes on writing,
// once the run has found them to be its own (a FILE that is not an output
// of the run is left as it is).
func (a *run) startOut() error {
	if err := a.outFile.Truncate(a.resume.kept); err != nil {
		return a.inputFailed(a.outPath, err)
	}
	if _, err := a.outFile.Seek(a.resume.kept, io.SeekStart); err != nil {
		return a.inputFailed(a.outPath, err)
	}
	a.resume.back = nil
	return nil
}

// same reports whether the input file at name is the file at path.
func same(name, path string) bool {
	a, err1 := os.Stat(name)
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// notOutputError is a FILE that Resume cannot continue (a *ResumeError
// once reported).
type notOutputError struct{ msg string }

func (e notOutputError) Error() string { return e.msg }

// sidecarOf returns the sidecar of the run at the checkpoint cp.
func (a *run) sidecarOf(cp checkpoint) *sidecar {
	s := &sidecar{Command: a.sum.Command, Profile: a.sum.Profile, MaxRecord: a.sum.MaxRecord,
		Inputs: a.names(), Results: cp.results, Input: cp.input, InputsSHA256: []hashing.Digest{},
		OutputBytes: cp.outBytes, OutputSHA256: cp.outSum, Shard: a.shard.String()}
	if cp.results > 0 {
		s.InputsSHA256 = append(append(s.InputsSHA256, a.resume.doneSums[:cp.input]...), cp.inputSum)
	}
	return s
}

// writeSidecar writes FILE.resume for the checkpoint cp, whose lines
// FILE holds, fsynced.
func (a *run) writeSidecar(cp checkpoint) error {
	b, err := json.Marshal(a.sidecarOf(cp))
	if err != nil {
		return err
	}
	return writeFileAtomic(a.outPath+resumeSuffix, append(b, '\n'))
}

// readBack reads FILE.resume and checks it and FILE for --resume: the
// same command, flags and inputs, FILE at least as long as recorded and
// its prefix hashing to the SHA-256 recorded, holding the number of
// result lines recorded. The lines themselves are checked as the input is
// skipped, against the lines computed again (skipAnswered). A missing sidecar is taken for a run not
// started when FILE is empty.
func (a *run) readBack(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	b, _, err := boundedread.ReadFile(a.outPath+resumeSuffix, sidecarKind)
	if errors.Is(err, os.ErrNotExist) {
		if fi.Size() == 0 {
			return nil
		}
		return notOutputError{"not the output of this run: it has no " + resumeSuffix + " file, which --out writes beside it to resume it"}
	}
	if _, ok := errors.AsType[*fs.PathError](err); err != nil && !ok {
		// Past its bound, or not a regular file: not a file archive wrote.
		return notOutputError{diag.FileField(a.outPath+resumeSuffix) + ": " + err.Error()}
	}
	if err != nil {
		return err
	}
	side := new(sidecar)
	if err := strictJSON(b, side); err != nil {
		return notOutputError{diag.FileField(a.outPath+resumeSuffix) + ": not a " + resumeSuffix + " file of archive: " + err.Error()}
	}
	want := a.sidecarOf(checkpoint{})
	switch {
	case side.Command != want.Command || side.Profile != want.Profile || side.MaxRecord != want.MaxRecord || side.Shard != want.Shard:
		return notOutputError{fmt.Sprintf("not the output of this run: it is the output of archive %s --profile %s --max-record %d%s", side.Command, side.Profile, side.MaxRecord, shardText(side.Shard))}
	case !sameNames(side.Inputs, a.names()):
		return notOutputError{fmt.Sprintf("not the output of this run: it answers the inputs %s", quoteAll(side.Inputs))}
	case side.Results < 0 || side.OutputBytes < 0 || side.Input < 0 || side.Input >= len(a.inputs) ||
		side.Results == 0 && (side.OutputBytes != 0 || len(side.InputsSHA256) != 0) ||
		side.Results > 0 && len(side.InputsSHA256) != side.Input+1:
		return notOutputError{diag.FileField(a.outPath+resumeSuffix) + ": not a " + resumeSuffix + " file of archive: its checkpoint is inconsistent"}
	case fi.Size() < side.OutputBytes:
		return notOutputError{fmt.Sprintf("not the output of this run: it has %s, fewer than the %d its %s file records", diag.Plural(fi.Size(), "byte", "bytes"), side.OutputBytes, resumeSuffix)}
	}
	// FILE's prefix: its SHA-256, and its lines.
	a.outH.h.Reset()
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, side.OutputBytes), maxResultLine)
	var lines int64
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			a.outH.h.Write(line)
			a.resume.outH.Write(line)
		}
		if err == bufio.ErrBufferFull {
			return notOutputError{fmt.Sprintf("line %d is longer than a result line", lines+1)}
		}
		if err == io.EOF {
			if len(line) > 0 {
				return notOutputError{fmt.Sprintf("not the output of this run: its %s file records a length inside line %d", resumeSuffix, lines+1)}
			}
			break
		}
		if err != nil {
			return err
		}
		lines++
	}
	var sum hashing.Digest
	copy(sum[:], a.outH.h.Sum(nil))
	if sum != side.OutputSHA256 {
		return notOutputError{fmt.Sprintf("not the output of this run: the SHA-256 of its first %s is %s, where its %s file records %s", diag.Plural(side.OutputBytes, "byte", "bytes"), sum, resumeSuffix, side.OutputSHA256)}
	}
	if lines != side.Results {
		return notOutputError{fmt.Sprintf("not the output of this run: %s in its first %s, where its %s file records %d", diag.Plural(lines, "line", "lines"), diag.Plural(side.OutputBytes, "byte", "bytes"), resumeSuffix, side.Results)}
	}
	a.outH.n = side.OutputBytes
	a.resume.outN = side.OutputBytes
	a.resume.side = side
	a.resume.kept, a.resume.lines, a.resume.remaining = side.OutputBytes, side.Results, side.Results
	a.resume.back = bufio.NewReaderSize(io.NewSectionReader(f, 0, side.OutputBytes), maxResultLine)
	return nil
}

// strictJSON decodes b into v, a struct whose members are all required:
// b canonicalized must equal v marshaled and canonicalized, so no member
// of b is missing, unknown, repeated, spelled in another case or of
// another type.
func strictJSON(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	got, err := canon.Canonicalize(b, canon.Strict)
	if err != nil {
		return err
	}
	back, err := json.Marshal(v)
	if err == nil {
		back, err = canon.Canonicalize(back, canon.Strict)
	}
	if err != nil || !bytes.Equal(got, back) {
		return errors.New("a member is missing, repeated, unknown, spelled otherwise or of another type")
	}
	return nil
}

func shardText(s string) string {
	if s == "" {
		return ""
	}
	return " --shard " + s
}

// sameNames reports whether the inputs recorded are those given (as
// JSON keeps them: a byte that is not UTF-8 is U+FFFD).
func sameNames(recorded, given []string) bool {
	if len(recorded) != len(given) {
		return false
	}
	for i := range given {
		if recorded[i] != strings.ToValidUTF8(given[i], "\ufffd") {
			return false
		}
	}
	return true
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, " ")
}

// checkKept compares the next kept line of FILE with the result line
// this run writes for res, computed again from the input, and counts its
// outcome: a kept line is only ever what the run writes, byte for byte.
func (a *run) checkKept(res batch.Result) error {
	r, err := a.resultOf(res)
	if err != nil {
		return err
	}
	want := a.appendResult(a.line[:0], &r)
	a.line = want
	kept, err := a.resume.back.ReadSlice('\n')
	if err != nil {
		// readBack counted the kept lines: never
		return notOutputError{fmt.Sprintf("its result lines end before the %d its %s file records", a.resume.lines, resumeSuffix)}
	}
	if !bytes.Equal(kept, want) {
		n := a.resume.lines - a.resume.remaining + 1
		return notOutputError{fmt.Sprintf("its line %d is not the result line this run writes there, %s", n, strings.TrimSuffix(string(want), "\n"))}
	}
	a.count(&r)
	a.prog.records.Add(1)
	a.resume.remaining--
	return nil
}

// skipAnswered goes past the lines of the input of index j that the
// output kept already answers, the input being positioned at the start of
// its lines (or of the shard's range). It computes their result lines
// again, with the run's own pipeline (batch, on every worker, as the run
// answers the rest), and checks that each kept line is, byte for byte,
// the line computed (checkKept), that the input has the lines recorded,
// and that the bytes read hash to the SHA-256 recorded. Where both the
// input and a kept line are wrong, the input is the one reported. Once
// the input of the checkpoint is positioned, FILE is cut after the kept
// lines (startOut). A refusal (a *ResumeError) leaves FILE and
// FILE.resume as they are.
func (a *run) skipAnswered(s *lineStream, in *InputSummary, hi int64, j int) error {
	side := a.resume.side
	if side == nil || j > side.Input || a.resume.back == nil {
		return nil
	}
	// Every line of an input before the checkpoint's, and in that input
	// the lines kept still to check.
	limit := int64(-1)
	if j == side.Input {
		limit = a.resume.remaining
	}
	lines0, checked0 := s.lines(), a.resume.remaining
	r := s.linesReader(limit, hi)
	opts := a.opts
	opts.Idle = nil // nothing is written
	opts.FirstLine = in.FirstLine
	var kept error // the first kept line that is not the run's
	_, err := batch.Stream(a.ctx, r, opts, func(res batch.Result) error {
		if a.resume.remaining == 0 {
			return notOutputError{fmt.Sprintf("its %s file records %s, and %s has more lines before them", resumeSuffix, diag.Plural(a.resume.lines, "result line", "result lines"), quote(in.Name))}
		}
		return a.checkKept(res)
	})
	if e, ok := errors.AsType[notOutputError](err); ok {
		// Read what is left of the lines kept, to report an input that
		// is not the one recorded as that.
		kept = e
		_, err = io.Copy(io.Discard, r)
	}
	if err != nil {
		return a.inputFailed(in.Name, err)
	}
	in.Lines += checked0 - a.resume.remaining
	if read := s.lines() - lines0; j == side.Input && read < checked0 {
		return a.notThisRun(fmt.Sprintf("it holds %s, and the input has %s", diag.Plural(a.resume.lines, "result line", "result lines"), diag.Plural(a.resume.lines-checked0+read, "line", "lines")))
	}
	if got := s.sum(); got != side.InputsSHA256[j] {
		return a.notThisRun(fmt.Sprintf("the SHA-256 of the first %s read of %s is %s, where its %s file records %s: the input is not the one FILE answers", diag.Plural(s.pos, "byte", "bytes"), quote(in.Name), got, resumeSuffix, side.InputsSHA256[j]))
	}
	if kept != nil {
		return a.notThisRun(kept.Error())
	}
	if j < side.Input {
		return nil
	}
	return a.startOut()
}

// notThisRun returns the *ResumeError of a FILE that is not an output of
// this run. The run then returns no summary: it did nothing.
func (a *run) notThisRun(why string) error {
	a.refused = true
	return &ResumeError{File: a.outPath, Reason: "not the output of this run: " + why}
}

// names returns the names of the inputs, as the sidecar records them.
func (a *run) names() []string {
	names := make([]string, len(a.inputs))
	for i, in := range a.inputs {
		names[i] = in.Name
	}
	return names
}

// push records a checkpoint taken (on any goroutine), and returns it.
func (a *run) push(cp checkpoint) {
	a.resume.mu.Lock()
	a.resume.queue = append(a.resume.queue, cp)
	a.resume.mu.Unlock()
}

// stamp marks ready the checkpoints whose lines are all written (on the
// calling goroutine of the run, after each result line). It reports
// whether one was.
func (a *run) stamp() bool {
	r := a.sum.Records
	a.resume.mu.Lock()
	q := a.resume.queue
	i, stamped := 0, false
	for ; i < len(q) && q[i].results <= r; i++ {
		if q[i].results == r {
			cp := q[i]
			cp.outBytes = a.resume.outN
			copy(cp.outSum[:], a.resume.outH.Sum(nil))
			a.resume.ready, a.resume.hasReady, stamped = cp, true, true
		}
	}
	if i > 0 {
		a.resume.queue = append(q[:0], q[i:]...)
	}
	a.resume.mu.Unlock()
	return stamped
}

// syncOut, with OutFile, writes the sidecar of the last checkpoint
// whose lines are written, if it is not on disk yet and the last sidecar
// is older than every: it flushes FILE and fsyncs it first, so that the
// sidecar never records more than FILE holds.
func (a *run) syncOut(every time.Duration) error {
	rs := &a.resume
	if a.outFile == nil || a.refused || !rs.hasReady || rs.ready == rs.synced || time.Since(rs.lastSync) < every {
		return nil
	}
	if err := a.out.Flush(); err != nil {
		return err
	}
	if err := a.outFile.Sync(); err != nil {
		return err
	}
	if err := a.writeSidecar(rs.ready); err != nil {
		return fmt.Errorf("%s: %s", a.outPath+resumeSuffix, diag.IOMessage(err))
	}
	rs.synced, rs.lastSync = rs.ready, time.Now()
	return nil
}
