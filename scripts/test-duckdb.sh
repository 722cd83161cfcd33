#!/usr/bin/env bash
# The optional duckdb engine (what .ci/run calls after scripts/test.sh): fetches the prebuilt
# libduckdb.so, builds hakari with `--features duckdb` and runs its tests: the engine's own unit
# tests, then the tpch workload on DuckDB (answers checked at SF 0.01, RF1/RF2 leaving the row
# counts) and the Wisconsin queries on every SQL engine, DuckDB among them (counts and agreement).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-duckdb.sh
. scripts/env.sh
cargo test --release --features duckdb --lib engine::duckdb
cargo test --release --features duckdb --test tpch duckdb
cargo test --release --features duckdb --test wisconsin all_32_queries
