package batch

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"

	"github.com/bbdigest/bbdigest/internal/archivegen"
)

// This file generates the inputs of the tests and benchmarks: records of
// the shape of the envelope draft's §6.4 example, from
// internal/archivegen, and streams of them that are generated as they are
// read.

// genRecord returns a record of a generated archive: an envelope of
// internal/archivegen (written canonical, compact with its members
// shuffled, or with spaces, one in three each), drawn from rng; when
// multiline, one in three is indented over several lines, as a record held
// in memory may be.
func genRecord(rng *rand.Rand, multiline bool) []byte {
	g, err := archivegen.New(archivegen.Options{Kind: archivegen.Envelopes, Records: 1, Seed: rng.Uint64()})
	if err != nil {
		panic("BUG: " + err.Error())
	}
	line, _ := g.Next(nil)
	line = line[:len(line)-1] // without its "\n"
	if multiline && rng.IntN(3) == 0 {
		var b bytes.Buffer
		if err := json.Indent(&b, line, "", "  "); err != nil {
			panic("BUG: archivegen wrote invalid JSON: " + err.Error())
		}
		return b.Bytes()
	}
	return line
}

// archive returns n generated records as JSON Lines, and the records.
func archive(seed uint64, n int) ([]byte, [][]byte) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = genRecord(rng, false)
		b.Write(recs[i])
		b.WriteByte('\n')
	}
	return b.Bytes(), recs
}

// genReader is an endless (or, with limit, bounded) stream of lines that
// cycles through pool, generated as it is read: line i is
// pool[i%len(pool)].
type genReader struct {
	pool  [][]byte // each with its "\n"
	i     int      // index of the next line in pool
	cur   []byte   // the rest of the current line
	limit int64    // bytes still to give; < 0: no limit
}

func newGenReader(pool [][]byte, limit int64) *genReader {
	return &genReader{pool: pool, limit: limit}
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.limit == 0 {
		return 0, io.EOF
	}
	if g.limit > 0 && int64(len(p)) > g.limit {
		p = p[:g.limit]
	}
	n := 0
	for n < len(p) {
		if len(g.cur) == 0 {
			g.cur = g.pool[g.i%len(g.pool)]
			g.i++
		}
		k := copy(p[n:], g.cur)
		g.cur = g.cur[k:]
		n += k
	}
	if g.limit > 0 {
		g.limit -= int64(n)
	}
	return n, nil
}

// shortReader returns 1 to 7 bytes per Read.
type shortReader struct {
	r   io.Reader
	rng *rand.Rand
}

func (s *shortReader) Read(p []byte) (int, error) {
	return s.r.Read(p[:min(len(p), 1+s.rng.IntN(7))])
}

// spaces is an endless reader of spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
