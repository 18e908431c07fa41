#!/bin/sh
# generate.sh rebuilds the archives of testdata/archive and their expected
# answers: the realistic records come from bbdigest archive gen (all of
# them strict-valid), gen.mjs adds a line of every bad kind and computes
# the answers with Node (JSON.parse, the npm package canonicalize,
# node:crypto), independently of bbdigest, and gzip and zstd compress the
# archives. It needs Go, Node, gzip, zstd, and `npm ci --prefix fuzz/node`.
# cmd/bbdigest's TestTestdataGenerated checks that gen.mjs still makes the
# committed files.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd ../.. && go run ./cmd/bbdigest archive gen --kind mixed --records 80 --seed 15) > "$tmp/base.jsonl"
node gen.mjs "$tmp/base.jsonl" .
for f in records.jsonl truncated.jsonl; do
	gzip -n -9 -c "$f" > "$f.gz"
done
for f in records.jsonl claims.jsonl; do
	zstd -q -19 -c "$f" > "$f.zst"
done
