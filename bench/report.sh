#!/usr/bin/env bash
# report.sh: regenerate the benchmark report, bench/report/README.md and
# bench/report/chart.svg (and the raw output, bench/report/raw.txt), on
# this machine: bbdigest against gowebpki/jcs, jsontext, an encoding/json
# round trip and Node's canonicalize on the inputs of bench/corpus_test.go,
# the SHA-256 paths and SumMany kernels, envelope parse and verify, the act
# digest, gate's Authorize, JSON Lines of records larger than a batch block
# (batch against the one loop --lines was before it, and `bbdigest
# canon|digest --lines` as a whole process, against another build of it
# with -lines-base), `bbdigest archive rehash`, and whole processes
# (`bbdigest digest --lines` and `archive rehash` at 1 and all workers
# against bench/linefilter, jsontext + crypto/sha256 on one goroutine, on
# archives of -process-records canonical and mixed envelopes and the
# large-record input, output to a file, wall and CPU time, their digests
# checked against each other line by line first), in interleaved rounds
# with per-round ratios. The header's note gives the load average before
# and after the run: run it on a quiet machine and say so with -note. The
# defaults (10 rounds of 100 ms per benchmark, 200000 records per archive)
# take about 8 minutes on 2 cores; more rounds give steadier medians, and
# -process-records 400000 is the 0.56 GB archive of issue 28.
#
#   bench/report.sh [-rounds N] [-benchtime D] [-records N] [-process-records N]
#                   [-large-records N] [-node CMD] [-lines-base BBDIGEST]
#                   [-note TEXT] [-out DIR] [-work DIR]
#
# Example: bench/report.sh -rounds 10 -benchtime 200ms -note 'nothing else ran'
set -euo pipefail
cd "$(dirname "$0")"
exec go run ./report "$@"
