package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// testdataDir holds the shared archives and their expected answers,
// computed with Node by testdata/archive/gen.mjs, independently of
// bbdigest.
const testdataDir = "../testdata/archive"

// expected is a line of a *.expected.jsonl file of rehash answers.
type expected struct {
	Line    int64                          `json:"line"`
	Bytes   int                            `json:"bytes"`
	Strict  struct{ Digest, Class string } `json:"strict"`
	RFC8785 struct{ Digest, Class string } `json:"rfc8785"`
}

// answerFor returns the expected answer, "sha256:…" or the class, under
// profile with the record size bound maxRecord (0: the profile's).
func (e expected) answerFor(profile canon.Profile, maxRecord int) string {
	a := e.Strict
	if profile == canon.RFC8785 {
		a = e.RFC8785
	}
	switch {
	case maxRecord > 0 && e.Bytes > maxRecord:
		return "too-large"
	case a.Class != "":
		return a.Class
	}
	return a.Digest
}

// readTestdata returns an archive of testdata/archive and its expected
// answers.
func readTestdata(t *testing.T, name string) ([]byte, []expected) {
	t.Helper()
	in, err := os.ReadFile(filepath.Join(testdataDir, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(testdataDir, name+".expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var exp []expected
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var e expected
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		exp = append(exp, e)
	}
	return in, exp
}

// answerOf returns a Result as answerFor writes answers.
func answerOf(r Result) string {
	if e, ok := errors.AsType[*canon.Error](r.Err); ok {
		return e.Class.String()
	} else if r.Err != nil {
		return r.Err.Error()
	}
	return r.Digest.String()
}

// TestTestdata runs Stream over the archives of testdata/archive (a line
// of every bad kind among realistic records, a last line without "\n", a
// truncated last line) under both profiles, with the default record bound
// and 4096, 1, 2 and 8 workers, whole and 1-7 byte reads, and Records over
// their lines, and checks one result per line, each the digest or class
// computed with Node.
func TestTestdata(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, name := range []string{"records", "truncated"} {
		in, exp := readTestdata(t, name)
		lines := bytes.Split(in, []byte("\n"))
		if len(lines) != len(exp) {
			t.Fatalf("%s: %d lines, %d expected answers", name, len(lines), len(exp))
		}
		for _, profile := range []canon.Profile{canon.Strict, canon.RFC8785} {
			for _, maxRecord := range []int{0, 4096} {
				var want []string
				for _, e := range exp {
					want = append(want, fmt.Sprintf("%d: %s", e.Line, e.answerFor(profile, maxRecord)))
				}
				for _, workers := range []int{1, 2, 8} {
					opts := Options{Profile: profile, MaxRecord: maxRecord, Workers: workers}
					for _, rname := range []string{"whole", "1-7"} {
						var got []string
						sum, err := Stream(context.Background(), readers[rname](in, rng), opts, func(r Result) error {
							got = append(got, fmt.Sprintf("%d: %s", r.Line, answerOf(r)))
							return nil
						})
						label := fmt.Sprintf("%s/%s/max=%d/workers=%d/%s", name, profile, maxRecord, workers, rname)
						if err != nil || sum.Records != int64(len(exp)) || sum.Bytes != int64(len(in)) {
							t.Errorf("%s: %v, %d records of %d bytes", label, err, sum.Records, sum.Bytes)
						}
						compare(t, label, got, want)
					}
					var got []string
					_, err := Records(context.Background(), lines, opts, func(r Result) error {
						got = append(got, fmt.Sprintf("%d: %s", r.Line, answerOf(r)))
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					compare(t, fmt.Sprintf("%s/%s/max=%d/workers=%d/Records", name, profile, maxRecord, workers), got, want)
				}
			}
		}
	}
}
