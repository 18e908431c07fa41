package main

// Shards: --shard I/N answers the I-th of N byte ranges of one FILE, for
// a Kubernetes Indexed Job or any other way of running N processes with
// no coordination (--shards N takes I from $JOB_COMPLETION_INDEX).
//
// The nominal bounds of shard I are lo = floor(S*I/N) and
// hi = floor(S*(I+1)/N), S the size of the JSON Lines stream: the file's
// size, or for a compressed file the size it decompresses to, which the
// shard measures first by decompressing it once. The shard answers the
// lines that start in [lo, hi) (see archive_stream.go): its range runs
// from the first line boundary at or after lo to the first at or after
// hi. It reads the bytes before its range to count the lines there, so
// its line numbers are those of the whole file, and the outputs of the N
// shards, concatenated in index order, are byte for byte the output of
// one unsharded run.

import (
	"context"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// jobIndexEnv is the variable in which a Kubernetes Indexed Job gives
// each pod its completion index.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// shardSpec is one shard of N; count 0 means no sharding.
type shardSpec struct {
	index, count int64
}

// parseShard parses --shard I/N.
func parseShard(s string) (shardSpec, bool) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseInt(is, 10, 64)
	n, err2 := strconv.ParseInt(ns, 10, 64)
	if !ok || err1 != nil || err2 != nil || i < 0 || n < 1 || i >= n {
		return shardSpec{}, false
	}
	return shardSpec{index: i, count: n}, true
}

// shardFlags resolves --shard and --shards into a shardSpec. It returns
// -1, or the exit code of a usage error it reported.
func (a *archiveRun) shardFlags(shard string, shards int64) int {
	c := a.c
	switch {
	case shard != "" && shards != 0:
		return c.usageError(a.fsName, "give --shard I/N, or --shards N with $"+jobIndexEnv+", not both")
	case shard != "":
		sp, ok := parseShard(shard)
		if !ok {
			return c.usageError(a.fsName, "--shard must be I/N with 0 <= I < N, as 3/8, not "+quote(shard))
		}
		a.shard = sp
	case shards < 0:
		return c.usageError(a.fsName, "--shards must be 1 or more")
	case shards > 0:
		v, set := os.LookupEnv(jobIndexEnv)
		if !set {
			return c.usageError(a.fsName, "--shards N takes the shard's index from $"+jobIndexEnv+" (set in each pod of a Kubernetes Indexed Job), which is not set")
		}
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil || i < 0 || i >= shards {
			return c.usageError(a.fsName, "$"+jobIndexEnv+" is "+quote(v)+", not an index from 0 to "+strconv.FormatInt(shards-1, 10))
		}
		a.shard = shardSpec{index: i, count: shards}
	}
	if a.shard.count > 0 && (len(a.inputs) != 1 || a.inputs[0] == "-") {
		return c.usageError(a.fsName, "a shard is a share of one FILE's size: give exactly one FILE, not stdin")
	}
	return -1
}

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
func (c *cli) streamSize(ctx context.Context, ai *archiveInput) (int64, error) {
	if ai.compression == "none" {
		if ai.rawSize < 0 {
			return 0, errNotRegular
		}
		return ai.rawSize, nil
	}
	again, err := c.openArchive(ctx, ai.name)
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
