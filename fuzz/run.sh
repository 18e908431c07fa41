#!/usr/bin/env bash
# run.sh: run the native Go fuzz targets of the repository, one after
# another, each for a while.
#
#   fuzz/run.sh [-t DURATION] [-m MINTIME] [-f FLOOR] [REGEX]
#
# Finds every target (func FuzzXxx(f *testing.F) in a _test.go file) in
# every module of the repository (the root module, fuzz/, bench/, ...; a
# package is fuzzed from the module whose go.mod is nearest above it), and
# runs each whose DIR/Name matches the extended regular expression REGEX
# (default: all; e.g. 'canon/', 'FuzzStream$', 'cmd/bbdigest/FuzzArchive')
# for DURATION (go test's -fuzztime: 30s by default, or 5000x for a count of
# calls), with -parallel 1: one fuzzing process at a time, on one core.
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
# the log of CI. It stops at the first target that fails, prints the end
# of its output and where go test wrote the input that fails:
# DIR/testdata/fuzz/Name/HASH, Go's corpus format. Commit that file with
# the fix: go test then runs it as a test case every time. The log of
# every target stays in $TMPDIR (the summary says where).
#
# Examples:
#
#   fuzz/run.sh                      # every target, 30 s each
#   fuzz/run.sh -t 5s -m 0           # the smoke run of .ci/run
#   fuzz/run.sh -t 10m 'canon/FuzzTranscode$'
set -euo pipefail
usage="usage: fuzz/run.sh [-t DURATION] [-m MINTIME] [-f FLOOR] [REGEX]"
dur=30s
mintime=60s
floor=200
while getopts t:m:f:h opt; do
	case $opt in
	t) dur=$OPTARG ;;
	m) mintime=$OPTARG ;;
	f) floor=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
[[ $floor =~ ^[0-9]+$ ]] || { echo "fuzz/run.sh: -f takes a number of calls, not $floor" >&2; exit 2; }
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
n=0 total=0 slow=0
start_all=$SECONDS
while IFS=$'\t' read -r dir name; do
	[ -n "$name" ] || continue
	grep -qE -- "$re" <<<"$dir/$name" || continue
	n=$((n + 1))
	log="$logs/$(tr / _ <<<"$dir")_$name.log"
	start=$SECONDS
	set +e
	(cd "$dir" && go test -run '^$' -fuzz "^$name\$" -fuzztime "$dur" -fuzzminimizetime "$mintime" -parallel 1 .) >"$log" 2>&1
	rc=$?
	set -e
	took=$((SECONDS - start))
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
	# Go 1.26's fuzz coordinator can fail a run that found nothing with a
	# bare "context deadline exceeded" when -fuzztime ends while a worker is
	# busy (minimizing, say): golang/go#75804, fixed in Go 1.27. Such a
	# run wrote no failing input and failed no seed: it counts as done.
	if [ $rc -ne 0 ] && ! grep -q 'Failing input written' "$log" && ! grep -q -- "--- FAIL: $name/" "$log" &&
		grep -qx '    context deadline exceeded' "$log"; then
		note="    (go.dev/issue/75804: stopped with \"context deadline exceeded\" at -fuzztime, no failing input; not a failure)"
		rc=0
	fi
	printf '%-45s %4ds  execs %8s  %6s/s\n' "$dir/$name" "$took" "${execs:-?}" "$rate"
	[ -z "$note" ] || echo "$note"
	if [ $rc -eq 0 ] && [ "${execs:-0}" -lt "$floor" ]; then
		slow=$((slow + 1))
		echo "WARNING: $dir/$name: ${execs:-no} calls in ${secs:-?}s (${rate}/s), under the floor of $floor: it barely fuzzes (a slow call, or a minimization cut short: see fuzz/run.sh; log $log)"
	fi
	if [ $rc -ne 0 ]; then
		echo "--- $dir/$name failed; the end of its output ($log):"
		tail -n 40 "$log"
		input=$(grep -oE 'testdata/fuzz/[^ ]+' "$log" | tail -1 || true)
		if [ -n "$input" ]; then
			echo "--- the minimized input is $dir/$input: commit it with the fix"
			echo "    re-run: (cd $dir && go test -run '$name/$(basename "$input")' .)"
		fi
		exit 1
	fi
done <<<"$targets"
if [ $n -eq 0 ]; then
	echo "fuzz/run.sh: no target matches $re" >&2
	exit 2
fi
echo "fuzz/run.sh: $n targets, $dur each, ${total}s of $((SECONDS - start_all))s; logs in $logs"
if [ $slow -gt 0 ]; then
	echo "WARNING: $slow of $n targets under the floor of $floor calls (see above)"
fi
