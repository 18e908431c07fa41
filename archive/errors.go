package archive

import (
	"errors"
	"io/fs"

	"github.com/bbdigest/bbdigest/internal/diag"
)

// FileError is a failure to open or read a file of a run: an input, named
// as given (a failure to decompress it too), OutFile or its sidecar; or,
// for ReadSummary and ParseSummary, a summary that cannot be read or is
// not one that Rehash or Verify writes.
type FileError struct {
	Name string // the input's Name, or the file's path
	Err  error  // what failed: an *fs.PathError, a decompressor's error, ...
}

// Error returns "archive: NAME: MESSAGE", NAME escaped as a diagnostic's
// FILE and MESSAGE the cause without the path an *fs.PathError repeats.
func (e *FileError) Error() string {
	return "archive: " + diag.FileField(e.Name) + ": " + diag.IOMessage(e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// WriteError is a failure to write the result lines (Options.Output, or
// OutFile and its sidecar).
type WriteError struct{ Err error }

// Error returns "archive: " and Err's message, which says "write" first
// unless Err is an *fs.PathError, which names the operation and the file.
func (e *WriteError) Error() string {
	if _, ok := errors.AsType[*fs.PathError](e.Err); ok {
		return "archive: " + e.Err.Error()
	}
	return "archive: write: " + e.Err.Error()
}

func (e *WriteError) Unwrap() error { return e.Err }

// ResumeError is a refusal of OutFile by Options.Resume: it is not an
// output of this run (another command, profile, bound, shard or inputs,
// or a kept line that is not the line this run writes, or an input that
// is not the one the sidecar records), or its sidecar is not one that a
// run wrote. OutFile and its sidecar are left as they are, and the run
// returns no summary.
type ResumeError struct {
	File   string // OutFile
	Reason string // why, as "not the output of this run: …"
}

func (e *ResumeError) Error() string {
	return "archive: " + diag.FileField(e.File) + ": " + e.Reason
}

// InterruptedError is the error of a run whose context was done before
// it answered every line. With OutFile, the result lines answered are
// written and synced, and so is the sidecar of the last checkpoint, which
// records Results result lines: a run with Resume goes on from there.
type InterruptedError struct {
	Err     error // the context's error
	Results int64 // with OutFile, the result lines its sidecar records
}

func (e *InterruptedError) Error() string { return "archive: interrupted: " + e.Err.Error() }

func (e *InterruptedError) Unwrap() error { return e.Err }

// CoverageError is Join's answer to summaries that are not those of the
// shards of one run covering its input exactly once, in order, all
// complete: every problem found, one a line, each naming the summary it
// is about as ParseSummary was given it.
type CoverageError struct{ Problems []string }

func (e *CoverageError) Error() string {
	msg := "archive: the summaries do not cover the input"
	if len(e.Problems) > 0 {
		msg += ": " + e.Problems[0]
	}
	if len(e.Problems) > 1 {
		msg += " (and " + diag.Plural(len(e.Problems)-1, "more problem", "more problems") + ")"
	}
	return msg
}
