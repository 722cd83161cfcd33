#!/usr/bin/env bash
# `hakari pgbench` beside `pgbench`: the same command line (pgbench's options, unchanged) on the
# same private PostgreSQL and wire (PGSSLMODE, default disable: plain), the two tools
# alternating which goes first, ROUNDS rounds per client count. Prints each tool's TPS (the
# "tps = " line each prints) and the ratio hakari / pgbench per round, its median and a
# bootstrap 95% interval of that median. With OLD=path/to/an/earlier/hakari, that binary takes
# its turn too (the three rotating which goes first) and its ratios are printed beside.
#   ROUNDS=4 MODE=prepared [OLD=...] bench/pgbench_cli.sh [SECONDS] [SCALE] [CLIENT COUNTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-30}"; scale="${2:-10}"; shift 2 || true
counts=("${@:-1 4 8 16}"); counts=(${counts[@]}); rounds="${ROUNDS:-4}"; mode="${MODE:-prepared}"
export PGSSLMODE="${PGSSLMODE:-disable}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
[ -x "$pg_bin/pgbench" ] || { echo "pgbench missing: scripts/setup-servers.sh" >&2; exit 1; }
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
"$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
cores=$(nproc)
tps() { awk '/^tps = / {print $3; exit}'; }
: > "$work/figures.txt"
for c in "${counts[@]}"; do
  j=$(( c < cores ? c : cores ))
  args=(-c "$c" -j "$j" -T "$secs" -M "$mode")
  for r in $(seq "$rounds"); do
    if [ -n "${OLD:-}" ]; then
      case $((r % 3)) in 1) order="pgbench hakari old" ;; 2) order="hakari old pgbench" ;; *) order="old pgbench hakari" ;; esac
    elif [ $((r % 2)) = 1 ]; then order="pgbench hakari"; else order="hakari pgbench"; fi
    old=""
    for tool in $order; do
      case $tool in
        pgbench) pg=$("$pg_bin/pgbench" "${args[@]}" "${conn[@]}" hakari_bench 2>/dev/null | tps) ;;
        hakari) hk=$("$HAKARI_BIN" pgbench "${args[@]}" --out "$work/hk" "${conn[@]}" hakari_bench 2>/dev/null | tps) ;;
        old) old=$("$OLD" pgbench "${args[@]}" --out "$work/old" "${conn[@]}" hakari_bench 2>/dev/null | tps) ;;
      esac
    done
    echo "$c $r $pg $hk $old" | tee -a "$work/figures.txt"
  done
done
python3 - "$work/figures.txt" "$secs" "$scale" "$mode" "$PGSSLMODE" <<'PY'
import random, statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"\nscale {sys.argv[3]}, {sys.argv[2]} s per run, -M {sys.argv[4]}, sslmode={sys.argv[5]}; medians over rounds (TPS),"
      " and a bootstrap 95% interval of the median ratio")
old = all(len(r) == 5 for r in rows)
random.seed(1)
def interval(xs):
    boot = sorted(st.median(random.choices(xs, k=len(xs))) for _ in range(2000))
    return f"{boot[50]:.3f}-{boot[1949]:.3f}"
print("clients   pgbench    hakari  hakari/pgbench  interval     rounds" + ("     old  old/pgbench  hakari/old  rounds" if old else ""))
for c in dict.fromkeys(r[0] for r in rows):
    rs = [r for r in rows if r[0] == c]
    ratios = [float(r[3]) / float(r[2]) for r in rs]
    pg, hk = (st.median(float(r[i]) for r in rs) for i in (2, 3))
    line = f"{c:>7}  {pg:8.1f}  {hk:8.1f}  {st.median(ratios):14.3f}  {interval(ratios)}  {' '.join(f'{x:.3f}' for x in ratios)}"
    if old:
        by_old = [float(r[3]) / float(r[4]) for r in rs]
        od = st.median(float(r[4]) for r in rs)
        of_pg = st.median(float(r[4]) / float(r[2]) for r in rs)
        line += f"  {od:8.1f}  {of_pg:11.3f}  {st.median(by_old):10.3f}  {' '.join(f'{x:.3f}' for x in by_old)}"
    print(line)
PY
