package receipt_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/receipt"
)

// A gate appends one receipt per decision, and an auditor verifies the
// file with the public key alone.
func Example() {
	dir, err := os.MkdirTemp("", "receipts")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "receipts.jsonl")

	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		log.Fatal(err)
	}
	signer := receipt.NewSigner(priv)
	l, err := receipt.Open(path, signer, receipt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range []receipt.Payload{
		{Result: receipt.ResultPass, Reason: "policy", Class: receipt.ClassReadOnly, Tool: "read_file",
			ActDigest: hashing.Sum([]byte("the act"))},
		{Result: receipt.ResultFail, Reason: "no_authority", Class: receipt.ClassFinancial, Tool: "pay",
			Detail: "no authority for this act"},
	} {
		r, err := l.Append(context.Background(), p) // returns once the line is fsynced
		if err != nil {
			log.Fatal(err) // a gate denies: no receipt, no allow
		}
		fmt.Println(r.Seq, r.Payload.Result, r.Payload.ReceiptID == fmt.Sprintf("lavr:%s:%d", signer.KeyID()[7:23], r.Seq))
	}
	if err := l.Close(); err != nil {
		log.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sum, err := receipt.Verify(context.Background(), f, signer.Public(), receipt.VerifyOptions{})
	if err != nil {
		log.Fatal(err) // a *receipt.ChainError names the first bad record
	}
	fmt.Printf("verified %d records, seq %d to %d\n", sum.Records, sum.FirstSeq, sum.LastSeq)
	// Output:
	// 1 PASS true
	// 2 FAIL true
	// verified 2 records, seq 1 to 2
}
