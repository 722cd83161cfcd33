#!/usr/bin/env bash
# The main job: install what is missing, build hakari (release), and run `hakari run` with the
# arguments given (none: the short tour of the kv workload on every engine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh
if [ ! -x "$HAKARI_BIN" ]; then
  echo "run: building hakari (the first build compiles RocksDB from source: about 15 minutes on 2 cores)" >&2
fi
cargo build --release
exec "$HAKARI_BIN" run "$@"
