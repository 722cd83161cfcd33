#!/usr/bin/env bash
# hakari's own cost: Berkeley DB Data Store fetch and insert ops/s through hakari (preset
# bdb-11gr2, durability none) against a minimal C program doing the same operations on the same
# libdb, run side by side, alternating, ROUNDS times. Prints each side's mean and the ratio.
#   bench/harness_overhead.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
rounds="${1:-3}"
hakari="${HAKARI:-$HAKARI_BIN}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/bdb_native" bench/bdb_native.c -ldb-5.3
[ -x "$hakari" ] || cargo build --release --quiet
for r in $(seq "$rounds"); do
  mkdir -p "$work/native-$r" "$work/out-$r"
  "$work/bdb_native" "$work/native-$r" 5 >> "$work/native.txt"
  "$hakari" run kv --preset bdb-11gr2 --engine bdb --durability none --runs 5 \
    --out "$work/out-$r" > /dev/null 2>&1
  rm -rf "$work/native-$r"
done
python3 - "$work" <<'PY'
import glob, json, statistics, sys
work = sys.argv[1]
native = {"fetch": [], "insert": []}
for line in open(f"{work}/native.txt"):
    f = line.split()
    native["fetch"].append(float(f[3])); native["insert"].append(float(f[5]))
hakari = {"fetch": [], "insert": []}
for path in glob.glob(f"{work}/out-*/*.json"):
    for m in json.load(open(path))["measurements"]:
        if m["step"] in hakari:
            hakari[m["step"]] += [r["ops_per_sec"] for r in m["runs"]]
print(f"{'step':8} {'native ops/s':>14} {'hakari ops/s':>14} {'hakari/native':>14}")
for step in ("fetch", "insert"):
    n, h = statistics.mean(native[step]), statistics.mean(hakari[step])
    print(f"{step:8} {n:14,.0f} {h:14,.0f} {h / n:14.3f}   ({len(native[step])} runs each)")
PY
