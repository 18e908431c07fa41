package main

// The output of "archive rehash|verify": stdout, or --out FILE; with
// --resume, FILE is continued after its last complete result line.
//
// A run killed part-way leaves in FILE a prefix of its output: the result
// lines are written in input order, the last possibly cut short. --resume
// keeps FILE's complete lines, recounts their outcomes for the summary and
// hashes them for its SHA-256, cuts the rest, and skips as many lines of
// the input before answering the others; so the finished FILE is
// byte-identical to the output of a run that was never interrupted. It
// refuses a FILE whose last line does not answer the line of the input it
// would have to (another input, or other flags): that FILE is not the
// output of this run.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// resumeState is what --resume found in FILE.
type resumeState struct {
	kept      int64       // bytes of the complete result lines
	lines     int64       // complete result lines kept
	last      resultFacts // the last of them
	remaining int64       // lines of the inputs still to skip
}

// resultFacts is what a result line says of itself.
type resultFacts struct {
	File    *string `json:"file"`
	Line    *int64  `json:"line"`
	OK      *bool   `json:"ok"`
	Digest  string  `json:"digest"`
	Claimed string  `json:"claimed"`
	Error   *struct {
		Class string `json:"class"`
	} `json:"error"`
}

// maxResultLine bounds a result line read back by --resume: a result
// line is short (a file name, a number, a digest or a class and a
// message), so a longer line is not one.
const maxResultLine = 64 << 10

// openOut opens --out FILE, continuing it with --resume, and directs the
// output there. It returns -1, or the exit code of a failure it reported.
func (a *archiveRun) openOut(path string, resume bool) int {
	c := a.c
	for _, name := range a.inputs {
		if same(name, path) {
			return c.usageError(a.fsName, "--out "+quote(path)+" is also an input")
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		c.ioFailure(path, err)
		return exitUsage
	}
	a.outFile = f
	a.outH = newOutputHash(f)
	if resume {
		if a.resume.kept, err = a.readBack(f); err != nil {
			if _, ok := errors.AsType[notOutputError](err); ok {
				c.errorf("%s: %v", fileField(path), err)
				c.hintf("--resume continues an output of the same command, flags and inputs; remove the file to start over")
			} else {
				c.ioFailure(path, err)
			}
			return exitUsage
		}
	}
	a.resume.remaining = a.resume.lines
	if a.resume.lines == 0 {
		return a.startOut()
	}
	return -1
}

// startOut cuts --out FILE after the lines kept, where the run goes on
// writing, once the run has found them to be its own (a FILE that is not
// an output of the run is left as it is). It returns -1, or the exit code
// of a failure it reported.
func (a *archiveRun) startOut() int {
	if err := a.outFile.Truncate(a.resume.kept); err != nil {
		return a.ioFail(a.outPath, err)
	}
	if _, err := a.outFile.Seek(a.resume.kept, io.SeekStart); err != nil {
		return a.ioFail(a.outPath, err)
	}
	return -1
}

// same reports whether the input called name is the file at path.
func same(name, path string) bool {
	if name == "-" {
		return false
	}
	a, err1 := os.Stat(name)
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// notOutputError is a FILE that --resume cannot continue.
type notOutputError struct{ msg string }

func (e notOutputError) Error() string { return e.msg }

// readBack reads the result lines of f for --resume: it recounts their
// outcomes, hashes them into the output's SHA-256, and returns the length
// of the complete lines, which are kept.
func (a *archiveRun) readBack(f *os.File) (int64, error) {
	br := bufio.NewReaderSize(f, maxResultLine)
	var kept int64
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			return 0, notOutputError{fmt.Sprintf("line %d is longer than a result line", a.resume.lines+1)}
		case err == io.EOF:
			return kept, nil // a last line cut short, if any, is not kept
		case err != nil:
			return 0, err
		}
		if err := a.recount(line); err != nil {
			return 0, notOutputError{fmt.Sprintf("line %d: %v", a.resume.lines+1, err)}
		}
		a.outH.h.Write(line)
		a.outH.n += int64(len(line))
		kept += int64(len(line))
		a.resume.lines++
	}
}

// recount counts the outcome of one result line read back.
func (a *archiveRun) recount(line []byte) error {
	var r resultFacts
	if err := json.Unmarshal(line, &r); err != nil {
		return errors.New("not a result line of archive")
	}
	switch {
	case r.Line == nil || *r.Line < 1:
		return errors.New(`no "line" number`)
	case a.verify != (r.OK != nil):
		return errors.New("not a result line of archive " + a.sum.command)
	case a.multi != (r.File != nil):
		return errors.New(`"file" is there with one input, or missing with several`)
	}
	switch {
	case r.Error != nil:
		a.sum.fail(r.Error.Class)
	case r.OK != nil && !*r.OK:
		a.sum.fail(classMismatch)
	default:
		a.sum.accept()
	}
	a.resume.last = r
	return nil
}

// skipAnswered skips, in the input being positioned, the lines that the
// output read back already answers, up to the line boundary at or after
// hi. It returns -1, or the exit code of a failure it reported.
func (a *archiveRun) skipAnswered(s *lineStream, in *inputSummary, hi int64) int {
	if a.resume.remaining == 0 {
		return -1
	}
	n, err := s.skipLines(a.resume.remaining, hi)
	if err != nil {
		return a.ioFail(in.name, err)
	}
	a.resume.remaining -= n
	in.lines += n
	if a.resume.remaining > 0 {
		return -1 // the next input goes on
	}
	// The last line read back must answer the line skipped last.
	last, want := a.resume.last, in.firstLine+in.lines-1
	if n == 0 || *last.Line != want || a.multi && *last.File != strings.ToValidUTF8(in.name, "\ufffd") {
		got := "line " + strconv.FormatInt(*last.Line, 10)
		if a.multi {
			got = quote(*last.File) + " " + got
		}
		return a.notThisRun(fmt.Sprintf("its last result line answers %s, where this run has line %d of %s", got, want, quote(in.name)))
	}
	return a.startOut()
}

// notThisRun reports that --out FILE is not an output of this run. The
// run then writes no summary: it did nothing.
func (a *archiveRun) notThisRun(why string) int {
	a.prog.end()
	a.refused = true
	a.c.errorf("%s: not the output of this run: %s", fileField(a.outPath), why)
	a.c.hintf("--resume continues an output of the same command, flags and inputs; remove the file to start over")
	return exitUsage
}
