#!/usr/bin/env bash
# run.sh: run the native Go fuzz targets of the repository, one after
# another, each for a while.
#
#   fuzz/run.sh [-t DURATION] [-m MINTIME] [REGEX]
#
# Finds every target (func FuzzXxx(f *testing.F) in a _test.go file) in
# every module of the repository (the root module, fuzz/, bench/, ...; a
# package is fuzzed from the module whose go.mod is nearest above it), and
# runs each whose DIR/Name matches the extended regular expression REGEX
# (default: all; e.g. 'canon/', 'FuzzStream$', 'cmd/bbdigest/FuzzArchive')
# for DURATION (go test's -fuzztime: 30s by default, or 5000x for a count of
# calls), with -parallel 1: one fuzzing process at a time, on one core.
# Every target's seed corpus and committed inputs run first, as in go test.
# MINTIME is go test's -fuzzminimizetime (default 60s): how long the fuzzer
# may spend minimizing an input, both a failing one and each new input that
# widens coverage, which it minimizes before fuzzing on. A target whose
# calls are slow (cmd/bbdigest/FuzzArchiveShards runs the command some 45
# times a call) spends most of a short run minimizing; -m 5s leaves more of
# a long run to new inputs.
#
# It prints one line per target: DIR/Name, the time it took (the build
# included) and the number of calls the fuzzer reported. It stops at the
# first target that fails, prints the end of its output and where go test
# wrote the minimized input that fails: DIR/testdata/fuzz/Name/HASH, Go's
# corpus format. Commit that file with the fix: go test then runs it as a
# test case every time. The log of every target stays in $TMPDIR (the
# summary says where).
#
# Examples:
#
#   fuzz/run.sh                      # every target, 30 s each
#   fuzz/run.sh -t 5s                # the smoke run of .ci/run
#   fuzz/run.sh -t 10m 'canon/FuzzTranscode$'
set -euo pipefail
usage="usage: fuzz/run.sh [-t DURATION] [-m MINTIME] [REGEX]"
dur=30s
mintime=60s
while getopts t:m:h opt; do
	case $opt in
	t) dur=$OPTARG ;;
	m) mintime=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
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
n=0 total=0
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
	# The fuzzer's last report, "fuzz: elapsed: 5s, execs: 12345 (2469/sec), ...".
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
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
	printf '%-45s %4ds  execs %s\n' "$dir/$name" "$took" "${execs:-?}"
	[ -z "$note" ] || echo "$note"
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
