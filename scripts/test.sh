#!/usr/bin/env bash
# The test suite (what .ci/run calls): install what is missing, then every test, release build
# (one build of the C/C++ engines serves both the binary and the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-test-tools
scripts/setup-servers.sh
. scripts/env.sh
cargo test --release "$@"
