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
# Every run is one row of CSV; bench/pgbench_rounds.py prints the summary from them.
# RECORD=file.csv appends pgbench's and hakari's rows there too, each as its run ends (with the
# machine's name, MACHINE or the host's and its boot's, and the commit of the code built; an OLD=
# build's rows stay out), so rounds from several machines can be pooled:
# `python3 bench/pgbench_rounds.py bench/pgbench_rounds.csv` (the rounds kept so far).
# A run that gives no TPS leaves its round out of the summary, saying so; its output is kept.
#   ROUNDS=4 MODE=prepared [SYNC=off] [OLD=...] [RECORD=...] bench/pgbench_cli.sh [SECONDS] [SCALE] [CLIENT COUNTS...]
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
# One run of a tool, with -P 1: its row (TPS, and its steady state's cost a transaction, from a
# fifth of the run to four fifths; the transactions are its progress lines' in that window)
# appended to runs.csv; its TPS on stdout, "-" if it gave none.
timed() {
  local tool=$1 c=$2 j=$3 r=$4; shift 4
  "$@" -P 1 > "$work/out" 2>&1 &
  local pid=$! start
  start=$(python3 -c 'import time; print(time.monotonic())')
  sleep "$(python3 -c "print($secs * 0.2)")"; local a; a=$(snapshot "$pid" 2>/dev/null || true)
  sleep "$(python3 -c "print($secs * 0.6)")"; local b; b=$(snapshot "$pid" 2>/dev/null || true)
  wait "$pid" || true
  python3 - "$tool" "$c" "$j" "$r" "$(getconf CLK_TCK)" "$start" "$a" "$b" "$work/out" "$work/runs.csv" "${RECORD:-}" <<'PY'
import csv, os, re, sys, tempfile
tool, c, j, r, hz, start, a, b, out, runs, record = sys.argv[1:]
text = open(out, errors="replace").read()
tps = re.search(r"^tps = ([\d.]+)", text, re.M)
row = {"tool": tool, "clients": c, "threads": j, "round": r, "tps": tps.group(1) if tps else "-"}
# pgbench's progress line: "progress: 5.0 s, 4321.0 tps, ..." (each second's own rate)
rates = [(float(t), float(x)) for t, x in re.findall(r"progress: ([\d.]+) s, ([\d.]+) tps", text)]
if a and b:
    (t0, c0, s0, i0, v0, n0), (t1, c1, s1, i1, v1, n1) = ([float(x) for x in s.split()] for s in (a, b))
    start, hz = float(start), int(hz)
    inside = [x for t, x in rates if t0 - start < t - 0.5 <= t1 - start]
    if inside:
        n = sum(inside) / len(inside) * (t1 - t0)
        row.update(window_tps=f"{n / (t1 - t0):.1f}", client_us=f"{(c1 - c0) / hz * 1e6 / n:.1f}",
                   server_us=f"{(s1 - s0) / hz * 1e6 / n:.1f}", idle=f"{(i1 - i0) / (n1 - n0):.4f}",
                   stolen=f"{(v1 - v0) / (n1 - n0):.4f}")
row.update({k: os.environ["RUN_" + k.upper()] for k in ("batch", "machine", "build", "seconds", "scale", "mode", "sslmode", "pgoptions")})
columns = open(runs).readline().strip().split(",")
for path in [runs] + ([record] if record and tool != "old" else []):
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, columns, restval="-")
        if new:
            writer.writeheader()
        writer.writerow(row)
print(",".join(row.get(k, "-") for k in columns), file=sys.stderr)
if not tps:
    fd, kept = tempfile.mkstemp(prefix=f"pgbench_cli-{tool}-{c}clients-round{r}-", suffix=".txt")
    os.write(fd, text.encode())
    print(f"{tool}, {c} clients, round {r}: no TPS; its output is in {kept}; its last lines:", file=sys.stderr)
    print("".join(text.splitlines(True)[-5:]), end="", file=sys.stderr)
print(row["tps"])
PY
}
# What every row names besides its run: the batch (this invocation), the machine, the build.
export RUN_BATCH RUN_MACHINE RUN_BUILD RUN_SECONDS RUN_SCALE RUN_MODE RUN_SSLMODE RUN_PGOPTIONS
RUN_BATCH=$(date -u +%Y-%m-%dT%H:%M:%SZ); RUN_MACHINE="${MACHINE:-$(hostname)-$(cut -c1-8 /proc/sys/kernel/random/boot_id)}"
# The build: the last commit that changed what is built (later commits of docs and benches
# leave the binary as it was), "-dirty" if the checkout's code differs from it.
built=(src Cargo.toml Cargo.lock build.rs)
RUN_BUILD="$(git log -1 --format=%h -- "${built[@]}" 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- "${built[@]}" 2>/dev/null || echo -dirty)"
[ "$(stat -c %Y "$HAKARI_BIN")" -ge "$(git log -1 --format=%ct -- "${built[@]}")" ] ||
  echo "note: $HAKARI_BIN is older than the last commit to its code ($RUN_BUILD), which its rows name" >&2
RUN_SECONDS="$secs"; RUN_SCALE="$scale"; RUN_MODE="$mode"; RUN_SSLMODE="$PGSSLMODE"; RUN_PGOPTIONS="${PGOPTIONS:-}"
echo batch,machine,build,clients,threads,seconds,scale,mode,sslmode,pgoptions,round,tool,tps,window_tps,client_us,server_us,idle,stolen > "$work/runs.csv"
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
        pgbench) pg=$(timed pgbench "$c" "$j" "$r" "$pg_bin/pgbench" "${args[@]}" "${conn[@]}" hakari_bench) ;;
        hakari) hk=$(timed hakari "$c" "$j" "$r" "$HAKARI_BIN" pgbench "${args[@]}" --out "$work/hk" "${conn[@]}" hakari_bench) ;;
        old) old=$(timed old "$c" "$j" "$r" "$OLD" pgbench "${args[@]}" --out "$work/old" "${conn[@]}" hakari_bench) ;;
      esac
    done
    echo "$c clients, round $r: pgbench $pg, hakari $hk${old:+, old $old}"
  done
done
echo
PYTHONPATH=bench python3 bench/pgbench_rounds.py "$work/runs.csv"
