package batch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bbdigest/bbdigest/batch"
	"github.com/bbdigest/bbdigest/canon"
)

func ExampleStream() {
	archive := strings.NewReader(`{"b": 1.0, "a": "\u00e9"}
[1.5]

{"a":1,"\u0061":2}
[3, 2, 1]`)
	sum, err := batch.Stream(context.Background(), archive, batch.Options{Mode: batch.ModeBoth}, func(r batch.Result) error {
		if e, ok := errors.AsType[*canon.Error](r.Err); ok {
			fmt.Printf("%d: error %s %d %s within %q\n", r.Line, e.Class, e.Offset, e.Msg, e.Pointer)
			return nil
		}
		fmt.Printf("%d: %s %.15s…\n", r.Line, r.Canonical, r.Digest)
		return nil
	})
	fmt.Printf("%d records, %d accepted, %d rejected, %v\n", sum.Records, sum.Accepted, sum.Rejected, err)
	// Output:
	// 1: {"a":"é","b":1} sha256:aa58fba8…
	// 2: error non-integer 1 number "1.5" is not an integer within "/0"
	// 3: error syntax 0 unexpected end of input, want a value within ""
	// 4: error duplicate-name 7 duplicate object member name "a" within "/a"
	// 5: [3,2,1] sha256:30c8681f…
	// 5 records, 2 accepted, 3 rejected, <nil>
}

func ExampleLines() {
	in := strings.NewReader("[1]\n{\"z\": 0, \"y\": 1}\n")
	for r, err := range batch.Lines(context.Background(), in, batch.Options{Mode: batch.ModeCanonical, Workers: 2}) {
		if err != nil {
			fmt.Println("read error:", err)
			break
		}
		fmt.Printf("%d: %s\n", r.Line, r.Canonical)
	}
	// Output:
	// 1: [1]
	// 2: {"y":1,"z":0}
}

func ExampleDigests() {
	docs := [][]byte{
		[]byte(`{"b": 2, "a": 1}`),
		[]byte("{\n  \"a\": 1,\n  \"b\": 2\n}"),
		[]byte(`{"a": 1e400}`),
	}
	results, err := batch.Digests(context.Background(), docs, canon.RFC8785)
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Println(r.Line, r.Err)
			continue
		}
		fmt.Println(r.Line, r.Digest)
	}
	// Output:
	// 1 sha256:43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777
	// 2 sha256:43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777
	// 3 canon: number-range: number "1e400" overflows an IEEE-754 double within "/a" at offset 6
}
