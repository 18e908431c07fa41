#!/usr/bin/env bash
# report.sh: regenerate the benchmark report, bench/report/README.md and
# bench/report/chart.svg (and the raw output, bench/report/raw.txt), on
# this machine: bbdigest against gowebpki/jcs, jsontext, an encoding/json
# round trip and Node's canonicalize on the inputs of bench/corpus_test.go,
# the SHA-256 paths and SumMany kernels, envelope parse and verify, the act
# digest, gate's Authorize, JSON Lines of records larger than a batch block
# (batch against the one loop --lines was before it, and `bbdigest
# canon|digest --lines` as a whole process, against another build of it
# with -lines-base) and `bbdigest archive rehash`, in interleaved rounds
# with per-round ratios. The defaults (10 rounds of 100 ms per benchmark)
# take about 6 minutes on 2 cores; more rounds give steadier medians.
#
#   bench/report.sh [-rounds N] [-benchtime D] [-records N] [-node CMD] [-lines-base BBDIGEST]
#
# Example: bench/report.sh -rounds 10 -benchtime 200ms
set -euo pipefail
cd "$(dirname "$0")"
exec go run ./report "$@"
