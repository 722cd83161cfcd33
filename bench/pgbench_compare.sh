#!/usr/bin/env bash
# hakari's tpcb against pgbench (tpcb-like, prepared statements) on the same private PostgreSQL,
# same scale (1 branch, 100,000 accounts), same client counts, same durability (sync), run side
# by side, alternating, ROUNDS times (these machines are noisy): prints each round and the
# medians of each side's TPS with the ratio hakari / pgbench.
#   ROUNDS=3 bench/pgbench_compare.sh [SECONDS] [CLIENTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-10}"; shift || true
[ "$#" -gt 0 ] && clients=("$@") || clients=(1 8 32)
rounds="${ROUNDS:-3}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
bin="$pg_bin"; port="$pg_port"
[ -x "$bin/pgbench" ] || { echo "pgbench missing: scripts/setup-servers.sh" >&2; exit 1; }
"$bin/pgbench" -i -q -s 1 -h 127.0.0.1 -p "$port" -U postgres hakari_bench >/dev/null 2>&1
printf "%-6s %-8s %12s %12s %10s\n" round clients pgbench_tps hakari_tps ratio
for r in $(seq "$rounds"); do
  for c in "${clients[@]}"; do
    pg=$("$bin/pgbench" -n -M prepared -c "$c" -j "$c" -T "$secs" -h 127.0.0.1 -p "$port" -U postgres hakari_bench 2>/dev/null \
          | awk '/^tps/ {print $3; exit}')
    "$HAKARI_BIN" run tpcb --engine postgres --url "$url" --scale 1 --accounts-per-branch 100000 \
       --clients "$c" --duration "$secs" --runs 1 --out "$work/out-$r-$c" >/dev/null 2>&1
    hk=$(python3 -c "import json,glob; print(json.load(open(glob.glob('$work/out-$r-$c/*.json')[0]))['measurements'][0]['ops_per_sec_mean'])")
    echo "$r $c $pg $hk" >> "$work/figures.txt"
    python3 -c "print(f'{$r:<6} {$c:<8} {float($pg):12.1f} {float($hk):12.1f} {float($hk)/float($pg):10.3f}')"
  done
done
python3 - "$work/figures.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print("median over rounds:")
for c in sorted({int(r[1]) for r in rows}):
    pg = statistics.median(float(r[2]) for r in rows if int(r[1]) == c)
    hk = statistics.median(float(r[3]) for r in rows if int(r[1]) == c)
    print(f"{'':6} {c:<8} {pg:12.1f} {hk:12.1f} {hk / pg:10.3f}")
PY
