#!/usr/bin/env bash
# `hakari pgbench` beside `pgbench`: the same command line (pgbench's options, unchanged) on the
# same private PostgreSQL and wire (PGSSLMODE, default disable: plain), the two tools
# alternating which goes first, ROUNDS rounds per client count. Prints each tool's TPS (the
# "tps = " line each prints) and the ratio hakari / pgbench per round, its median and a
# bootstrap 95% interval of that median. With OLD=path/to/an/earlier/hakari, that binary takes
# its turn too (the three rotating which goes first) and its ratios are printed beside.
# Each run's steady state (from a fifth of its length to four fifths) is read too, outside both
# tools, from /proc: the client's CPU (user and system, all its threads) and the server's (every
# PostgreSQL process's) a transaction, the client's share of the two (which the machine's
# wandering speed, moving both, moves far less), and the shares of the machine's cores left idle
# and taken by the hypervisor; each run's line goes to stderr, their medians print per tool
# after the TPS table. Both run with -P 1, whose lines count the window's transactions.
# SYNC=off runs both with synchronous_commit=off (through PGOPTIONS, which both read), so the
# cores set the pace and not the disk's flushes.
#   ROUNDS=4 MODE=prepared [SYNC=off] [OLD=...] bench/pgbench_cli.sh [SECONDS] [SCALE] [CLIENT COUNTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-30}"; scale="${2:-10}"; shift 2 || true
counts=("${@:-1 4 8 16}"); counts=(${counts[@]}); rounds="${ROUNDS:-4}"; mode="${MODE:-prepared}"
export PGSSLMODE="${PGSSLMODE:-disable}"
case "${SYNC:-}" in
  "") ;; off) export PGOPTIONS="${PGOPTIONS:+$PGOPTIONS }-c synchronous_commit=off" ;;
  *) echo "SYNC: only off is known (unset: the server's setting)" >&2; exit 2 ;;
esac
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
[ -x "$pg_bin/pgbench" ] || { echo "pgbench missing: scripts/setup-servers.sh" >&2; exit 1; }
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
"$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
cores=$(nproc)
tps() { awk '/^tps = / {print $3; exit}'; }
# What a run has cost so far, read outside the tool: the time, the tool's CPU (all its threads)
# and the server's (the postmaster's own and its reaped children's, and each live child's), in
# clock ticks, and the machine's idle, stolen (by the hypervisor) and total ticks.
snapshot() {
  python3 - "$1" "$(head -1 "$work/data/postmaster.pid")" <<'PY'
import sys, time
tool, pm = sys.argv[1:]
def fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()
client = sum(int(x) for x in fields(tool)[11:13])  # utime stime
server = sum(int(x) for x in fields(pm)[11:15])  # utime stime cutime cstime
for pid in open(f"/proc/{pm}/task/{pm}/children").read().split():
    try:
        server += sum(int(x) for x in fields(pid)[11:13])
    except FileNotFoundError:
        pass  # ended between the listing and the read: counted in the reaped
cpu = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
print(time.monotonic(), client, server, cpu[3] + cpu[4], cpu[7], sum(cpu))
PY
}
# One run of a tool, with -P 1: its TPS on stdout; its steady state's cost a transaction (from
# a fifth of the run to four fifths; the transactions are its progress lines' in that window)
# appended to cpu.txt.
timed() {
  local tool=$1 c=$2 r=$3; shift 3
  "$@" -P 1 > "$work/out" 2>&1 &
  local pid=$! start
  start=$(python3 -c 'import time; print(time.monotonic())')
  sleep "$(python3 -c "print($secs * 0.2)")"; local a; a=$(snapshot "$pid")
  sleep "$(python3 -c "print($secs * 0.6)")"; local b; b=$(snapshot "$pid")
  wait "$pid" || true
  python3 - "$tool" "$c" "$r" "$(getconf CLK_TCK)" "$start" "$a" "$b" "$work/out" >> "$work/cpu.txt" <<'PY'
import re, sys
tool, c, r, hz, start, a, b, out = sys.argv[1:]
(t0, c0, s0, i0, v0, n0), (t1, c1, s1, i1, v1, n1) = ([float(x) for x in s.split()] for s in (a, b))
start, hz = float(start), int(hz)
# pgbench's progress line: "progress: 5.0 s, 4321.0 tps, ..." (each second's own rate)
rates = [(float(t), float(x)) for t, x in re.findall(r"progress: ([\d.]+) s, ([\d.]+) tps", open(out).read())]
inside = [x for t, x in rates if t0 - start < t - 0.5 <= t1 - start]
if inside:
    n = sum(inside) / len(inside) * (t1 - t0)
    print(c, r, tool, f"{(c1 - c0) / hz * 1e6 / n:.1f}", f"{(s1 - s0) / hz * 1e6 / n:.1f}",
          f"{(i1 - i0) / (n1 - n0):.4f}", f"{(v1 - v0) / (n1 - n0):.4f}", f"{n / (t1 - t0):.1f}")
PY
  tail -1 "$work/cpu.txt" >&2
  tps < "$work/out"
}
: > "$work/figures.txt"; : > "$work/cpu.txt"
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
        pgbench) pg=$(timed pgbench "$c" "$r" "$pg_bin/pgbench" "${args[@]}" "${conn[@]}" hakari_bench) ;;
        hakari) hk=$(timed hakari "$c" "$r" "$HAKARI_BIN" pgbench "${args[@]}" --out "$work/hk" "${conn[@]}" hakari_bench) ;;
        old) old=$(timed old "$c" "$r" "$OLD" pgbench "${args[@]}" --out "$work/old" "${conn[@]}" hakari_bench) ;;
      esac
    done
    echo "$c $r $pg $hk $old" | tee -a "$work/figures.txt"
  done
