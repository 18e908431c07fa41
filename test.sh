#!/usr/bin/env bash
# test.sh: run every test of the repository. The library is the root
# module; bench/, fuzz/ and cmd/bbdigest/scripttest are modules of their
# own, so that the libraries they compare with (and go-internal's
# testscript) stay out of the library's go.mod. test.sh runs
# `go test ARGS ./...` in each, in that order, and stops at the first that
# fails. Examples:
#
#   ./test.sh
#   ./test.sh -short -count=1
#
# A new module of tests goes in the list below and in the go vet lines of
# .ci/run.
set -euo pipefail
cd "$(dirname "$0")"
for m in . bench fuzz; do
	(cd "$m" && go test "$@" ./...)
done
# The scripts run a bbdigest binary that their TestMain builds from the
# library module: go test's cache cannot see those sources, so this module
# is never answered from the cache.
(cd cmd/bbdigest/scripttest && go test -count=1 "$@" ./...)
