#!/usr/bin/env bash
# test.sh: run every test of the repository. The library is the root
# module; bench/, fuzz/, internal/approvepage/browsertest and
# cmd/bbdigest/scripttest are modules of their own, so that the libraries
# they compare with (and chromedp, and go-internal's testscript) stay out
# of the library's go.mod. test.sh runs
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

# What some tests need from outside the repository. Without it they skip
# (go test prints no skips without -v), so say here which and how to
# enable them; under CI=true they fail instead.
if ! command -v node >/dev/null; then
	echo "test.sh: node is not on PATH: the differential tests against Node's canonicalize and String(x) skip (install Node.js 20 or newer)" >&2
elif [ ! -f fuzz/node/node_modules/canonicalize/package.json ]; then
	echo "test.sh: fuzz/node has no node_modules: the differential tests against Node's canonicalize (fuzz, cmd/bbdigest) skip; enable them with: npm ci --prefix fuzz/node" >&2
fi
if [ ! -d ../shared/conformance/rfc8785 ]; then
	echo "test.sh: ../shared/conformance is not beside the repository: the RFC 8785 and EP conformance vector tests skip; put the project's shared/ folder next to this checkout to run them" >&2
fi
if [ -z "${BBDIGEST_CHROMIUM:-}" ] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null &&
	! command -v google-chrome >/dev/null && ! command -v headless-shell >/dev/null; then
	echo "test.sh: no Chromium on PATH: the approval page's browser tests (internal/approvepage/browsertest) skip; install it (Debian: apt-get install chromium) or set BBDIGEST_CHROMIUM to its path" >&2
fi
# TestTestShPreflight (testsh_test.go) runs only the lines above.
[ -z "${TEST_SH_PREFLIGHT_ONLY:-}" ] || exit 0
for m in . bench fuzz internal/approvepage/browsertest; do
	(cd "$m" && go test "$@" ./...)
done
# The scripts run a bbdigest binary that their TestMain builds from the
# library module: go test's cache cannot see those sources, so this module
# is never answered from the cache.
(cd cmd/bbdigest/scripttest && go test -count=1 "$@" ./...)
