// Package epvector runs the conformance vectors of EP-RECEIPT-v1 ("bbdigest
// receipts verify-ep"): a vector file holds vectors, each a document, the
// public key to check it against, and whether it is valid; Run checks each
// with receipt.VerifyEP and says, one line a vector, whether the verdict
// is the one expected.
package epvector

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bbdigest/bbdigest/internal/diag"
	"github.com/bbdigest/bbdigest/receipt"
)

// file is the shape of an EP-RECEIPT-v1 vector file.
type file struct {
	Count   *int `json:"count"`
	Vectors []struct {
		ID        string          `json:"id"`
		PublicKey string          `json:"public_key"`
		Document  json.RawMessage `json:"document"`
		Expect    *struct {
			Valid *bool `json:"valid"`
		} `json:"expect"`
	} `json:"vectors"`
}

// Reason is why a vector's key or document was refused, without the
// package's name: "public key: REASON" or what failed in the document.
func Reason(err error) string {
	if e, ok := errors.AsType[*receipt.EPError](err); ok {
		return e.What
	}
	if e, ok := errors.AsType[*receipt.KeyError](err); ok {
		return "public key: " + e.Reason
	}
	return err.Error()
}

// Run checks each vector of the vector file src, and appends to dst one
// line a vector, then the counts:
//
//	PASS ID (valid)
//	PASS ID (invalid: REASON)
//	FAIL ID: want valid, got invalid: REASON
//	FAIL ID: want invalid, got valid
//	FAIL ID: the vector has no document or no expect.valid
//	N passed, M failed
//
// ID is the vector's "id" ("#N" for the Nth without one) and REASON its
// Reason, both escaped (internal/diag) so that each line stays one line.
// It returns the lines and the number of vectors failed; an error says
// why src is not a vector file, and then nothing is checked.
func Run(dst, src []byte) (out []byte, failed int, err error) {
	var vf file
	if err := json.Unmarshal(src, &vf); err != nil {
		return dst, 0, fmt.Errorf("not an EP vector file: %v", err)
	}
	switch {
	case vf.Vectors == nil:
		return dst, 0, errors.New("not an EP vector file: no \"vectors\" array")
	case vf.Count != nil && *vf.Count != len(vf.Vectors):
		return dst, 0, fmt.Errorf("\"count\" is %d but the file holds %s", *vf.Count, diag.Plural(len(vf.Vectors), "vector", "vectors"))
	}
	out = dst
	passed := 0
	for i, v := range vf.Vectors {
		id := v.ID
		if id == "" {
			id = fmt.Sprintf("#%d", i+1)
		}
		id = diag.Text(id)
		if v.Expect == nil || v.Expect.Valid == nil || v.Document == nil {
			failed++
			out = fmt.Appendf(out, "FAIL %s: the vector has no document or no expect.valid\n", id)
			continue
		}
		pub, err := receipt.ParsePublicKey([]byte(v.PublicKey))
		if err == nil {
			err = receipt.VerifyEP(v.Document, pub)
		}
		why := ""
		if err != nil {
			why = diag.Text(Reason(err))
		}
		want := *v.Expect.Valid
		switch {
		case want && err == nil:
			passed++
			out = fmt.Appendf(out, "PASS %s (valid)\n", id)
		case !want && err != nil:
			passed++
			out = fmt.Appendf(out, "PASS %s (invalid: %s)\n", id, why)
		case want:
			failed++
			out = fmt.Appendf(out, "FAIL %s: want valid, got invalid: %s\n", id, why)
		default:
			failed++
			out = fmt.Appendf(out, "FAIL %s: want invalid, got valid\n", id)
		}
	}
	out = fmt.Appendf(out, "%d passed, %d failed\n", passed, failed)
	return out, failed, nil
}
