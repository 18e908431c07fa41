package hashing_test

import (
	"encoding/json"
	"fmt"

	"github.com/bbdigest/bbdigest/hashing"
)

func ExampleSum256() {
	sum := hashing.Sum256([]byte("hello world\n"))
	fmt.Printf("%x\n", sum)
	// Output: a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447
}

func ExampleSum224() {
	sum := hashing.Sum224([]byte("abc"))
	fmt.Printf("%x\n", sum)
	// Output: 23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7
}

func ExampleDigest_String() {
	d := hashing.Sum([]byte("abc"))
	fmt.Println(d)
	// Output: sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
}

func ExampleDigest_Format() {
	d := hashing.Sum([]byte("abc"))
	fmt.Printf("%v\n%x\n%.4X\n%d\n", d, d, d, d)
	// Output:
	// sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
	// ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
	// BA7816BF
	// %!d(hashing.Digest=sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad)
}

func ExampleParseDigest() {
	_, err := hashing.ParseDigest("sha512:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	fmt.Println(err)
	d, err := hashing.ParseDigest("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	fmt.Println(d == hashing.Sum([]byte("abc")), err)
	// Output:
	// hashing: invalid digest "sha512:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad": unsupported algorithm "sha512", want "sha256:" prefix at offset 0
	// true <nil>
}

func ExampleDigest_MarshalJSON() {
	b, _ := json.Marshal(map[string]hashing.Digest{"abc": hashing.Sum([]byte("abc"))})
	fmt.Println(string(b))
	// Output: {"abc":"sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}
}

func ExampleSumMany() {
	msgs := [][]byte{[]byte("abc"), nil, []byte("hello world\n")}
	out := make([]hashing.Digest, len(msgs))
	hashing.SumMany(msgs, out)
	for _, d := range out {
		fmt.Println(d)
	}
	// Output:
	// sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
	// sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
	// sha256:a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447
}

func ExampleBatcher() {
	lines := []string{"abc", "", "hello world\n"}
	out := make([]hashing.Digest, len(lines))
	b := hashing.NewBatcher(out)
	for i, l := range lines {
		b.Add([]byte(l), i)
	}
	b.Flush() // out[i] is valid from here on
	fmt.Println(out[0])
	// Output: sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
}

func ExampleNew() {
	h := hashing.New()
	h.Write([]byte("hello "))
	h.Write([]byte("world\n"))
	fmt.Printf("%x\n", h.Sum(nil))
	// Output: a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447
}
