#!/usr/bin/env bash
# Several client processes as one run: N shards of T threads each (hakari run --shard i/N,
# --start-at, --load all, then hakari merge) against one client of N*T threads, on one private
# PostgreSQL; ycsb workload A, alternating, several rounds. The merged figure should match the one
# client's: sharding and merging add no work of their own (on one machine the N processes share
# its cores with the server, so this checks the mechanism, not scale-out). Prints ops/s and p99
# for both, each round, and the ratio of the medians.
#   bench/shards.sh [ROUNDS] [SECONDS] [SHARDS] [THREADS] [RECORDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ROUNDS=${1:-3}
SECS=${2:-20}
SHARDS=${3:-3}
THREADS=${4:-4}
RECORDS=${5:-300000}
cargo build --release --quiet
H="$CARGO_TARGET_DIR/release/hakari"
. bench/private_postgres.sh
OUT="$work/out"
mkdir -p "$OUT"
ycsb=(run ycsb --workload a --engine postgres --url "$url" --durability nosync --records "$RECORDS"
  --duration "$SECS" --runs 1)
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  start=$(date -u -d "+8 seconds" +%Y-%m-%dT%H:%M:%SZ)
  for i in $(seq 1 "$SHARDS"); do
    "$H" "${ycsb[@]}" --threads "$THREADS" --shard "$i/$SHARDS" --load all --start-at "$start" \
      --hlog "$OUT/r$round/hlog" --out "$OUT/r$round/c$i" >/dev/null 2>"$OUT/r$round-c$i.err" &
  done
  wait
  "$H" merge "$OUT"/r"$round"/c*/*.json --hlog "$OUT/r$round/hlog" -o "$OUT/r$round/merged.json" >/dev/null
  "$H" "${ycsb[@]}" --threads $((SHARDS * THREADS)) --hlog "$OUT/r$round/hlog1" --out "$OUT/r$round/one" \
    >/dev/null 2>&1
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import glob, json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def run_step(path):
    m = next(m for m in json.load(open(path))["measurements"] if m["step"] == "run")
    return m["ops_per_sec_mean"], m["latency"]["p99_us"] / 1000, m["threads"]
rows = {"merged shards": [], "one client": []}
for r in range(1, rounds + 1):
    rows["merged shards"].append(run_step(f"{out}/r{r}/merged.json"))
    rows["one client"].append(run_step(glob.glob(f"{out}/r{r}/one/*.json")[0]))
print(f"{'client(s)':14} {'threads':>7} {'ops/s (median)':>14} {'p99 ms':>7}  each round")
for name, v in rows.items():
    ops = statistics.median(x[0] for x in v)
    p99 = statistics.median(x[1] for x in v)
    print(f"{name:14} {v[0][2]:>7} {ops:>14.0f} {p99:>7.2f}  " + " ".join(f"{x[0]:.0f}" for x in v))
a = statistics.median(x[0] for x in rows["merged shards"])
b = statistics.median(x[0] for x in rows["one client"])
print(f"ratio merged/one client: {a / b:.3f}")
PY