done
PYTHONPATH=bench python3 - "$work/figures.txt" "$secs" "$scale" "$mode" "$PGSSLMODE" "${PGOPTIONS:-}" "$work/cpu.txt" <<'PY'
import statistics as st, sys
from median import interval
rows = [l.split() for l in open(sys.argv[1])]
print(f"\nscale {sys.argv[3]}, {sys.argv[2]} s per run, -M {sys.argv[4]}, sslmode={sys.argv[5]}, PGOPTIONS='{sys.argv[6]}';"
      " medians over rounds (TPS), and a bootstrap 95% interval of the median ratio")
old = all(len(r) == 5 for r in rows)
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
cpu = [l.split() for l in open(sys.argv[7])]
print("\nEach run's steady state, read from /proc: CPU a transaction (µs, the client's and the server's), the client's"
      " share of the two (a measure the machine's wandering speed, which moves both, moves far less), the share of the"
      " cores left idle and the share the hypervisor took; medians over rounds, and for hakari the median of the"
      " rounds' ratios to pgbench's with its bootstrap 95% interval")
print("clients  tool      client  server  client share  idle   stolen  client/pgbench  interval     server/pgbench  interval"
      "     share/pgbench  interval")
for c in dict.fromkeys(r[0] for r in cpu):
    rows = {(r[1], r[2]): [float(x) for x in r[3:7]] for r in cpu if r[0] == c}
    for r in rows.values():
        r.insert(2, r[0] / (r[0] + r[1]))  # client, server, share, idle, stolen
    for tool in dict.fromkeys(t for _, t in rows):
        own = {k: v for k, v in rows.items() if k[1] == tool}
        med = [st.median(v[i] for v in own.values()) for i in range(5)]
        line = f"{c:>7}  {tool:<8} {med[0]:7.1f} {med[1]:7.1f}  {med[2]:12.3f}  {med[3]:.3f}  {med[4]:.3f}"
        pairs = [(v, rows[(k[0], "pgbench")]) for k, v in own.items() if (k[0], "pgbench") in rows]
        if tool != "pgbench" and pairs:
            for i in (0, 1, 2):
                x = [a[i] / b[i] for a, b in pairs]
                line += f"  {st.median(x):14.3f}  {interval(x)}"
        print(line)
PY
