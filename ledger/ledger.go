package ledger

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bbdigest/bbdigest/hashing"
)

// State is what a Ledger knows about a digest.
type State uint8

// Ledger states. The values are stored by the bolt ledger and never
// renumbered.
const (
	StateUnknown  State = 0 // never emitted
	StateEmitted  State = 1 // emitted, not yet resolved
	StateResolved State = 2 // resolved: no further resolution is a decision
)

// String returns "unknown", "emitted" or "resolved" ("invalid" otherwise).
func (s State) String() string {
	switch s {
	case StateUnknown:
		return "unknown"
	case StateEmitted:
		return "emitted"
	case StateResolved:
		return "resolved"
	}
	return "invalid"
}

// Outcome is the decision that resolved an entry: one of the four
// outcomes of a resolution that consume an envelope (see the Resolver of
// package envelope). The zero Outcome is no outcome.
type Outcome uint8

// The outcomes a ledger records. The values are the codes the bolt ledger
// stores, and are never renumbered. Their names are those of the outcomes
// of package envelope that they record.
const (
	OutcomeAuthority Outcome = 1 // an option selected, and the action is the one it names
	OutcomeDeclined  Outcome = 2 // the question as put, answered in the negative
	OutcomeAnswer    Outcome = 3 // the answer-space hatch
	OutcomeQuestion  Outcome = 4 // the question-space hatch
)

var outcomeNames = [...]string{
	OutcomeAuthority: "authority",
	OutcomeDeclined:  "declined",
	OutcomeAnswer:    "answer",
	OutcomeQuestion:  "question",
}

// Valid reports whether o is one of OutcomeAuthority, OutcomeDeclined,
// OutcomeAnswer and OutcomeQuestion.
func (o Outcome) Valid() bool { return o != 0 && int(o) < len(outcomeNames) }

// String returns "authority", "declined", "answer" or "question", the
// names package envelope gives these outcomes; "invalid" otherwise.
func (o Outcome) String() string {
	if !o.Valid() {
		return "invalid"
	}
	return outcomeNames[o]
}

// Entry is what a Ledger holds for one digest.
type Entry struct {
	State State
	// Outcome is the outcome that resolved the envelope when State is
	// StateResolved; zero (no outcome) otherwise.
	Outcome Outcome
	// ResolvedAt is when the ledger recorded the resolution, without a
	// monotonic clock reading; the zero Time unless State is StateResolved.
	ResolvedAt time.Time
	// EmittedAt is when the ledger recorded the envelope's emission (the
	// first Emit of d), on the ledger's wall clock, without a monotonic
	// clock reading. Emitting again, and resolving, leave it as it is. It
	// is the zero Time when State is StateUnknown, and for an entry of a
	// ledger file written by a bbdigest that did not record it (before
	// version 2 of the bolt ledger's entries): such an entry's age is
	// unknown, and package gate refuses to bound an authority by it.
	EmittedAt time.Time
}

// Errors of a Ledger, for errors.Is. A ledger of this module never
// returns one alone: it is the cause (Err) of an *Error, whose message
// begins with the package's name, so theirs do not.
var (
	// ErrAlreadyResolved is returned by Ledger.Emit for a digest that is
	// already resolved. Two byte-identical envelopes share a digest
	// (draft-morrison-binding-moment-envelope-04 §12.5): an agent that
	// asks the same question again must make the new envelope differ, for
	// example in its synopsis or findings, or its resolution could not be
	// told apart from the first one's.
	ErrAlreadyResolved = errors.New("envelope already resolved")
	// ErrCorrupt: the ledger's storage is damaged, was rolled back, or was
	// written in a format this version refuses. The ledger cannot tell
	// which envelopes are resolved, so it refuses to answer. A ledger that
	// finds corruption after opening refuses every later call.
	ErrCorrupt = errors.New("corrupt")
	// ErrLocked: another process (or another ledger in this one) holds the
	// ledger's storage, and did not release it in time.
	ErrLocked = errors.New("locked")
	// ErrClosed: the ledger was closed.
	ErrClosed = errors.New("closed")
)

