#!/usr/bin/env bash
# layoutab.sh: ab.sh across code layouts. Compare the benchmarks of bench/ at
# a git revision with the working tree, each side built several times with
# its code at different addresses, all the binaries run round-robin.
#
#   bench/layoutab.sh REV [REGEX] [ROUNDS] [BENCHTIME] [PADS] [PKG]
#
# Why: a canon row can move 4-8% between two builds whose executed code is
# the same. On an AMD EPYC Zen 5, main rebuilt with 1,344 bytes of unused
# code linked before canon measured Act canon-floor +5% (p=0.035) against
# main itself, and -ldflags=-funcalign=64 did not remove it. A single pair
# of builds then shows a change where there is only a new layout.
#
# How: each side (REV, and the working tree with its uncommitted changes) is
# built once per padding in PADS (default "0 704 2048" bytes): an unused
# assembly function of that size in internal/jsonread, kept by an init that
# never calls it, moves everything linked after it, canon and hashing
# included. Every binary is built with -ldflags=-funcalign=64. The binaries
# then run ROUNDS times (default 8) round-robin, from a different one each
# round, with -test.benchtime BENCHTIME (default 0.15s); each side's samples
# from all its layouts are pooled and benchstat compares the two pools. A
# difference smaller than the spread of one side's own layouts (printed per
# layout below benchstat's table) is not a result. The raw results stay in
# $TMPDIR/layoutab-{old,new}-PAD.txt.
#
# PKG (default bench) is the package whose benchmarks run: bench/, or a
# package of the module by its path, such as canon or internal/jsonread
# (its in-package benchmarks, run from its directory).
#
# Examples:
#   bench/layoutab.sh HEAD 'Act/shape=.*/lib=bbdigest$' 8
#   bench/layoutab.sh HEAD 'EscRun' 8 0.2s "0 704 2048" canon
set -euo pipefail
rev=${1:?usage: bench/layoutab.sh REV [REGEX] [ROUNDS] [BENCHTIME] [PADS] [PKG]}
re=${2:-Canonicalize|Validate|Digest}
rounds=${3:-8}
bt=${4:-0.15s}
pads=${5:-0 704 2048}
pkg=${6:-bench}
. "$(dirname "$0")/buildpair.sh"
root=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel)
tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/layoutab.XXXXXX")
trap 'git -C "$root" worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add -q --detach "$work/old" "$rev"
# The working tree, uncommitted changes included, without touching it.
mkdir "$work/new"
(cd "$root" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ ! -e "$f" ] || cp --parents -- "$f" "$work/new"; done)

# pad TREE N writes the padding of N bytes into TREE (none for 0).
pad() {
	local dir=$1/internal/jsonread n=$2
	rm -f "$dir/zz_layoutpad_amd64.s" "$dir/zz_layoutpad.go"
	[ "$n" -gt 0 ] || return 0
	{
		printf '//go:build !purego\n\n#include "textflag.h"\n\n// layoutPad is padding for bench/layoutab.sh: never called.\nTEXT ·layoutPad(SB), NOSPLIT, $0-0\n'
		for ((i = 1; i < n; i++)); do printf '\tBYTE $0x90\n'; done
		printf '\tRET\n'
	} >"$dir/zz_layoutpad_amd64.s"
	printf '//go:build amd64 && !purego\n\npackage jsonread\n\nfunc layoutPad()\n\nvar layoutPadNever bool\n\nfunc init() {\n\tif layoutPadNever {\n\t\tlayoutPad()\n\t}\n}\n' >"$dir/zz_layoutpad.go"
}

bins=()
for side in old new; do
	for n in $pads; do
		pad "$work/$side" "$n"
		out="$tmp/layoutab-$side-$n.test"
		if [ "$pkg" = bench ] && [ -f "$work/$side/bench/go.mod" ]; then
			(cd "$work/$side/bench" && go test -c -ldflags=-funcalign=64 -o "$out" .)
		else
			(cd "$work/$side" && go test -c -ldflags=-funcalign=64 -o "$out" "./$pkg")
		fi
		bins+=("$out")
		rm -f "$tmp/layoutab-$side-$n.txt"
	done
	pad "$work/$side" 0
done
cd "$root/$pkg"
nb=${#bins[@]}
for ((r = 0; r < rounds; r++)); do
	for ((k = 0; k < nb; k++)); do
		b=${bins[$(((r + k) % nb))]}
		"$b" -test.run '^$' -test.bench "$re" -test.benchtime "$bt" >>"${b%.test}.txt"
	done
done
# This run's paddings only: a file of another padding, left by an earlier
# run, holds other builds' samples.
for side in old new; do
	: >"$tmp/layoutab-$side.txt"
	for n in $pads; do
		cat "$tmp/layoutab-$side-$n.txt" >>"$tmp/layoutab-$side.txt"
	done
done
if command -v benchstat >/dev/null; then
	bs=benchstat
else
	bs="go run golang.org/x/perf/cmd/benchstat@latest"
fi
$bs "$tmp/layoutab-old.txt" "$tmp/layoutab-new.txt"
echo
echo "per layout (median ns/op):"
for side in old new; do
	for n in $pads; do
		printf '%s, padding %s:\n' "$side" "$n"
		awk '$4 == "ns/op" {print $1, $3}' "$tmp/layoutab-$side-$n.txt" | sort -k1,1 -k2,2g |
			awk '{v[$1] = v[$1] " " $2; c[$1]++} END {for (k in v) {split(substr(v[k], 2), a, " "); printf "  %s %s\n", k, a[int((c[k] + 1) / 2)]}}' | sort
	done
done
