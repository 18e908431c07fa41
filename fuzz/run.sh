#!/usr/bin/env bash
# run.sh: run the native Go fuzz targets of the repository, JOBS at a
# time (default one after another), each for a while.
#
#   fuzz/run.sh [-t DURATION] [-m MINTIME] [-f FLOOR] [-j JOBS] [REGEX]
#
# Finds every target (func FuzzXxx(f *testing.F) in a _test.go file) in
# every module of the repository (the root module, fuzz/, bench/, ...; a
# package is fuzzed from the module whose go.mod is nearest above it), and
# runs each whose DIR/Name matches the extended regular expression REGEX
# (default: all; e.g. 'canon/', 'FuzzStream$', 'cmd/bbdigest/FuzzArchive')
# for DURATION (go test's -fuzztime: 30s by default, or 5000x for a count of
# calls), with -parallel 1: one fuzzing worker per target, so JOBS targets
# at once keep JOBS cores busy (CI passes -j 2 on its 2 cores; a target's
# calls per second then are those of one core, as with -j 1).
# Every target's seed corpus and committed inputs run first, as in go test.
#
# MINTIME is go test's -fuzzminimizetime (default 60s; 0 turns minimizing
# off, 100x bounds it to 100 calls): how long the fuzzer may spend
# minimizing an input, both a failing one and each new input that widens
# coverage, which it minimizes before fuzzing on. Early in a run new
# inputs come every few calls, and minimizing one takes from hundreds to
# many thousands of calls, so in a short run the fuzzer mostly minimizes:
# a 5 s run with the default spends its seconds on the first new input
# and fuzzes almost nothing. The smoke run of CI passes -m 0, so that
# its 5 s are spent fuzzing; a failing input is then written as found,
# not minimized (it fails the same way). Keep minimizing on for long
# runs, whose corpus it keeps small.
#
# It prints one line per target: DIR/Name, the time it took (the build
# included), the number of calls the fuzzer reported and calls per second
# of the fuzzer's run. That number ("execs" in go test's output) counts the
# calls of the fuzz function: those of the baseline coverage run (the seed
# corpus, the committed inputs and the inputs cached in $GOCACHE/fuzz by
# earlier runs), those of fuzzing, and those of each minimization once it
# ends; a minimization cut short by the end of the run counts nothing, so
# a run that ends while minimizing reports the calls made before it. A
# target whose count is under FLOOR (default 200) gets a line
#
#   WARNING: DIR/Name: N calls in Ds (R/s), under the floor of FLOOR: ...
#
# (a warning, not a failure), so that a target that barely fuzzes shows in
# the log of CI. After the first target that fails it starts no other
# (those running finish), and it prints the lines in the order of the
# targets once all have ended, then, for each that failed, the end of its
# output and where go test wrote the input that fails:
# DIR/testdata/fuzz/Name/HASH, Go's corpus format. Commit that file with
# the fix: go test then runs it as a test case every time. The log of
# every target stays in $TMPDIR (the summary says where).
#
# Examples:
#
#   fuzz/run.sh                      # every target, 30 s each
#   fuzz/run.sh -t 3s -m 0 -j 2      # the smoke run of .ci/run
#   fuzz/run.sh -t 10m 'canon/FuzzTranscode$'
set -euo pipefail
usage="usage: fuzz/run.sh [-t DURATION] [-m MINTIME] [-f FLOOR] [-j JOBS] [REGEX]"
dur=30s
mintime=60s
floor=200
jobs=1
while getopts t:m:f:j:h opt; do
	case $opt in
	t) dur=$OPTARG ;;
	m) mintime=$OPTARG ;;
	f) floor=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