// Error reports a failure of a ledger: every error of Memory and of
// package ledger/bolt's Ledger is one. Op is what was being done to the
// ledger's file ("open", "create", "close"), or "" for a call on a ledger
// that is open; Path is the ledger's file, or "" for a ledger without one;
// Err is the cause, which wraps ErrAlreadyResolved, ErrCorrupt, ErrLocked,
// ErrClosed or an error of the file system (fs.ErrExist,
// fs.ErrNotExist, ...) where one applies, for errors.Is.
type Error struct {
	Op   string
	Path string
	Err  error
}

// Error returns "ledger: " and the Detail, such as
// "ledger: open ledger agent.db: locked by another process (waited 10s)".
func (e *Error) Error() string { return "ledger: " + e.Detail() }

// Detail returns the message without the package's name: "OP ledger PATH:
// CAUSE", such as "create ledger agent.db: file already exists"; "ledger
// PATH: CAUSE" when Op is ""; "OP: CAUSE", or the cause alone (such as
// "envelope already resolved: sha256:..."), when Path is "". The bbdigest
// command prints it after the name of its command.
func (e *Error) Detail() string {
	cause := "<nil>"
	if e.Err != nil {
		cause = e.Err.Error()
	}
	switch {
	case e.Path != "" && e.Op != "":
		return e.Op + " ledger " + e.Path + ": " + cause
	case e.Path != "":
		return "ledger " + e.Path + ": " + cause
	case e.Op != "":
		return e.Op + ": " + cause
	}
	return cause
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// A Ledger records the envelopes an agent has emitted, and when, which of
// them are resolved, and by which outcome and when, each named by its
// digest.
// Implementations must be safe for concurrent use, and Resolve must be an
// atomic test-and-set.
type Ledger interface {
	// Emit records that the envelope with digest d was emitted, and when
	// (Entry.EmittedAt). Emitting an emitted envelope again is a no-op (its
	// emission time stays the first one); emitting a resolved one fails
	// with an error wrapping ErrAlreadyResolved and leaves it resolved.
	Emit(d hashing.Digest) error
	// Resolve marks the envelope with digest d resolved by outcome o,
	// which must be valid (Outcome.Valid; any other is an error, and
	// changes nothing). It reports true exactly once for an emitted
	// envelope, and false when d is unknown or already resolved; a false
	// result changes nothing. The ledger records o and the time, and keeps
	// the emission time.
	Resolve(d hashing.Digest, o Outcome) (ok bool, err error)
	// Lookup reports what the ledger holds for d: the zero Entry
	// (StateUnknown) if d was never emitted.
	Lookup(d hashing.Digest) (Entry, error)
}

// Memory is a Ledger held in memory, for tests and for hosts whose
// envelopes do not outlive the process. It is an Approvals store too. The zero value is not usable; call
// NewMemory. It is safe for concurrent use. It has no Close.
type Memory struct {
	mu       sync.Mutex
	entries  map[hashing.Digest]Entry
	requests map[hashing.Digest]*Request       // approval requests by envelope digest
	open     map[hashing.Digest]hashing.Digest // the open request's envelope digest by act digest
}

// NewMemory returns an empty Memory ledger.
func NewMemory() *Memory {
	return &Memory{entries: make(map[hashing.Digest]Entry)}
}

// Emit implements Ledger.
func (l *Memory) Emit(d hashing.Digest) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch l.entries[d].State {
	case StateResolved:
		return &Error{Err: fmt.Errorf("%w: %s", ErrAlreadyResolved, d)}
	case StateUnknown:
		l.entries[d] = Entry{State: StateEmitted, EmittedAt: time.Now().Round(0)}
	}
	return nil
}

// Resolve implements Ledger.
func (l *Memory) Resolve(d hashing.Digest, o Outcome) (bool, error) {
	if !o.Valid() {
		return false, &Error{Err: fmt.Errorf("outcome %v does not resolve an envelope", o)}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entries[d]
	if e.State != StateEmitted {
		return false, nil
	}
	e.State, e.Outcome, e.ResolvedAt = StateResolved, o, time.Now().Round(0)
	l.entries[d] = e
	return true, nil
}

// Lookup implements Ledger.
func (l *Memory) Lookup(d hashing.Digest) (Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.entries[d], nil
}
