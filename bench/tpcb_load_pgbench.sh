#!/usr/bin/env bash
# tpcb's load beside `pgbench -i`, the same database on the same private PostgreSQL and wire:
# SCALE branches of 100,000 accounts (pgbench's and TPC-B's), the two alternating, ROUNDS rounds.
# pgbench as its users run it (`-i -s SCALE`: drop, create, generate client-side and COPY,
# vacuum, primary keys); hakari's load is the time its result notes ("loaded ... in"): create,
# COPY in parallel streams, primary keys, VACUUM ANALYZE. Both over the same sslmode (WIRE:
# disable or require). Prints each round and the medians' ratio pgbench / hakari (above 1:
# hakari loads faster).
#   ROUNDS=3 WIRE=disable bench/tpcb_load_pgbench.sh [SCALE]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scale="${1:-50}"; rounds="${ROUNDS:-3}"; export PGSSLMODE="${WIRE:-disable}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
: > "$work/figures.txt"
for r in $(seq "$rounds"); do
  start=$(date +%s.%N)
  "$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
  pg=$(python3 -c "print($(date +%s.%N) - $start)")
  "$pg_bin/psql" -q "${conn[@]}" hakari_bench -c "DROP TABLE pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history" >/dev/null
  "$HAKARI_BIN" run tpcb --engine postgres --url "$url?sslmode=$PGSSLMODE" --scale "$scale" \
    --transactions 1 --runs 1 --out "$work/hk-$r" >/dev/null 2>&1
  hk=$(python3 - "$work/hk-$r" <<'PY'
import glob, json, re, sys
notes = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["notes"]
m = next(re.search(r" in ([\d.]+) (ms|s)\b", n) for n in notes if "loaded branches" in n)
print(float(m.group(1)) / (1000 if m.group(2) == "ms" else 1))
PY
)
  echo "$r $pg $hk" | tee -a "$work/figures.txt"
done
python3 - "$work/figures.txt" "$scale" "$PGSSLMODE" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
pg, hk = (st.median(float(r[i]) for r in rows) for i in (1, 2))
print(f"\nscale {sys.argv[2]} ({int(sys.argv[2]) * 100000:,} accounts), sslmode={sys.argv[3]}, medians of {len(rows)} rounds")
print(f"pgbench -i {pg:.2f} s, hakari tpcb load {hk:.2f} s: pgbench / hakari {pg / hk:.2f}")
PY
