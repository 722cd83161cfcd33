#!/usr/bin/env bash
# hakari's time series and open loop beside pgbench's, on the same private PostgreSQL (scale 1,
# 100,000 accounts, prepared statements, the server's defaults: fsync and synchronous commit on),
# ROUNDS rounds, the two tools alternating (these machines are noisy). pgbench runs hakari's
# tpcb: tables made from its schema (src/workload/tpcb/sql/schema.sql: TPC-B's 100-byte records,
# where pgbench -i leaves branch and teller fillers empty) and loaded with the same rows, afresh
# before each run, and a script of hakari's statements (transaction.sql), so the two differ only
# in the driver:
#   1. closed loop with a line per second: pgbench -P 1 against hakari --interval 1 (TPS ratio);
#   2. rate accuracy: hakari --rate at 50% and 90% of the closed-loop TPS it measured (achieved
#      / asked);
#   3. latency at a fixed rate (50% of capacity): pgbench -R -l (its per-transaction log; with
#      --rate, pgbench's `time` counts from the scheduled start) against hakari --rate --arrival
#      poisson (pgbench's arrivals are a Poisson process): p50 and p99 of each, and their ratios.
#   ROUNDS=3 bench/timing_pgbench.sh [SECONDS] [CLIENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-10}"; clients="${2:-4}"; rounds="${ROUNDS:-3}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
bin="$pg_bin"; port="$pg_port"
[ -x "$bin/pgbench" ] || { echo "pgbench missing: scripts/setup-servers.sh" >&2; exit 1; }
psql=("$bin/psql" -q -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres hakari_bench)
schema=$(sed -e 's/{p}/pgbench_/g; s/{bigint}/BIGINT/g' src/workload/tpcb/sql/schema.sql)
tables() { # hakari's tables and rows at scale 1 (src/workload/tpcb/tables.rs), vacuumed as hakari does
  "${psql[@]}" -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS pgbench_history, pgbench_accounts, pgbench_tellers, pgbench_branches" \
    -c "$schema" \
    -c "INSERT INTO pgbench_branches VALUES (1, 0, repeat(' ', 88))" \
    -c "INSERT INTO pgbench_tellers SELECT t, 1, 0, repeat(' ', 84) FROM generate_series(1, 10) t" \
    -c "INSERT INTO pgbench_accounts SELECT a, 1, 0, repeat(' ', 84) FROM generate_series(1, 100000) a" \
    -c "VACUUM ANALYZE pgbench_branches" -c "VACUUM ANALYZE pgbench_tellers" \
    -c "VACUUM ANALYZE pgbench_accounts" -c "VACUUM ANALYZE pgbench_history"
}
# hakari's statements, in its order, each '?' given the pgbench variable hakari binds there.
python3 - src/workload/tpcb/sql/transaction.sql > "$work/tpcb.sql" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]) if l.strip() and not l.startswith("--")][:5]
params = [["delta", "aid"], ["aid"], ["delta", "tid"], ["delta", "bid"], ["tid", "bid", "aid", "delta"]]
print("\\set aid random(1, 100000)\n\\set bid 1\n\\set tid random(1, 10)\n\\set delta random(-5000, 5000)\nBEGIN;")
for line, names in zip(lines, params):
    for n in names:
        line = line.replace("?", ":" + n, 1)
    assert "?" not in line, line
    print(line.replace("{p}", "pgbench_").strip())
print("END;")
PY
pgb=("$bin/pgbench" -n -M prepared -f "$work/tpcb.sql" -c "$clients" -j "$clients" -T "$secs" -h 127.0.0.1 -p "$port" -U postgres)
hk=("$HAKARI_BIN" run tpcb --engine postgres --url "$url" --scale 1 --accounts-per-branch 100000
    --clients "$clients" --duration "$secs" --runs 1)
