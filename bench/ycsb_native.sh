#!/bin/sh
# YCSB workload A on rocksdb and lmdb: hakari against bench/ycsb_native.rs (the same work straight
# through the same crates), alternating, several rounds; prints each run's ops/s and the ratio
# hakari / native of the run phase.
#   bench/ycsb_native.sh [RECORDS] [OPERATIONS] [ROUNDS]
set -eu
cd "$(dirname "$0")/.."
. scripts/env.sh
RECORDS=${1:-100000}
OPS=${2:-1000000}
ROUNDS=${3:-3}
cargo build --release --quiet
cargo bench --no-run --quiet --bench ycsb_native 2>/dev/null
NATIVE=$(ls -t "$CARGO_TARGET_DIR"/release/deps/ycsb_native-* | grep -v '\.d$' | head -1)
H="$CARGO_TARGET_DIR/release/hakari"
OUT=$(mktemp -d)
run_ops() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(round(next(m["ops_per_sec_mean"] for m in r["measurements"] if m["step"]=="run")))' "$1"; }
for engine in rocksdb lmdb; do
  for round in $(seq "$ROUNDS"); do
    native=$("$NATIVE" "$engine" "$RECORDS" "$OPS" | awk '/^run/ {print $2}')
    rm -rf "$OUT"/*
    "$H" run ycsb --engine "$engine" --workload a --durability write-nosync --records "$RECORDS" \
      --operations "$OPS" --out "$OUT" >/dev/null 2>&1
    ours=$(run_ops "$OUT"/*.json)
    python3 -c "import sys; n,h=map(float,sys.argv[1:]); print(f'$engine round $round: native {n:,.0f} ops/s, hakari {h:,.0f} ops/s, ratio {h/n:.3f}')" "$native" "$ours"
  done
done
rm -rf "$OUT"
