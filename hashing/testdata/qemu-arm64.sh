#!/usr/bin/env bash
# Cross-compiles the hashing tests for linux/arm64 and runs them under
# qemu-user with every Armv8 feature (-cpu max), requiring the arm64 SHA2
# path so that a missing SHA2 detection fails instead of skipping.
# Usage: hashing/testdata/qemu-arm64.sh [extra test flags]
# Needs qemu-user-static (apt-get install -y qemu-user-static); installs it
# when run as root and it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v qemu-aarch64-static >/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq && apt-get install -y -qq qemu-user-static >/dev/null
	else
		echo "qemu-arm64.sh: qemu-aarch64-static not found (apt-get install -y qemu-user-static)" >&2
		exit 1
	fi
fi

GOARCH=arm64 go vet ./hashing
GOARCH=arm64 go test -c -o /tmp/hashing-arm64.test ./hashing
BBDIGEST_REQUIRE_IMPL=arm64 qemu-aarch64-static -cpu max /tmp/hashing-arm64.test -test.short "$@"
