package archive_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/bbdigest/bbdigest/archive"
)

// Rehash an archive (here from a string; archive.File opens a plain, gzip
// or zstd file) and print its result lines and summary.
func ExampleRehash() {
	in := archive.Reader("audit.jsonl", strings.NewReader(`{"b": 1, "a": "\u00e9"}`+"\n\n"+`{"a":1,"a":2}`+"\n"))
	sum, err := archive.Rehash(context.Background(), []archive.Input{in}, archive.Options{Output: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum)
	fmt.Println(sum.Inputs[0].Name, sum.Inputs[0].Lines, "lines,", sum.Classes["duplicate-name"], "duplicate-name")
	// Output:
	// {"line":1,"digest":"sha256:aa58fba8483623bed37c1b02edfccbdd9a53123837c20bfa4cb4049993a2872e"}
	// {"line":2,"error":{"class":"syntax","offset":0,"pointer":"","message":"unexpected end of input, want a value"}}
	// {"line":3,"error":{"class":"duplicate-name","offset":7,"pointer":"/a","message":"duplicate object member name \"a\""}}
	// 3 records, 1 accepted, 2 rejected (duplicate-name 1, syntax 1)
	// audit.jsonl 3 lines, 1 duplicate-name
}

// Verify records that claim the digest of their document: the second
// claims another document's.
func ExampleVerify() {
	claims := `{"digest":"sha256:aa58fba8483623bed37c1b02edfccbdd9a53123837c20bfa4cb4049993a2872e","doc":{"a":"é","b":1}}` + "\n" +
		`{"doc":[1,2],"digest":"sha256:aa58fba8483623bed37c1b02edfccbdd9a53123837c20bfa4cb4049993a2872e"}` + "\n"
	in := archive.Reader("claims.jsonl", strings.NewReader(claims))
	sum, err := archive.Verify(context.Background(), []archive.Input{in}, archive.Options{Output: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum)
	// Output:
	// {"line":1,"ok":true,"digest":"sha256:aa58fba8483623bed37c1b02edfccbdd9a53123837c20bfa4cb4049993a2872e"}
	// {"line":2,"ok":false,"digest":"sha256:49a64717d5d4cb19952e6eac2946415cf6879adacf9908e7d872332d32c6e684","claimed":"sha256:aa58fba8483623bed37c1b02edfccbdd9a53123837c20bfa4cb4049993a2872e"}
	// 2 records, 1 ok, 1 failed (mismatch 1)
}

// Join the summaries of the shards of one run: here three shards of one
// file, run one after the other, each summary passed through its JSON
// form as the bbdigest command's --summary FILE would keep it.
func ExampleJoin() {
	dir, _ := os.MkdirTemp("", "join")
	defer os.RemoveAll(dir)
	path := dir + "/a.jsonl"
	os.WriteFile(path, []byte("[1]\n[2]\n{\"x\":1,\"x\":2}\n[3]\n[4]\n"), 0o666)
	var sums []*archive.Summary
	for i := range int64(3) {
		sum, err := archive.Rehash(context.Background(), []archive.Input{archive.File(path)},
			archive.Options{Shard: archive.Shard{Index: i, Count: 3}})
		if err != nil {
			fmt.Println(err)
			return
		}
		b, _ := sum.MarshalJSON()
		back, err := archive.ParseSummary(fmt.Sprintf("part-%d.summary.json", i), b)
		if err != nil {
			fmt.Println(err)
			return
		}
		sums = append(sums, back)
	}
	total, err := archive.Join(sums)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(total.Shards, "shards:", total)
	// Output:
	// 3 shards: 5 records, 4 accepted, 1 rejected (duplicate-name 1)
}
