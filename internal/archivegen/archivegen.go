// Package archivegen generates realistic audit archives in JSON Lines, of
// any size and deterministic for a seed, for the tests and benchmarks of
// batch processing and for "bbdigest archive gen".
//
// The records are those an agent host logs: binding-moment envelopes of
// the shape of draft-morrison-binding-moment-envelope-04 §6.4, with varied
// text (accents, other scripts, emoji, characters that need escapes) and
// 2 to 4 options; tool results carrying one (§8.1); tool-call acts in the
// three shapes the runtimes ship (an OpenAI-style tool_calls entry whose
// arguments are a JSON string, an Anthropic-style tool_use block, an MCP
// tools/call request); resolutions (§7.3); and enforcement receipts. Every
// record is a JSON text the strict profile accepts (integers only, unique
// names, nesting well under 64), written on one line in one of three
// styles: canonical (RFC 8785), compact with members shuffled (and, one
// time in four, non-ASCII characters written as \u escapes), or with a
// space after every ':' and ',' and members shuffled.
//
// The claims kind writes the records of "bbdigest archive verify",
//
//	{"digest":"sha256:<hex>","doc":<record>}
//
// whose digest is the SHA-256 of the canonical form of doc. The canonical
// form is written by this package itself, from the values it generated,
// and hashed with crypto/sha256: it does not depend on package canon, so
// the claims are an independent check of it.
package archivegen

import (
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
)

// Kind is what a generated archive holds.
type Kind uint8

const (
	// Envelopes: binding-moment envelopes only.
	Envelopes Kind = iota
	// Mixed: envelopes, tool results carrying one, tool calls in the three
	// vendor shapes, resolutions and receipts.
	Mixed
	// Claims: records of archive verify, each a mixed record with the
	// digest of its canonical form.
	Claims
)

var kindNames = []string{Envelopes: "envelopes", Mixed: "mixed", Claims: "claims"}

// String returns "envelopes", "mixed" or "claims".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind returns the Kind called name.
func ParseKind(name string) (Kind, error) {
	if i := slices.Index(kindNames, name); i >= 0 {
		return Kind(i), nil
	}
	return 0, fmt.Errorf("archivegen: unknown kind %q (envelopes, mixed or claims)", name)
}

// Options configures a generated archive.
type Options struct {
	Kind    Kind
	Records int64  // the number of lines
	Seed    uint64 // the archive is a function of Seed, Kind, Canonical and Wrong
	// Wrong is the number of claims (Kind Claims) whose claimed digest is
	// wrong: the digest of the canonical form of a different document.
	// They are spread evenly: record i (from 0) is wrong when
	// (i+1)*Wrong/Records > i*Wrong/Records.
	Wrong int64
	// Canonical writes every record (every doc, for Claims) in its
	// canonical form, as an archive that was canonicalized when written.
	Canonical bool
}

// Generator writes the lines of one archive, one at a time.
type Generator struct {
	opts Options
	rng  *rand.Rand
	i    int64 // the next record, from 0
	doc  []byte
	can  []byte
}

// New returns a Generator for opts, or an error for options out of range.
func New(opts Options) (*Generator, error) {
	switch {
	case opts.Kind > Claims:
		return nil, fmt.Errorf("archivegen: unknown kind %d", opts.Kind)
	case opts.Records < 0:
		return nil, fmt.Errorf("archivegen: negative number of records %d", opts.Records)
	case opts.Wrong < 0 || opts.Wrong > opts.Records:
		return nil, fmt.Errorf("archivegen: %d wrong claims out of %d records", opts.Wrong, opts.Records)
	case opts.Wrong > 0 && opts.Kind != Claims:
		return nil, fmt.Errorf("archivegen: wrong claims need the kind claims, not %s", opts.Kind)
	}
	return &Generator{opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, 0x62626467+uint64(opts.Kind)))}, nil
}

// Next appends the next line, with its "\n", to dst and returns it; it
// returns dst and false once every record has been written.
func (g *Generator) Next(dst []byte) ([]byte, bool) {
	if g.i >= g.opts.Records {
		return dst, false
	}
	i := g.i
	g.i++
	rng := g.rng
	var v any
	if g.opts.Kind == Envelopes {
		v = envelope(rng)
	} else {
		v = mixedRecord(rng, i)
	}
	st := g.style()
	if g.opts.Kind != Claims {
		return append(appendStyled(dst, v, st, rng), '\n'), true
	}
	g.can = appendCanonical(g.can[:0], v)
	if w := g.opts.Wrong; w > 0 && (i+1)*w/g.opts.Records > i*w/g.opts.Records {
		g.can = append(g.can, ' ') // the digest of another document
	}
	sum := sha256.Sum256(g.can)
	digest := fmt.Appendf(nil, "sha256:%x", sum[:])
	g.doc = appendStyled(g.doc[:0], v, st, rng)
	switch rng.IntN(4) {
	case 0: // doc first, with spaces
		dst = append(dst, `{"doc": `...)
		dst = append(dst, g.doc...)
		dst = append(dst, `, "digest": "`...)
		dst = append(dst, digest...)
		dst = append(dst, "\"}\n"...)
	default:
		dst = append(dst, `{"digest":"`...)
		dst = append(dst, digest...)
		dst = append(dst, `","doc":`...)
		dst = append(dst, g.doc...)
		dst = append(dst, "}\n"...)
	}
	return dst, true
}

// style draws the style of the next record.
func (g *Generator) style() style {
	if g.opts.Canonical {
		return style{canonical: true}
	}
	switch g.rng.IntN(3) {
	case 0:
		return style{canonical: true}
	case 1:
		return style{shuffle: true, escape: g.rng.IntN(4) == 0}
	}
	return style{shuffle: true, space: true}
}

// Write writes the whole archive of opts to w.
func Write(w io.Writer, opts Options) error {
	g, err := New(opts)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, 256<<10)
	for {
		var more bool
		buf, more = g.Next(buf)
		if !more || len(buf) >= 240<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if !more {
			return nil
		}
	}
}
