package archive

// The records of "archive verify": one JSON object per line,
//
//	{"digest":"sha256:<64 lowercase hex>","doc":<any JSON>}
//
// in either member order, with JSON whitespace anywhere between tokens.
// doc is the document; digest, the digest its canonical form is claimed
// to have. The wrapper is read here, strictly and without decoding: the
// two member names written plainly, each once, nothing else; the claimed
// digest a plain string that hashing parses; doc's value found by its
// brackets and quotes only. doc itself is then canonicalized by batch
// under the profile (batch.Options.Select chooses it), so that its
// problems are canon's, with offsets in the line. A record whose wrapper
// is not this is answered with the class "wrapper" (classWrapper), at the
// offset where the reading stopped.

import (
	"bytes"
	"strconv"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// docPointer is the JSON pointer of doc in a record of verify.
const docPointer = "/doc"

// The classes that verify adds to canon's.
const (
	classWrapper  = "wrapper"  // the record is not {"digest":…,"doc":…}
	classMismatch = "mismatch" // doc's digest is not the claimed one
)

// wrapperError is the answer to a record of verify whose wrapper is not
// {"digest":…,"doc":…}: where the reading stopped, and why.
type wrapperError struct {
	offset int
	msg    string
}

func (e *wrapperError) Error() string {
	return "wrapper: " + e.msg + " at offset " + strconv.Itoa(e.offset)
}

// claim is what reading a record of verify gives: doc's bounds and the
// claimed digest.
type claim struct {
	doc    [2]int
	digest hashing.Digest
}

// selectDoc is the batch.Options.Select of verify: it returns doc's
// bounds in rec, or the *wrapperError of a bad wrapper.
func selectDoc(rec []byte) (start, end int, err error) {
	cl, err := readClaim(rec, [2]int{})
	if err != nil {
		return 0, 0, err
	}
	return cl.doc[0], cl.doc[1], nil
}

// claimOf returns the claimed digest of a record that selectDoc accepted,
// reading its wrapper again but skipping doc, whose bounds it knows.
func claimOf(res batch.Result) (hashing.Digest, error) {
	cl, err := readClaim(res.Record, res.Part)
	return cl.digest, err
}

// readClaim reads the wrapper of rec. When doc is not zero it holds doc's
// bounds, from an earlier reading, and doc's value is not read again.
func readClaim(rec []byte, doc [2]int) (claim, error) {
	var cl claim
	i := 0
	ws := func() { i = jsonread.SkipSpace(rec, i) }
	fail := func(msg string) (claim, error) { return claim{}, &wrapperError{offset: i, msg: msg} }
	ws()
	if i == len(rec) || rec[i] != '{' {
		return fail(`want an object {"digest":"sha256:…","doc":…}`)
	}
	i++
	var seenDigest, seenDoc bool
	for {
		ws()
		if i == len(rec) || rec[i] != '"' {
			return fail(`want the member name "digest" or "doc"`)
		}
		j := bytes.IndexByte(rec[i+1:], '"')
		if j < 0 {
			return fail("the line ends inside a member name")
		}
		name := rec[i+1 : i+1+j]
		var seen *bool
		switch string(name) {
		case "digest":
			seen = &seenDigest
		case "doc":
			seen = &seenDoc
		default:
			return fail("unknown member " + quote(string(name)) + `: a record has only "digest" and "doc"`)
		}
		if *seen {
			return fail("duplicate member " + quote(string(name)))
		}
		*seen = true
		i += j + 2
		ws()
		if i == len(rec) || rec[i] != ':' {
			return fail("want ':' after the member name")
		}
		i++
		ws()
		if seen == &seenDigest {
			if i == len(rec) || rec[i] != '"' {
				return fail(`digest is not a string "sha256:<64 lowercase hex>"`)
			}
			j := bytes.IndexByte(rec[i+1:], '"')
			if j < 0 || cl.digest.UnmarshalText(rec[i+1:i+1+j]) != nil {
				return fail(`digest is not a string "sha256:<64 lowercase hex>"`)
			}
			i += j + 2
		} else {
			end := doc[1]
			if i == len(rec) {
				return fail("the line ends before doc's value")
			}
			if doc == ([2]int{}) {
				end = jsonread.SkipValue(rec, i) // its brackets and quotes only: canon checks doc next
			} else if i != doc[0] {
				return fail("doc has moved") // the record changed between readings: never
			}
			switch {
			case end < 0:
				i = len(rec)
				return fail("the line ends inside doc")
			case end == i:
				return fail("want doc's value")
			}
			cl.doc = [2]int{i, end}
			i = end
		}
		ws()
		if i < len(rec) && rec[i] == ',' {
			i++
			continue
		}
		if i == len(rec) || rec[i] != '}' {
			return fail("want ',' or '}' after a member")
		}
		i++
		break
	}
	ws()
	switch {
	case i < len(rec):
		return fail("data after the object")
	case !seenDigest:
		return fail(`missing member "digest"`)
	case !seenDoc:
		return fail(`missing member "doc"`)
	}
	return cl, nil
}
