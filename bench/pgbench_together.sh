#!/usr/bin/env bash
# pgbench and `hakari pgbench` at the same time, on the same private PostgreSQL, tables and wire:
# whatever slows the machine (a neighbour, a slow disk second) slows both at once, so the share
# of the server each client gets is a measure of how promptly it turns the server's answers
# round, far steadier than two runs' throughputs taken in turn (bench/pgbench_noise.sh). Each
# tool runs the same command line (-c CLIENTS -j THREADS -T SECONDS -M MODE) with `-l`; from
# its third second to two before its end, each one's transactions are counted from its log and
# its time on the cores (every thread's) read from /proc: each one's share of the server and its
# own cost a transaction, side by side under the same conditions. Rounds alternate with a
# control, pgbench against a second pgbench, whose ratios show the measure's own spread and bias
# (1.0 if the two places are alike).
#   ROUNDS=6 MODE=prepared bench/pgbench_together.sh [SECONDS] [SCALE] [CLIENTS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-20}"; scale="${2:-10}"; c="${3:-4}"; j="${4:-1}"
[ "$secs" -ge 6 ] 2>/dev/null || { echo "SECONDS: a whole number, 6 or more (the window read starts at the third second and ends two before the end)" >&2; exit 2; }
rounds="${ROUNDS:-6}"; mode="${MODE:-prepared}"
export PGSSLMODE="${PGSSLMODE:-disable}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
[ -x "$pg_bin/pgbench" ] || { echo "pgbench missing: scripts/setup-servers.sh" >&2; exit 1; }
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
"$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
# -n: neither tool vacuums or empties pgbench_history before its run. Without it one tool's
# TRUNCATE queues behind the other's open transactions, a pgbench thread blocks in its
# synchronous PQprepare behind that TRUNCATE, and its other clients' transactions, which the
# TRUNCATE waits for, never end (seen).
args=(-c "$c" -j "$j" -T "$secs" -M "$mode" -l -n)
: > "$work/rounds.txt"
for r in $(seq "$rounds"); do
  for pair in "pgbench hakari" "pgbench pgbench"; do
    set -- $pair
    rm -rf "$work/a" "$work/b"; mkdir -p "$work/a" "$work/b"
    declare -A tool=([a]=$1 [b]=$2) pid=()
    # Which of the two starts first alternates from round to round. Each runs in its own
    # directory (its logs land in the current one), exec'd so that its PID is the tool's.
    if [ $((r % 2)) = 1 ]; then order="a b"; else order="b a"; fi
    for side in $order; do
      case ${tool[$side]} in
        pgbench) (cd "$work/$side" && exec "$pg_bin/pgbench" "${args[@]}" "${conn[@]}" hakari_bench >out 2>&1) & ;;
        hakari) (cd "$work/$side" && exec "$HAKARI_BIN" pgbench "${args[@]}" --out "$work/$side/result" \
          "${conn[@]}" hakari_bench >out 2>&1) & ;;
      esac
      pid[$side]=$!
    done
    # Each process's time on the cores (every thread's, to the nanosecond) read at the start and
    # the end of the window, from its third second to two before its end.
    python3 - "${pid[a]}" "${pid[b]}" "$secs" > "$work/cpu" <<'PY' &
import glob, sys, time
def cpu(pid):
    return sum(int(open(f).read().split()[0]) for f in glob.glob(f"/proc/{pid}/task/*/schedstat"))
secs = int(sys.argv[3]); time.sleep(3)
t1 = time.time(); c1 = [cpu(p) for p in sys.argv[1:3]]
time.sleep(secs - 5)
t2 = time.time(); c2 = [cpu(p) for p in sys.argv[1:3]]
print(t1, t2, *(b - a for a, b in zip(c1, c2)))
PY
    sampler=$!
    (sleep $((secs + 60)); kill "${pid[a]}" "${pid[b]}" 2>/dev/null) & watchdog=$!
    for side in a b; do
      wait "${pid[$side]}" || { echo "round $r ($pair): a run failed or hung; its output:" >&2; cat "$work"/[ab]/out >&2; exit 1; }
    done
    kill "$watchdog" 2>/dev/null || true
    wait "$sampler"
    python3 - "$work" "$r" "$1/$2" <<'PY' | tee -a "$work/rounds.txt"
import glob, sys
work = sys.argv[1]
t1, t2, cpu_a, cpu_b = (float(x) for x in open(work + "/cpu").read().split())
def done(side):
    # Transactions whose end falls in the window (pgbench's log: time_epoch and time_us in the
    # fifth and sixth fields).
    n = 0
    for f in glob.glob(f"{work}/{side}/pgbench_log.*"):
        for line in open(f):
            fields = line.split()
            if t1 <= int(fields[4]) + int(fields[5]) / 1e6 < t2:
                n += 1
    return n
na, nb = done("a"), done("b")
# Per line: pair, round, each one's transactions a second, the share ratio, each one's CPU a
# transaction (µs), the CPU ratio.
us_a, us_b = cpu_a / 1e3 / na, cpu_b / 1e3 / nb
print(f"{sys.argv[3]} {sys.argv[2]} {na / (t2 - t1):.1f} {nb / (t2 - t1):.1f} {nb / na:.4f} "
      f"{us_a:.1f} {us_b:.1f} {us_b / us_a:.4f}")
PY
  done
done
PYTHONPATH=bench python3 - "$work/rounds.txt" "$secs" "$scale" "$c" "$j" "$mode" <<'PY'
import statistics as st, sys
from median import interval
rows = [l.split() for l in open(sys.argv[1])]
print(f"\nscale {sys.argv[3]}, {sys.argv[2]} s per run, each tool -c {sys.argv[4]} -j {sys.argv[5]} "
      f"-M {sys.argv[6]} -l, both at once; medians over rounds, and a bootstrap 95% interval of each ratio's")
print("pair             rounds  TPS first  second  second/first  interval       CPU µs/txn first  second  second/first  interval")
for pair in dict.fromkeys(r[0] for r in rows):
    rs = [r for r in rows if r[0] == pair]
    m = [st.median(float(r[i]) for r in rs) for i in range(2, 8)]
    share, weight = [float(r[4]) for r in rs], [float(r[7]) for r in rs]
    print(f"{pair:<15}  {len(rs):>6}  {m[0]:9.1f}  {m[1]:6.1f}  {m[2]:12.3f}  {interval(share)}  "
          f"{m[3]:16.1f}  {m[4]:6.1f}  {m[5]:12.3f}  {interval(weight)}")
    print(f"{'':15}  rounds: share {' '.join(f'{x:.3f}' for x in share)}; CPU {' '.join(f'{x:.3f}' for x in weight)}")
PY
