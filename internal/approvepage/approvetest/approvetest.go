// Package approvetest holds an in-memory approvepage.Source for the tests
// of the approval page (the handler's in package approvepage, the browser's
// in the browsertest module).
package approvetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/approvepage"
)

// Source is an approvepage.Source in memory: Decide records the decision
// and removes the envelope from the pending list. Its zero value is empty
// and ready; it is safe for concurrent use.
type Source struct {
	mu        sync.Mutex
	items     []approvepage.Item
	decisions []approvepage.Decision
	// DecideErr, when set, is returned by Decide, which then records nothing.
	DecideErr error
}

// Add appends it to the pending list.
func (s *Source) Add(it approvepage.Item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, it)
}

// Pending returns a copy of the pending list.
func (s *Source) Pending(ctx context.Context) ([]approvepage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]approvepage.Item, len(s.items))
	for i, it := range s.items {
		it.Envelope = slices.Clone(it.Envelope)
		out[i] = it
	}
	return out, nil
}

// Decide records d and removes the first item listed under d.Envelope. It
// fails if no item is listed so: the handler must not ask for it.
func (s *Source) Decide(ctx context.Context, d approvepage.Decision) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.DecideErr != nil {
		return s.DecideErr
	}
	i := slices.IndexFunc(s.items, func(it approvepage.Item) bool { return it.EnvelopeDigest == d.Envelope })
	if i < 0 {
		return errors.New("approvetest: Decide for an envelope that is not pending")
	}
	s.items = slices.Delete(s.items, i, i+1)
	s.decisions = append(s.decisions, d)
	return nil
}

// Decisions returns the decisions recorded so far, in order.
func (s *Source) Decisions() []approvepage.Decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.decisions)
}

// NewItem returns the item of the envelope text env for tool, listed under
// env's true digest (envelope.Digest), with an act digest derived from tool
// and an emitted time of 2026-10-13 12:00 UTC.
func NewItem(tool string, env []byte) (approvepage.Item, error) {
	d, err := envelope.Digest(env)
	if err != nil {
		return approvepage.Item{}, err
	}
	return approvepage.Item{
		EnvelopeDigest: d,
		Tool:           tool,
		Server:         "test-server",
		ActDigest:      hashing.Sum([]byte("act of " + tool)),
		Emitted:        time.Date(2026, 10, 13, 12, 0, 0, 0, time.UTC),
		Envelope:       slices.Clone(env),
	}, nil
}

// Envelope returns the JSON text of a well-formed envelope whose synopsis
// is synopsis and whose first (recommended) option's label is label, with
// two options and both hatches.
func Envelope(synopsis, label string) ([]byte, error) {
	b := envelope.Builder{
		Synopsis:        synopsis,
		Findings:        []string{"The call moves money.", "The amount is 120 EUR."},
		Recommendations: []string{"Allow the call once."},
		Offer:           "Ask for detail on any item.",
		Stem:            "Should this call run?",
		Hatches:         envelope.Hatches{FreeText: true, Dialogue: true},
	}
	b.AddOption(label, "The principal asked for this transfer.", []byte(`{"tool":"pay","amount":120}`))
	b.AddOption("Allow it with a lower amount", "Limits the exposure.", []byte(`{"tool":"pay","amount":60}`))
	e, err := b.Build()
	if err != nil {
		return nil, err
	}
	return e.MarshalJSON()
}
