#!/usr/bin/env bash
# cgab.sh: compare the instructions per iteration of benchmarks of bench/ at
# a git revision and in the working tree, counted by valgrind's callgrind.
# Instruction counts are nearly deterministic, so changes of 1-2% are
# visible where timing on a shared machine cannot resolve 10% (see ab.sh).
#
#   bench/cgab.sh REV REGEX [N]
#
# REGEX selects the benchmarks (run together, one count for all of them),
# for example 'Canonicalize/input=mixed-1M/lib=bbdigest$'. Each binary runs
# under callgrind twice, for N and for 2N iterations (default N=10), and
# the difference is reported per iteration, so the corpus generation and
# other set-up, which both runs share, cancel out. The garbage collector is
# off (GOGC=off): its work depends on timing and would not cancel (with it
# on, the two runs differed by more than the iterations they measure).
# Without it, an A/A comparison (REV = HEAD, clean tree) gives +0.04% on
# doubles-100k with N=5, but the same code measured by separate invocations
# has differed by up to 0.8%: treat differences below 1% as noise. The
# noise is a few hundred thousand to a couple of million instructions per
# run, whatever N is, so pick N to make N times the per-iteration count
# several hundred million: N=5 for doubles-100k or mixed-1M is enough,
# while the 1 KB envelope needs N=20000 (with N=200, an A/A run of it was
# off by 3%).
#
# Valgrind emulates a CPU without AVX-512: canon then takes its scalar and
# SSE paths, and pretty-printed inputs spend about a third of their
# instructions dropping whitespace in the engine, which the AVX-512
# compression pass does elsewhere. Instructions are not time either (a
# call to memmove costs few instructions but more time): confirm a change
# that trades calls for inline code with ab.sh.
set -euo pipefail
rev=${1:?usage: bench/cgab.sh REV REGEX [N]}
re=${2:?usage: bench/cgab.sh REV REGEX [N]}
n=${3:-10}
command -v valgrind >/dev/null || { echo "cgab.sh: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
. "$(dirname "$0")/buildpair.sh"
build_pair "$rev" cgab

# refs BINARY ITERATIONS prints the instructions callgrind counted.
refs() {
	GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$1" -test.run '^$' -test.bench "$re" -test.benchtime "${2}x" -test.cpu 1 2>&1 >/dev/null |
		sed -n 's/.*refs: *//p' | tr -d ,
}

declare -A per
for b in old new; do
	one=$(refs "$tmp/cgab-$b.test" "$n")
	two=$(refs "$tmp/cgab-$b.test" $((2 * n)))
	per[$b]=$(((two - one) / n))
	printf '%s (%s): %d instructions per iteration\n' "$b" "$([ $b = old ] && echo "$rev" || echo "working tree")" "${per[$b]}"
done
awk -v o="${per[old]}" -v w="${per[new]}" 'BEGIN { printf "new/old: %+.2f%%\n", (w / o - 1) * 100 }'
