#!/usr/bin/env bash
# ab.sh: compare the benchmarks of bench/ at a git revision with the working
# tree, in interleaved rounds, on a machine too noisy for back-to-back runs.
#
#   bench/ab.sh REV [REGEX] [ROUNDS] [BENCHTIME]
#
# Builds the bench test binary at REV (in a temporary worktree) and from the
# working tree, then runs them alternately ROUNDS times (default 10), each
# run with -test.benchtime BENCHTIME (default 0.2s), and prints benchstat's
# comparison (old = REV, new = working tree). The raw results stay in
# $TMPDIR/ab-old.txt and $TMPDIR/ab-new.txt.
#
# Example: bench/ab.sh HEAD 'Canonicalize/input=envelope-pretty/lib=bbdigest$' 16
set -euo pipefail
rev=${1:?usage: bench/ab.sh REV [REGEX] [ROUNDS] [BENCHTIME]}
re=${2:-Canonicalize|Validate|Digest}
rounds=${3:-10}
bt=${4:-0.2s}
. "$(dirname "$0")/buildpair.sh"
build_pair "$rev" ab
rm -f "$tmp/ab-old.txt" "$tmp/ab-new.txt"
for i in $(seq "$rounds"); do
	"$tmp/ab-old.test" -test.run '^$' -test.bench "$re" -test.benchtime "$bt" >>"$tmp/ab-old.txt"
	"$tmp/ab-new.test" -test.run '^$' -test.bench "$re" -test.benchtime "$bt" >>"$tmp/ab-new.txt"
done
if command -v benchstat >/dev/null; then
	benchstat "$tmp/ab-old.txt" "$tmp/ab-new.txt"
else
	go run golang.org/x/perf/cmd/benchstat@latest "$tmp/ab-old.txt" "$tmp/ab-new.txt"
fi