figure() { # FILE PYTHON-EXPRESSION-ON-m: a figure of the one measurement of a result file
  python3 -c "import json,glob,sys; m=json.load(open(glob.glob('$1/*.json')[0]))['measurements'][0]; print($2)"
}
pg_percentiles() { # LOG-FILES...: p50 and p99 of pgbench's per-transaction time, in us
  cat "$@" | python3 -c "
import sys
t = sorted(int(l.split()[2]) for l in sys.stdin)
q = lambda p: t[min(len(t) - 1, int(p * len(t)))]
print(q(0.50), q(0.99), len(t))"
}
: > "$work/figures.txt"
for r in $(seq "$rounds"); do
  tables
  pg=$("${pgb[@]}" -P 1 hakari_bench 2>/dev/null | awk '/^tps/ {print $3; exit}')
  "${hk[@]}" --interval 1 --out "$work/closed-$r" >/dev/null 2>&1
  hkt=$(figure "$work/closed-$r" "m['ops_per_sec_mean']")
  echo "closed $r $pg $hkt" | tee -a "$work/figures.txt"
done
capacity=$(awk '$1 == "closed" {print $4}' "$work/figures.txt" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
for share in 0.5 0.9; do
  rate=$(python3 -c "print(round($capacity * $share))")
  for r in $(seq "$rounds"); do
    "${hk[@]}" --rate "$rate" --out "$work/rate-$share-$r" >/dev/null 2>&1
    achieved=$(figure "$work/rate-$share-$r" "m['ops_per_sec_mean']")
    lag=$(figure "$work/rate-$share-$r" "m['open_loop']['lag']['p99_us']")
    echo "rate $share $rate $achieved $lag" | tee -a "$work/figures.txt"
  done
done
rate=$(python3 -c "print(round($capacity * 0.5))")
for r in $(seq "$rounds"); do
  rm -f "$work"/pgbench_log.*
  tables
  (cd "$work" && "${pgb[@]}" -R "$rate" -l hakari_bench >/dev/null 2>&1)
  read -r p50 p99 n < <(pg_percentiles "$work"/pgbench_log.*)
  # pgbench -R spaces its starts as a Poisson process: the same arrivals here.
  "${hk[@]}" --rate "$rate" --arrival poisson --out "$work/fixed-$r" >/dev/null 2>&1
  h50=$(figure "$work/fixed-$r" "m['latency']['p50_us']")
  h99=$(figure "$work/fixed-$r" "m['latency']['p99_us']")
  s99=$(figure "$work/fixed-$r" "m['open_loop']['service']['p99_us']")
  echo "fixed $r $rate $p50 $p99 $h50 $h99 $s99 $n" | tee -a "$work/figures.txt"
done
python3 - "$work/figures.txt" "$clients" "$secs" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
med = lambda xs: st.median(float(x) for x in xs)
closed = [r for r in rows if r[0] == "closed"]
print(f"\n{sys.argv[2]} clients, {sys.argv[3]} s per run, medians over {len(closed)} rounds")
pg, hk = med(r[2] for r in closed), med(r[3] for r in closed)
print(f"closed loop, a line per second: pgbench -P 1 {pg:.1f} TPS, hakari --interval 1 {hk:.1f} TPS, ratio {hk / pg:.3f}")
for share in ("0.5", "0.9"):
    rs = [r for r in rows if r[0] == "rate" and r[1] == share]
    asked, got = float(rs[0][2]), med(r[3] for r in rs)
    print(f"open loop at {float(share):.0%} of capacity: asked {asked:.0f}/s, achieved {got:.1f}/s ({got / asked:.4f}), lag p99 {med(r[4] for r in rs):.0f} us")
fx = [r for r in rows if r[0] == "fixed"]
p50, p99, h50, h99, s99 = (med(r[i] for r in fx) for i in (3, 4, 5, 6, 7))
print(f"latency at {fx[0][2]}/s: pgbench -R p50 {p50:.0f} us p99 {p99:.0f} us; hakari --rate p50 {h50:.0f} us p99 {h99:.0f} us"
      f" (ratios {h50 / p50:.3f}, {h99 / p99:.3f}); hakari's service p99 {s99:.0f} us")
PY