[[ $floor =~ ^[0-9]+$ ]] || { echo "fuzz/run.sh: -f takes a number of calls, not $floor" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz/run.sh: -j takes a number of targets at once, not $jobs" >&2; exit 2; }
re=${1:-.}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
logs=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-run.XXXXXX")

# The targets, as DIR<TAB>Name, DIR relative to the root ("." for it).
# git ls-files: the test files of the checkout, new ones included but not
# ignored ones. (The module of hashing/_asm, a generator, has none.)
targets=$(git ls-files --cached --others --exclude-standard -- '*_test.go' |
	xargs grep -HoE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' |
	sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*$|\1\t\2|; s|^[^/\t]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*$|.\t\1|' |
	sort -u)
# fuzz_one DIR NAME LOG: fuzz one target, its output into LOG, and write
# "RC TOOK BENIGN" into LOG.res when it ends (BENIGN 1: see benign).
fuzz_one() {
	local dir=$1 name=$2 log=$3 start=$SECONDS rc=0 benign=0
	(cd "$dir" && go test -run '^$' -fuzz "^$name\$" -fuzztime "$dur" -fuzzminimizetime "$mintime" -parallel 1 .) >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && benign "$name" "$log"; then
		rc=0 benign=1
	fi
	echo "$rc $((SECONDS - start)) $benign" >"$log.res"
}

# benign NAME LOG: whether a run that exited non-zero found nothing. Go
# 1.26's fuzz coordinator can fail a run that found nothing with a bare
# "context deadline exceeded" when -fuzztime ends while a worker is busy
# (minimizing, say): golang/go#75804, fixed in Go 1.27. Such a run wrote
# no failing input and failed no seed: it counts as done. (Decided here,
# as the run ends, and not only in its report: before, failed_yet took
# such a run for a failure and no further target started, so that CI's
# smoke run fuzzed 3 or 14 of its 38 targets and said nothing.)
benign() {
	local name=$1 log=$2
	! grep -q 'Failing input written' "$log" && ! grep -q -- "--- FAIL: $name/" "$log" &&
		grep -qx '    context deadline exceeded' "$log"
}

# report DIR NAME LOG: print the line of one finished target, and what
# failed; returns 1 when it failed.
report() {
	local dir=$1 name=$2 log=$3 rc took benign last execs secs rate note
	read -r rc took benign <"$log.res"
	total=$((total + took))
	# The fuzzer's last report, "fuzz: elapsed: 5s, execs: 12345 (2469/sec), ...",
	# its elapsed time a Go duration rounded to the second ("1m5s").
	last=$(grep -E '^fuzz: elapsed: .*, execs: [0-9]+' "$log" | tail -1 || true)
	execs=$(grep -oE 'execs: [0-9]+' <<<"$last" | cut -d' ' -f2 || true)
	secs=$(sed -nE 's/^fuzz: elapsed: ([0-9hms]+),.*/\1/p' <<<"$last" |
		awk '{ s = 0; n = $0; while (match(n, /^[0-9]+[hms]/)) { v = substr(n, 1, RLENGTH - 1); u = substr(n, RLENGTH, 1);
			s += v * (u == "h" ? 3600 : u == "m" ? 60 : 1); n = substr(n, RLENGTH + 1) } print s }')
	rate='?'
	if [ -n "$execs" ] && [ "${secs:-0}" -gt 0 ]; then
		rate=$((execs / secs))
	fi
	note=
	if [ "$benign" = 1 ]; then
		note="    (go.dev/issue/75804: stopped with \"context deadline exceeded\" at -fuzztime, no failing input; not a failure)"
	fi
	printf '%-45s %4ds  execs %8s  %6s/s\n' "$dir/$name" "$took" "${execs:-?}" "$rate"
	[ -z "$note" ] || echo "$note"
	if [ "$rc" -eq 0 ] && [ "${execs:-0}" -lt "$floor" ]; then
		slow=$((slow + 1))
		echo "WARNING: $dir/$name: ${execs:-no} calls in ${secs:-?}s (${rate}/s), under the floor of $floor: it barely fuzzes (a slow call, or a minimization cut short: see fuzz/run.sh; log $log)"
	fi
	if [ "$rc" -ne 0 ]; then
		echo "--- $dir/$name failed; the end of its output ($log):"
		tail -n 40 "$log"
		local input
		input=$(grep -oE 'testdata/fuzz/[^ ]+' "$log" | tail -1 || true)
		if [ -n "$input" ]; then
			echo "--- the minimized input is $dir/$input: commit it with the fix"
			echo "    re-run: (cd $dir && go test -run '$name/$(basename "$input")' .)"
		fi
		return 1
	fi
}

# logof DIR NAME: the log of a target. The root's targets (DIR ".") get
# "root", not a name starting with a dot, which failed_yet's glob would
# not see.
logof() {
	local d=$1
	[ "$d" != . ] || d=root
	echo "$logs/$(tr / _ <<<"$d")_$2.log"
}

# failed_yet: whether a finished target failed (then no more start).
failed_yet() {
	local f rc took benign
	for f in "$logs"/*.res; do
		[ -e "$f" ] || continue
		read -r rc took benign <"$f"
		[ "$rc" -eq 0 ] || return 0
	done
	return 1
}

n=0 total=0 slow=0 running=0
start_all=$SECONDS
selected=()
while IFS=$'\t' read -r dir name; do
	[ -n "$name" ] || continue
	grep -qE -- "$re" <<<"$dir/$name" || continue
	selected+=("$dir"$'\t'"$name")
done <<<"$targets"
if [ ${#selected[@]} -eq 0 ]; then
	echo "fuzz/run.sh: no target matches $re" >&2
	exit 2
fi
# First each selected package's instrumented test binary, one package at
# a time (go test -c -fuzz, which compiles on every core): run at once,
# two targets of one package, or of packages that share dependencies,
# would each compile the same instrumented packages, and the first
# targets' time would go to compiling. Each target then only links.
built=
for t in "${selected[@]}"; do
	IFS=$'\t' read -r dir name <<<"$t"
	case " $built " in *" $dir "*) continue ;; esac
	built="$built $dir"
	if ! (cd "$dir" && go test -c -o /dev/null -fuzz "^$name\$" .) >"$logs/build.log" 2>&1; then
		echo "--- fuzz/run.sh: $dir does not build for fuzzing:"
		cat "$logs/build.log"
		exit 1
	fi
done
# Up to JOBS targets at once, each fuzzing with one worker.
for t in "${selected[@]}"; do
	IFS=$'\t' read -r dir name <<<"$t"
	if [ $running -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	failed_yet && break
	fuzz_one "$dir" "$name" "$(logof "$dir" "$name")" &
	running=$((running + 1))
done
wait
failed=0
for t in "${selected[@]}"; do
	IFS=$'\t' read -r dir name <<<"$t"
	log=$(logof "$dir" "$name")
	[ -e "$log.res" ] || continue # not started: an earlier target failed
	n=$((n + 1))
	report "$dir" "$name" "$log" || failed=$((failed + 1))
done
echo "fuzz/run.sh: $n of ${#selected[@]} targets, $dur each, $jobs at a time, ${total}s in $((SECONDS - start_all))s; logs in $logs"
if [ $slow -gt 0 ]; then
	echo "WARNING: $slow of $n targets under the floor of $floor calls (see above)"
fi
[ $failed -eq 0 ] || exit 1
