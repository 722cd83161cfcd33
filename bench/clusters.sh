#!/usr/bin/env bash
# What replication costs on this machine's loopback clusters: tpcb on one PostgreSQL against a
# primary with standbys at each acknowledgement, and on one MariaDB against Galera clusters of 1
# and 3 nodes; YCSB workload A on one Redis against a Redis Cluster of 3 masters. Each topology
# runs in turn within one hakari run per round (so they alternate), several rounds. Prints TPS
# (YCSB: ops/s) and p99 per topology and client count, and the ratio to one server.
#   bench/clusters.sh [ROUNDS] [SECONDS] [CLIENTS] [STANDBYS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ROUNDS=${1:-3}
SECS=${2:-10}
CLIENTS=${3:-1,8}
STANDBYS=${4:-2}
cargo build --release --quiet
H="$CARGO_TARGET_DIR/release/hakari"
OUT=$(mktemp -d)
echo "results in $OUT" >&2
common=(run tpcb --clients "$CLIENTS" --duration "$SECS" --runs 1 --scale 8 --out "$OUT")
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  # A configuration that fails is reported and left out; the others still count.
  "$H" "${common[@]}" --engine postgres --replicas "0,$STANDBYS" \
    --replica-ack async,remote-write,on,remote-apply >/dev/null || echo "a postgres run failed" >&2
  "$H" "${common[@]}" --engine mysql >/dev/null || echo "a mysql run failed" >&2
  "$H" "${common[@]}" --engine mysql --cluster galera:1,galera:3 >/dev/null || echo "a galera run failed" >&2
  for cluster in "" "--cluster redis:3"; do
    # shellcheck disable=SC2086
    "$H" run ycsb --workload a --engine redis $cluster --records 100000 --threads "$CLIENTS" \
      --duration "$SECS" --runs 1 --out "$OUT" >/dev/null || echo "a redis run failed" >&2
  done
done
python3 - "$OUT" <<'PY'
import glob, json, statistics, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    for m in json.load(open(f))["measurements"]:
        if m["step"] not in ("tpcb", "run"):
            continue
        topo = m["config"].get("replication", "one server")
        key = (m["engine"], topo, m["threads"])
        rows.setdefault(key, []).append((m["ops_per_sec_mean"], m["latency"]["p99_us"]))
base = {}
for (engine, topo, t), v in rows.items():
    if topo == "one server":
        base[(engine, t)] = statistics.median(x[0] for x in v)
print(f"{'engine':8} {'topology':58} {'clients':>7} {'TPS (median)':>12} {'p99 ms':>7} {'vs one':>6}  rounds")
for (engine, topo, t), v in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1] != "one server")):
    tps = statistics.median(x[0] for x in v)
    p99 = statistics.median(x[1] for x in v) / 1000
    ratio = tps / base[(engine, t)] if (engine, t) in base else float("nan")
    each = " ".join(f"{x[0]:.0f}" for x in v)
    print(f"{engine:8} {topo:58} {t:>7} {tps:>12.0f} {p99:>7.2f} {ratio:>6.2f}  {each}")
PY
