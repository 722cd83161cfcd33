#!/usr/bin/env bash
# The same work placed by hand: `pgbench` and `hakari pgbench` (-c N -j min(N, 2) -T SECONDS
# -M prepared, pgbench's built-in TPC-B) on one private PostgreSQL, with the server and the
# client each held to cores by `taskset`, so that the kernel's placement, which moves both
# tools' figures on a machine whose cores the two share, is taken out:
#   PIN=apart  the server (postmaster, and so every backend) on the last core, the client on the others
#   PIN=shared the server and the client on core 0 alone: each transaction's whole work, client
#              and server, done on one core, in turn, so TPS is one over the work a transaction
#   PIN=none   neither held (as bench/pgbench_cli.sh runs them), for a side-by-side
# The two tools alternate which goes first, ROUNDS rounds; prints each round's TPS and ratio, and
# the median ratio. SYNC=off runs both with synchronous_commit=off (through PGOPTIONS), so the
# cores set the pace and not the disk's flushes.
#   ROUNDS=6 PIN=shared [SYNC=off] bench/pgbench_pinned.sh [SECONDS] [SCALE] [CLIENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-10}"; scale="${2:-10}"; c="${3:-4}"; rounds="${ROUNDS:-6}"
export PGSSLMODE=disable
last=$(( $(nproc) - 1 ))
[ "$last" -ge 1 ] || { echo "one core: nothing to place" >&2; exit 2; }
case "${PIN:-apart}" in
  apart) server_cores="$last"; client_cores="0-$(( last - 1 ))" ;;
  shared) server_cores=0; client_cores=0 ;;
  none) server_cores="0-$last"; client_cores="0-$last" ;;
  *) echo "PIN: apart, shared or none" >&2; exit 2 ;;
esac
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
"$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
# Every process of the server as it stands (the postmaster and its helpers); each backend a
# client opens is forked from the postmaster and inherits its cores.
for pid in $(head -1 "$work/data/postmaster.pid") $(cat "/proc/$(head -1 "$work/data/postmaster.pid")/task/"*/children); do
  taskset -a -p -c "$server_cores" "$pid" >/dev/null
done
j=$(( c < 2 ? c : 2 ))
args=(-c "$c" -j "$j" -T "$secs" -M prepared)
echo "PIN=${PIN:-apart}: server on cores $server_cores, client on $client_cores; -c $c -j $j -T $secs -M prepared, scale $scale${PGOPTIONS:+, PGOPTIONS=$PGOPTIONS}"
tps() { awk '/^tps = / {print $3; exit}'; }
ratios=()
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="pgbench hakari"; else order="hakari pgbench"; fi
  for tool in $order; do
    case $tool in
      pgbench) pg=$(taskset -c "$client_cores" "$pg_bin/pgbench" "${args[@]}" "${conn[@]}" hakari_bench 2>/dev/null | tps) ;;
      hakari) hk=$(taskset -c "$client_cores" "$HAKARI_BIN" pgbench "${args[@]}" --out "$work/hk" "${conn[@]}" hakari_bench 2>/dev/null | tps) ;;
    esac
  done
  [ -n "$pg" ] && [ -n "$hk" ] || { echo "round $r: a run gave no TPS (pgbench '$pg', hakari '$hk')" >&2; exit 1; }
  ratio=$(python3 -c "print(f'{$hk / $pg:.3f}')")
  ratios+=("$ratio")
  printf 'round %s: pgbench %.1f TPS, hakari %.1f TPS, hakari/pgbench %s\n' "$r" "$pg" "$hk" "$ratio"
done
python3 -c "import statistics, sys; print(f'median hakari/pgbench over {len(sys.argv) - 1} rounds: {statistics.median(map(float, sys.argv[1:])):.3f}')" "${ratios[@]}"
