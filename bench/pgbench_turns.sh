#!/usr/bin/env bash
# How the server's backends spend a run under `pgbench` and under `hakari pgbench`: the same
# command line (-c N -j min(N, cores) -T SECONDS -M prepared, pgbench's built-in TPC-B) on one
# private PostgreSQL, the two alternating which goes first, ROUNDS rounds. Per run: TPS; the
# backends' wait events, sampled every 10 ms by pg_wait_sampling inside the server, per 1,000
# transactions (Client:ClientRead is a backend waiting for its client's next statement); and,
# where perf is installed, `perf sched latency` over the middle third of the run: each side's
# CPU time and mean delay from wake-up to running, for the clients' threads and the backends;
# where each core's time went (idle, the client's threads, the backends); each busy client
# thread's and backend's time by core (two on one core wait for each other); how often the
# client's own threads wake each other (each such wake-up can put the two on one core); of the
# wake-ups between a client's thread and a backend, the share put on the waker's own core (a
# backend answering its client on the core they share, rather than waking the other); for each
# busy client thread, how often it woke each of its backends (a statement sent to a backend
# asleep) and where each ran; and on which cores the interrupts of the disk holding the
# server's data landed (a backend waiting for its commit's flush is woken from there); and,
# over the whole run, the interrupts one core sent the other a transaction (rescheduling, function calls, TLB shootdowns: wake-ups that cross cores).
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
# Each core's time by side, from the switches; the wake-ups between the two sides, by whether
# the woken task was put on the waker's core.
placement='
import collections, re, sys
side = lambda comm: "client" if comm.startswith(("pgbench", "hakari")) else "backends" if comm.startswith("postgres") else "idle" if comm.startswith("swapper") else "other"
last, running, spent, woken, threads = {}, {}, collections.Counter(), collections.Counter(), collections.Counter()
running_pid, inner, served = {}, collections.Counter(), collections.Counter()
first = final = None
for line in sys.stdin:
    m = re.match(r"\s*\[(\d+)\]\s+([\d.]+):\s+sched:(sched_switch|sched_waking): (.*)", line)
    if not m:
        continue
    cpu, at, event, rest = int(m[1]), float(m[2]), m[3], m[4]
    first, final = first if first is not None else at, at
    if event == "sched_switch":
        if cpu in last:
            prev = re.search(r"prev_comm=(.*?) prev_pid=(\d+)", rest)
            who = side(prev[1])
            spent[cpu, who] += at - last[cpu]
            if who in ("client", "backends"):
                threads[who, int(prev[2]), cpu] += at - last[cpu]
        nxt = re.search(r"next_comm=(.*?) next_pid=(\d+)", rest)
        last[cpu], running[cpu], running_pid[cpu] = at, side(nxt[1]), int(nxt[2])
    elif cpu in running:
        w = re.search(r"comm=(.*?) pid=(\d+) prio=\d+ target_cpu=(\d+)", rest)
        pair = {running[cpu], side(w[1])}
        if pair == {"client", "backends"}:
            woken[int(w[3]) == cpu] += 1
            if running[cpu] == "client":
                served[running_pid[cpu], int(w[2])] += 1
        elif running[cpu] == side(w[1]) == "client" and running_pid[cpu] != int(w[2]):
            inner[int(w[3]) == cpu] += 1
for cpu in sorted({c for c, _ in spent}):
    total = sum(v for (c, _), v in spent.items() if c == cpu)
    print(f"  core {cpu} " + ", ".join(f"{s} {spent[cpu, s] / total:.2f}" for s in ("idle", "client", "backends", "other")))
