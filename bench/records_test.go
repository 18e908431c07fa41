package bench

import (
	"bytes"
	"crypto/sha256"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/archivegen"
)

// Records are the lines of `bbdigest archive gen` (the envelopes kind):
// envelopes of 1 to 2 KB whose strings hold non-ASCII text and escapes
// (\" \n \t \\), in canonical form (archive-canonical, as `archive gen
// --canonical` writes them) or in the generator's mixed styles
// (archive-mixed: pretty, compact, shuffled). They are the records of the
// README's whole-process archive figures, where canon's check of
// canonical input is the largest cost after SHA-256; BenchmarkRecords
// holds that check in process, one record at a time, as a worker of
// archive rehash takes them.
const recordsPerInput = 1000

type recordInput struct {
	name  string
	lines [][]byte
	bytes int
}

var recordInputs = sync.OnceValues(func() ([]recordInput, error) {
	var ins []recordInput
	for _, canonical := range []bool{true, false} {
		in := recordInput{name: "archive-mixed"}
		if canonical {
			in.name = "archive-canonical"
		}
		g, err := archivegen.New(archivegen.Options{Kind: archivegen.Envelopes, Records: recordsPerInput, Seed: 1, Canonical: canonical})
		if err != nil {
			return nil, err
		}
		for {
			line, ok := g.Next(nil)
			if !ok {
				break
			}
			line = bytes.TrimSuffix(line, []byte("\n"))
			in.lines = append(in.lines, line)
			in.bytes += len(line)
		}
		ins = append(ins, in)
	}
	return ins, nil
})

// BenchmarkRecords digests recordsPerInput archive records one at a time
// (one op is all of them): lib=bbdigest with a warm canon.Canonicalizer
// (View) and hashing.Sum, lib=jsontext+sha256 with jsontext's
// Canonicalize on a copy and crypto/sha256.
//
//	go test -run '^$' -bench BenchmarkRecords -count 10 . | tee records.txt
//	benchstat -col /lib records.txt
func BenchmarkRecords(b *testing.B) {
	ins, err := recordInputs()
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range ins {
		b.Run("input="+in.name, func(b *testing.B) {
			b.Run("lib=bbdigest", func(b *testing.B) {
				c := canon.New(canon.Strict)
				b.SetBytes(int64(in.bytes))
				b.ReportAllocs()
				for b.Loop() {
					for _, l := range in.lines {
						out, err := c.View(l)
						if err != nil {
							b.Fatal(err)
						}
						sinkSum = hashing.Sum(out)
					}
				}
			})
			b.Run("lib=jsontext+sha256", func(b *testing.B) {
				var buf []byte
				b.SetBytes(int64(in.bytes))
				b.ReportAllocs()
				for b.Loop() {
					for _, l := range in.lines {
						v := jsontext.Value(append(buf[:0], l...))
						if err := v.Canonicalize(); err != nil {
							b.Fatal(err)
						}
						buf = v
						sinkSum = sha256.Sum256(v)
					}
				}
			})
		})
	}
}

// TestRecordsAgree requires bbdigest and jsontext to give every record of
// BenchmarkRecords the same canonical form, and the canonical archive's
// records to be their own canonical form, so that the benchmark compares
// the same work and its canonical input exercises the fast path.
func TestRecordsAgree(t *testing.T) {
	ins, err := recordInputs()
	if err != nil {
		t.Fatal(err)
	}
	c := canon.New(canon.Strict)
	for _, in := range ins {
		if len(in.lines) != recordsPerInput {
			t.Fatalf("%s: %d records, want %d", in.name, len(in.lines), recordsPerInput)
		}
		for i, l := range in.lines {
			got, err := c.Append(nil, l)
			if err != nil {
				t.Fatalf("%s record %d: %v", in.name, i, err)
			}
			want := jsontext.Value(bytes.Clone(l))
			if err := want.Canonicalize(); err != nil {
				t.Fatalf("%s record %d: jsontext: %v", in.name, i, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s record %d: bbdigest %q, jsontext %q", in.name, i, got, want)
			}
			if in.name == "archive-canonical" && !bytes.Equal(got, l) {
				t.Fatalf("record %d of the canonical archive is not canonical", i)
			}
		}
	}
}
