package bolt_test

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

// A host sets up its ledger once with Create, then opens it with
// MustExist, so that a wrong path is an error rather than a new, empty
// ledger. Create never replaces a ledger.
func ExampleCreate() {
	dir, err := os.MkdirTemp("", "ledger")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "agent.db")

	l, err := bolt.Create(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := l.Close(); err != nil {
		log.Fatal(err)
	}
	_, err = bolt.Create(path, nil)
	fmt.Println("created again:", errors.Is(err, fs.ErrExist))

	l, err = bolt.Open(path, &bolt.Options{MustExist: true})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	d := hashing.Sum([]byte("an envelope"))
	e, err := l.Lookup(d)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.State)
	if err := l.Emit(d); err != nil {
		log.Fatal(err)
	}
	e, _ = l.Lookup(d)
	fmt.Println(e.State)

	_, err = bolt.Open(filepath.Join(dir, "agnet.db"), &bolt.Options{MustExist: true})
	fmt.Println("typo:", errors.Is(err, fs.ErrNotExist))
	// Output:
	// created again: true
	// unknown
	// emitted
	// typo: true
}
