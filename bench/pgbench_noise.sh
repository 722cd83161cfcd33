#!/usr/bin/env bash
# How far apart two runs of the same pgbench command line fall on this machine: pgbench against
# itself, PAIRS pairs of back-to-back runs on a private PostgreSQL (as bench/pgbench_cli.sh
# runs it). Prints each pair's TPS and ratio, then the ratios' median, spread and a bootstrap
# 95% interval of the median: the noise any median of bench/pgbench_cli.sh carries.
#   PAIRS=30 MODE=prepared bench/pgbench_noise.sh [SECONDS] [SCALE] [CLIENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-3}"; scale="${2:-10}"; c="${3:-8}"; pairs="${PAIRS:-30}"; mode="${MODE:-prepared}"
export PGSSLMODE="${PGSSLMODE:-disable}"
. bench/private_postgres.sh
[ -x "$pg_bin/pgbench" ] || { echo "pgbench missing: scripts/setup-servers.sh" >&2; exit 1; }
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
"$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
cores=$(nproc); j=$(( c < cores ? c : cores ))
tps() { "$pg_bin/pgbench" -c "$c" -j "$j" -T "$secs" -M "$mode" "${conn[@]}" hakari_bench 2>/dev/null | awk '/^tps = / {print $3; exit}'; }
: > "$work/pairs.txt"
for p in $(seq "$pairs"); do
  a=$(tps); b=$(tps)
  echo "$p $a $b" | tee -a "$work/pairs.txt"
done
PYTHONPATH=bench python3 - "$work/pairs.txt" "$secs" "$scale" "$c" "$mode" <<'PY'
import statistics as st, sys
from median import interval
ratios = [float(b) / float(a) for _, a, b in (l.split() for l in open(sys.argv[1]))]
print(f"\npgbench against itself, {len(ratios)} pairs of {sys.argv[2]} s runs, scale {sys.argv[3]}, "
      f"{sys.argv[4]} clients, -M {sys.argv[5]}")
print(f"second/first: median {st.median(ratios):.3f}, standard deviation {st.stdev(ratios):.3f}, "
      f"range {min(ratios):.3f} to {max(ratios):.3f}, 95% interval of the median "
      f"{interval(ratios).replace('-', ' to ')}")
PY
