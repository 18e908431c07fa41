package archive

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// FuzzVerifyWrapper holds readClaim, the reader of archive verify's
// records, to canon and encoding/json: whenever it accepts a record whose
// doc is JSON (canon accepts it), the whole record must be a JSON text
// with no name twice (canon accepts it too: a duplicate "doc" read first
// by one implementation and last by another would let them check
// different documents), and encoding/json must read it as an object of
// exactly the members "digest" and "doc", with the same doc text and the
// same claimed digest. So verify never checks a document other than
// the one the record holds, nor against another claim.
func FuzzVerifyWrapper(f *testing.F) {
	// The record nests one level deeper than doc.
	wholeRecord, err := canon.RFC8785.WithMaxDepth(canon.RFC8785.MaxDepth() + 1)
	if err != nil {
		f.Fatal(err)
	}
	d := hashing.Sum([]byte(`{"a":1}`)).String()
	for _, s := range []string{
		`{"digest":"` + d + `","doc":{"a":1}}`,
		`{"doc": {"a":1}, "digest": "` + d + `"}`,
		` {"digest":"` + d + `" , "doc":[1,"]}",{"x":"\""}]}` + "\r",
		`{"digest":"` + d + `","doc":{"a":1},"doc":{"a":2}}`,
		`{"d\u0069gest":"` + d + `","doc":1}`,
		`{"digest":"` + d + `","doc":"x"} {}`,
		`{"digest":"` + d + `","doc":{"a":1}`,
		`{"digest":"` + d + `","doc":}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		cl, err := readClaim(line, [2]int{})
		if err != nil {
			return
		}
		doc := line[cl.doc[0]:cl.doc[1]]
		if _, err := canon.Canonicalize(doc, canon.RFC8785); err != nil {
			return // answered with canon's error, not checked against the claim
		}
		if _, err := canon.Canonicalize(line, wholeRecord); err != nil {
			t.Fatalf("readClaim accepts %q, which is not one JSON text with unique names: %v", line, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("readClaim accepts %q (doc %q), encoding/json does not: %v", line, doc, err)
		}
		if len(m) != 2 || m["digest"] == nil || m["doc"] == nil {
			t.Fatalf("readClaim accepts %q, encoding/json reads the members %v", line, m)
		}
		if !bytes.Equal(bytes.TrimSpace(m["doc"]), bytes.TrimSpace(doc)) {
			t.Fatalf("readClaim takes doc %q from %q, encoding/json %q", doc, line, m["doc"])
		}
		var s string
		if err := json.Unmarshal(m["digest"], &s); err != nil {
			t.Fatal(err)
		}
		if want, err := hashing.ParseDigest(s); err != nil || want != cl.digest {
			t.Fatalf("readClaim takes the claim %v from %q, encoding/json %q (%v)", cl.digest, line, s, err)
		}
	})
}
