package canon_test

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/bbdigest/bbdigest/canon"
)

func ExampleCanonicalize() {
	out, err := canon.Canonicalize([]byte(`{ "b": [1.0, "\u00e9"], "a": -0 }`), canon.Strict)
	fmt.Println(string(out), err)
	// Output: {"a":0,"b":[1,"é"]} <nil>
}

func ExampleCanonicalizer_reuse() {
	var c canon.Canonicalizer // strict profile; reuses its arena between calls
	buf := make([]byte, 0, 1024)
	for _, doc := range []string{`{"z":1,"y":2}`, `[true, null]`} {
		out, err := c.Append(buf[:0], []byte(doc))
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(out)
		fmt.Printf("%s sha256:%x\n", out, sum[:4])
	}
	// Output:
	// {"y":2,"z":1} sha256:faf65649
	// [true,null] sha256:d9461387
}

func ExampleTransform() {
	out, _ := canon.Transform([]byte(`[1E30, 2e-3, 333333333.33333329]`))
	fmt.Println(string(out))
	// Output: [1e+30,0.002,333333333.3333333]
}

func ExampleError() {
	_, err := canon.Canonicalize([]byte(`{"a": 1, "\u0061": 2}`), canon.Strict)
	fmt.Println(errors.Is(err, canon.ErrDuplicateName))
	if e, ok := errors.AsType[*canon.Error](err); ok {
		fmt.Println(e.Class, e.Offset, e.Pointer)
	}
	// Output:
	// true
	// duplicate-name 9 /a
}
