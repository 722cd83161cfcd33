#!/usr/bin/env bash
# What reading the resources costs: the same run with the readings on (the default) and with
# --no-resources, alternating which goes first, ROUNDS rounds; the ratio on / off of ops/s per
# round and its median. Two runs: tpcb on a private PostgreSQL (4 clients, where every reading
# source is there: /proc, the device, pg_stat_*, the wait-event sampler), and kv on the null
# engine (nothing but hakari's own loop, so any cost of the collecting thread shows). Each "on"
# run also says what its readings took (readings.cpu_cores: hakari's sampling and, on the private
# PostgreSQL, its statistics sessions), as a share of the CPU the whole run used.
# NAMES may add rocksdb (kv's fetch step on RocksDB, readings on as by default) and
# rocksdb-statistics (the same with --engine-statistics, RocksDB's statistics object on).
#   ROUNDS=6 DURATION=20 [NAMES="tpcb kv rocksdb rocksdb-statistics"] bench/resources_overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
rounds="${ROUNDS:-6}"; duration="${DURATION:-20}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
tpcb=(run tpcb --engine postgres --durability nosync --clients 4 --duration "$duration" --scale 4 --runs 1)
kv=(run kv --engine null --durability none --batches 3000000 --batch-size 10 --txn-size op --runs 1)
rocksdb=(run kv --engine rocksdb --durability nosync --batches 100000 --runs 1)
rocksdb_statistics=("${rocksdb[@]}")
rate() { # RESULT-DIR STEP: ops/s, and the readings' own CPU as a share of all the CPU the run used
  python3 -c "import json,glob
m = next(m for m in json.load(open(glob.glob('$1/*.json')[0]))['measurements'] if m['step']=='$2')
f = {x['name']: x['value'] for x in m.get('figures', [])}
used = f.get('client.cpu_cores', 0) + f.get('server.cpu_cores', 0)
print(m['ops_per_sec_mean'], f.get('readings.cpu_cores', 0) / used if used else 0)"
}
for name in ${NAMES:-tpcb kv}; do
  declare -n args="${name//-/_}"
  case $name in tpcb) step=tpcb ;; rocksdb*) step=fetch ;; *) step=insert ;; esac
  on=(); [ "$name" = rocksdb-statistics ] && on=(--engine-statistics)
  for r in $(seq "$rounds"); do
    if [ $((r % 2)) = 1 ]; then order="on off"; else order="off on"; fi
    for side in $order; do
      if [ "$side" = off ]; then flag=(--no-resources); else flag=("${on[@]}"); fi
      "$HAKARI_BIN" "${args[@]}" "${flag[@]}" --out "$work/$name-$side-$r" >/dev/null 2>&1
      echo "$name $r $side $(rate "$work/$name-$side-$r" "$step")" | tee -a "$work/figures.txt"
    done
  done
done
python3 - "$work/figures.txt" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print("\nresource readings on / off, ops/s, medians over rounds; the readings' own CPU as a share of the run's")
for name in dict.fromkeys(r[0] for r in rows):
    on = {r[1]: float(r[3]) for r in rows if r[0] == name and r[2] == "on"}
    off = {r[1]: float(r[3]) for r in rows if r[0] == name and r[2] == "off"}
    share = [float(r[4]) for r in rows if r[0] == name and r[2] == "on"]
    ratios = [on[k] / off[k] for k in on]
    print(f"{name:7} on {st.median(on.values()):12,.0f}  off {st.median(off.values()):12,.0f}  "
          f"on/off {st.median(ratios):.3f}  rounds {' '.join(f'{x:.3f}' for x in ratios)}  "
          f"readings' CPU {100 * st.median(share):.2f}% (max {100 * max(share):.2f}%)")
PY
