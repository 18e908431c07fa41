package archive

// Shards: Options.Shard {I, N} answers the I-th of N byte ranges of one
// input, for a Kubernetes Indexed Job or any other way of running N
// processes with no coordination (the bbdigest command's --shard I/N, and
// --shards N, which takes I from $JOB_COMPLETION_INDEX).
//
// The nominal bounds of shard I are lo = floor(S*I/N) and
// hi = floor(S*(I+1)/N), S the size of the JSON Lines stream: the file's
// size, or for a compressed file the size it decompresses to, which the
// shard measures first by decompressing it once. The shard answers the
// lines that start in [lo, hi) (see stream.go): its range runs
// from the first line boundary at or after lo to the first at or after
// hi. It reads the bytes before its range to count the lines there, so
// its line numbers are those of the whole file, and the outputs of the N
// shards, concatenated in index order, are byte for byte the output of
// one unsharded run.

import (
	"context"
	"io"
	"math/bits"
)

// mulDiv returns floor(x*y/z) for 0 <= x, 0 <= y <= z, 0 < z, without
// overflow.
func mulDiv(x, y, z int64) int64 {
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	q, _ := bits.Div64(hi, lo, uint64(z)) // hi < z, as y <= z and x < 2^63
	return int64(q)
}

// streamSize returns the size of the JSON Lines of the input: the file's
// size, or for a compressed file the size it decompresses to, measured by
// decompressing it once (which stops, failing, once ctx is done).
func streamSize(ctx context.Context, ai *archiveInput) (int64, error) {
	if ai.compression == "none" {
		if ai.rawSize < 0 {
			return 0, errNotRegular
		}
		return ai.rawSize, nil
	}
	again, err := openInput(ctx, ai.in)
	if err != nil {
		return 0, err
	}
	defer again.close()
	return io.Copy(io.Discard, again.r)
}

// errNotRegular is the error of a shard whose FILE is not a regular file.
var errNotRegular = shardError("a shard's FILE must be a regular file, whose size is known")

type shardError string

func (e shardError) Error() string { return string(e) }
