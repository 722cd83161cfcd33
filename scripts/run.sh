#!/usr/bin/env bash
# The main job: install what is missing, build hakari (release), and run `hakari run` with the
# arguments given (none: the short tour of the kv workload on every engine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh
cargo build --release --quiet
exec "$HAKARI_BIN" run "$@"