# Each busy client thread and backend (a tenth of a core or more over the window): the share of
# its time on each core; threads that share one core wait for each other.
window = final - first if first is not None else 0
cores = sorted({c for c, _ in spent})
for who, name in (("client", "client threads"), ("backends", "backends")):
    shown = []
    for pid in sorted({p for s, p, _ in threads if s == who}):
        on = sum(threads[who, pid, c] for c in cores)
        if window and on / window >= 0.1:
            shown.append(f"{pid} " + " ".join(f"{threads[who, pid, c] / on:.2f}" for c in cores) + f" ({on / window:.2f} of a core)")
    if shown:
        print(f"  {name}, share of each one'"'"'s time on core " + ", ".join(map(str, cores)) + ": " + "; ".join(shown))
if window:
    print(f"  wake-ups between the client'"'"'s own threads: {sum(inner.values()) / window:.1f} a second, {inner[True]} of {sum(inner.values())} on the waker'"'"'s core")
# For each busy client thread, the backends it woke (a statement sent to a backend asleep) and
# where each ran; a pair on one core hands over without a wake-up between cores.
for pid in sorted({p for s, p, _ in threads if s == "client"}):
    on = sum(threads["client", pid, c] for c in cores)
    if not (window and on / window >= 0.1):
        continue
    mine = sorted(((n, b) for (t, b), n in served.items() if t == pid and n >= 100), reverse=True)
    where = lambda who, p: "/".join(f"{threads[who, p, c] / max(sum(threads[who, p, k] for k in cores), 1e-9):.2f}" for c in cores)
    woke = ", ".join(f"backend {b} {n} times (" + where("backends", b) + ")" for n, b in mine)
    print(f"  client thread {pid} (core shares " + where("client", pid) + ") woke " + woke)
if woken:
    print(f"  wake-ups between a client thread and a backend: {woken[True] / sum(woken.values()):.2f} on the waker'"'"'s core ({sum(woken.values())})")
'
# The disk under the server's data, by the name its interrupts carry (virtio1-req.0, nvme0q1):
# its interrupts so far, per core.
disk="$(findmnt -no SOURCE --target "$work" | sed 's|^/dev/||')"
[ -e "/sys/block/$disk" ] || disk="$(sed -E 's/p?[0-9]+$//' <<< "$disk")" # a partition's disk
irq_name="$(basename "$(readlink -f "/sys/block/$disk/device" 2>/dev/null)" 2>/dev/null || true)"
disk_irqs() {
  awk -v d="$irq_name" 'NR == 1 { n = NF; next }
    d != "" && $NF ~ "^" d "[-q]" && $NF !~ /config/ { for (i = 1; i <= n; i++) s[i] += $(i + 1) }
    END { for (i = 1; i <= n; i++) printf "%d ", s[i]; print "" }' /proc/interrupts
}
# Interrupts one core sends another, summed over the cores: RES (wake or preempt a task there),
# CAL (a function run there: among others, a wake-up queued to that core), TLB (shootdowns).
ipis() { awk '$1 ~ /^(RES|CAL|TLB):$/ { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print substr($1, 1, 3), s }' /proc/interrupts; }
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
    ipis_before="$(ipis)"
    "${run[@]}" > "$work/out" 2>/dev/null &
    if [ -n "$has_perf" ]; then
      sleep "$(( secs / 3 ))"
      irqs_before="$(disk_irqs)"
      perf sched record -o "$work/sched" -- sleep "$(( secs / 3 ))" >/dev/null 2>&1
      irqs_after="$(disk_irqs)"
    fi
    wait
    ipis_after="$(ipis)"
    tps=$(awk '/^tps = / {print $3; exit}' "$work/out")
    txn=$(awk '/actually processed/ {split($NF, a, "/"); print a[1]; exit}' "$work/out")
    printf '\nround %s, %s: %.1f TPS, %s transactions\n' "$r" "$tool" "$tps" "$txn"
    paste <(echo "$ipis_before") <(echo "$ipis_after") | awk -v n="$txn" '
      { line = line sprintf(" %s %.3f,", $1, ($4 - $2) / n) }
      END { print "  interrupts between cores a transaction (the whole run):" substr(line, 1, length(line) - 1) }'
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
          side = name == "postgres" ? "backends" : (name == "pgbench" || name ~ /^hakari/) ? "client" : ""
          if (side == "") next
          split($4, a, " "); run[side] += $2; n[side] += $3; delay[side] += a[2] * $3
        }
        END { for (s in n) printf "  sched  %-8s %8.1f ms on a core, %6d switches, mean wake-up delay %.3f ms\n", s, run[s], n[s], delay[s] / n[s] }'
      perf script -i "$work/sched" -F cpu,time,event,trace 2>/dev/null | python3 -c "$placement"
      printf '%s\n%s\n' "$irqs_before" "$irqs_after" | awk -v d="$disk ($irq_name)" '
        NR == 1 { split($0, b, " "); next }
        { n = split($0, a, " "); for (i = 1; i <= n; i++) { got[i] = a[i] - b[i]; all += got[i] } }
        END { if (all == 0) exit; line = "  disk " d " interrupts:"
              for (i = 1; i <= n; i++) line = line sprintf(" core %d %.2f,", i - 1, got[i] / all)
              print substr(line, 1, length(line) - 1) " (" all ")" }'
    fi
  done
done
