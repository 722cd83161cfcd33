#!/bin/sh
# RocksDB as its users run it against the build before, db_bench-style: two hakari binaries
# (HAKARI_BEFORE, say one built from a commit before Snappy/LZ4/Zstd and hardware CRC32C, and
# this checkout's), alternating, several rounds, on the same work:
#   - kv at durability none and sync, 1,000-byte values (a number, then filler: compressible);
#   - YCSB workload A at write-nosync (YCSB's random field bytes, as RandomByteIterator writes).
# Prints ops/s per step for each binary and the ratio after / before.
#   HAKARI_BEFORE=/path/to/hakari bench/rocksdb_build.sh [ROUNDS]
set -eu
cd "$(dirname "$0")/.."
. scripts/env.sh
ROUNDS=${1:-3}
: "${HAKARI_BEFORE:?set HAKARI_BEFORE to the hakari binary to compare with}"
cargo build --release --quiet
AFTER="$CARGO_TARGET_DIR/release/hakari"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
figures() { python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join("%s/%s/%s=%.0f" % (r["workload"], m["durability"], m["step"], m["ops_per_sec_mean"])
               for m in r["measurements"]))' "$1"; }
run() { # binary, label
  rm -rf "$OUT/r"; mkdir -p "$OUT/r"
  "$1" run kv --engine rocksdb --durability none,sync --value-size 1000 --batches 20000 --runs 1 \
    --out "$OUT/r" >/dev/null 2>&1
  "$1" run ycsb --engine rocksdb --workload a --durability write-nosync --records 100000 \
    --operations 300000 --runs 1 --out "$OUT/r" >/dev/null 2>&1
  for f in "$OUT"/r/*.json; do echo "$2 $(figures "$f")"; done
}
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then run "$HAKARI_BEFORE" before; run "$AFTER" after
  else run "$AFTER" after; run "$HAKARI_BEFORE" before; fi
done | tee "$OUT/all.txt"
python3 - "$OUT/all.txt" <<'PY'
import sys, collections, statistics
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    who, *figs = line.split()
    for f in figs:
        k, v = f.split("=")
        runs[k][who].append(float(v))
for k, by in runs.items():
    b, a = statistics.median(by["before"]), statistics.median(by["after"])
    print(f"{k:30} before {b:12,.0f}  after {a:12,.0f}  after/before {a / b:.3f}")
PY
