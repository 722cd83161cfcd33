#!/usr/bin/env bash
# Where hakari pgbench's gap to pgbench lies: pgbench -M prepared (-j min(clients, cores): a few
# threads, each polling several connections), bench/libpq_tpcb.c (PostgreSQL's own client
# library, one blocking thread per client: hakari's shape with pgbench's library) and
# `hakari pgbench -M prepared` (one thread per client, the postgres crate) on the same private
# PostgreSQL and plain wire, the three taking turns at going first. Prints each one's TPS per
# round and the medians with the ratios to pgbench.
#   ROUNDS=3 bench/pgbench_floor.sh [SECONDS] [SCALE] [CLIENT COUNTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-15}"; scale="${2:-10}"; shift 2 || true
counts=("${@:-1 4 8 16}"); counts=(${counts[@]}); rounds="${ROUNDS:-3}"
export PGSSLMODE=disable
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
[ -x "$pg_bin/pgbench" ] || { echo "pgbench missing: scripts/setup-servers.sh" >&2; exit 1; }
cc -O2 -pthread -I"$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)" \
  -o "$work/libpq_tpcb" bench/libpq_tpcb.c -lpq
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
conninfo="host=127.0.0.1 port=$pg_port user=postgres dbname=hakari_bench sslmode=disable"
"$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
cores=$(nproc)
tps() { awk '/^tps = / {print $3; exit}'; }
tools=(pgbench libpq hakari)
: > "$work/figures.txt"
for c in "${counts[@]}"; do
  j=$(( c < cores ? c : cores ))
  for r in $(seq "$rounds"); do
    declare -A got=()
    for k in 0 1 2; do
      tool=${tools[$(( (k + r) % 3 ))]}
      case $tool in
        pgbench) got[$tool]=$("$pg_bin/pgbench" -n -M prepared -c "$c" -j "$j" -T "$secs" "${conn[@]}" hakari_bench 2>/dev/null | tps) ;;
        libpq) got[$tool]=$("$work/libpq_tpcb" "$conninfo" "$c" "$secs" "$scale" | tps) ;;
        hakari) got[$tool]=$("$HAKARI_BIN" pgbench -n -M prepared -c "$c" -j "$j" -T "$secs" --out "$work/hk" "${conn[@]}" hakari_bench 2>/dev/null | tps) ;;
      esac
    done
    echo "$c $r ${got[pgbench]} ${got[libpq]} ${got[hakari]}" | tee -a "$work/figures.txt"
    unset got
  done
done
python3 - "$work/figures.txt" "$secs" "$scale" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"\nscale {sys.argv[3]}, {sys.argv[2]} s per run, -M prepared, plain wire; medians over rounds (TPS)")
print("clients   pgbench  libpq_tpcb    hakari  libpq/pgbench  hakari/pgbench")
for c in dict.fromkeys(r[0] for r in rows):
    rs = [r for r in rows if r[0] == c]
    pg, lq, hk = (st.median(float(r[i]) for r in rs) for i in (2, 3, 4))
    ratio = lambda i: st.median(float(r[i]) / float(r[2]) for r in rs)
    print(f"{c:>7}  {pg:8.1f}  {lq:10.1f}  {hk:8.1f}  {ratio(3):13.3f}  {ratio(4):14.3f}")
PY
