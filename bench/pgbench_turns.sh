#!/usr/bin/env bash
# How the server's backends spend a run under `pgbench` and under `hakari pgbench`: the same
# command line (-c N -j min(N, cores) -T SECONDS -M prepared, pgbench's built-in TPC-B) on one
# private PostgreSQL, the two alternating which goes first, ROUNDS rounds. Per run: TPS; the
# backends' wait events, sampled every 10 ms by pg_wait_sampling inside the server, per 1,000
# transactions (Client:ClientRead is a backend waiting for its client's next statement); and,
# where perf is installed, `perf sched latency` over the middle third of the run: each side's
# CPU time and mean delay from wake-up to running, for the clients' threads and the backends.
# hakari runs with --no-resources, so that its readings' own sessions are not sampled.
#   ROUNDS=3 bench/pgbench_turns.sh [SECONDS] [SCALE] [CLIENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-15}"; scale="${2:-10}"; c="${3:-8}"; rounds="${ROUNDS:-3}"
export PGSSLMODE=disable
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
pg_version="$(ls /usr/lib/postgresql | sort -V | tail -1)"
[ -f "/usr/lib/postgresql/$pg_version/lib/pg_wait_sampling.so" ] ||
  { echo "pg_wait_sampling missing: apt-get install postgresql-$pg_version-pg-wait-sampling" >&2; exit 1; }
PG_PRELOAD=pg_wait_sampling . bench/private_postgres.sh
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
"$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
psql -qAt "${conn[@]}" hakari_bench -c "create extension pg_wait_sampling" >/dev/null
has_perf=""; command -v perf >/dev/null && perf sched record -o "$work/probe" -- true >/dev/null 2>&1 && has_perf=1
j=$(( c < $(nproc) ? c : $(nproc) ))
args=(-c "$c" -j "$j" -T "$secs" -M prepared)
echo "scale $scale, -c $c -j $j -T $secs -M prepared, sslmode=disable"
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="pgbench hakari"; else order="hakari pgbench"; fi
  for tool in $order; do
    psql -qAt "${conn[@]}" hakari_bench -c "select pg_wait_sampling_reset_profile()" >/dev/null
    case $tool in
      pgbench) run=("$pg_bin/pgbench" "${args[@]}" "${conn[@]}" hakari_bench) ;;
      hakari) run=("$HAKARI_BIN" pgbench --no-resources "${args[@]}" --out "$work/hk" "${conn[@]}" hakari_bench) ;;
    esac
    "${run[@]}" > "$work/out" 2>/dev/null &
    if [ -n "$has_perf" ]; then
      sleep "$(( secs / 3 ))"
      perf sched record -o "$work/sched" -- sleep "$(( secs / 3 ))" >/dev/null 2>&1
    fi
    wait
    tps=$(awk '/^tps = / {print $3; exit}' "$work/out")
    txn=$(awk '/actually processed/ {split($NF, a, "/"); print a[1]; exit}' "$work/out")
    printf '\nround %s, %s: %.1f TPS, %s transactions\n' "$r" "$tool" "$tps" "$txn"
    psql -qAt -F' ' "${conn[@]}" hakari_bench -c "select event_type, event, sum(count)
        from pg_wait_sampling_profile where event_type is distinct from 'Activity'
        group by 1, 2 order by 3 desc limit 6" |
      awk -v t="$txn" '{printf "  waits  %-28s %8.1f samples per 1,000 transactions\n", $1 ":" $2, $3 * 1000 / t}'
    if [ -n "$has_perf" ]; then
      # perf sched latency's rows: "name:pid" (or "name:(count)", the tasks of one name merged),
      # then "| runtime ms | switches | avg: x ms | max: ...".
      perf sched latency -i "$work/sched" 2>/dev/null | awk -F'|' -v tool="$tool" '
        NF > 5 && $1 ~ /:\(?[0-9]+\)? *$/ {
          name = $1; sub(/:\(?[0-9]+\)? *$/, "", name); gsub(/^ +/, "", name)
          side = name == "postgres" ? "backends" : (name == "pgbench" || name == "hakari") ? "client" : ""
          if (side == "") next
          split($4, a, " "); run[side] += $2; n[side] += $3; delay[side] += a[2] * $3
        }
        END { for (s in n) printf "  sched  %-8s %8.1f ms on a core, %6d switches, mean wake-up delay %.3f ms\n", s, run[s], n[s], delay[s] / n[s] }'
    fi
  done
done
