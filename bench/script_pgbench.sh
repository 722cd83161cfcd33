#!/usr/bin/env bash
# `hakari run script --builtin tpcb-like` beside `pgbench -b tpcb-like`, pgbench's own built-in
# "TPC-B (sort of)" on the same private PostgreSQL (each reads :scale from pgbench_branches);
# the same clients and duration; the two tools alternating, ROUNDS
# rounds per client count. pgbench runs as its users run it (-n, the default simple protocol,
# -j as many threads as cores, at most one per client) and, for reference, with -M prepared
# (hakari always prepares). Both on the same wire, each wire in WIRES in turn: plain
# (sslmode=disable for both) and tls (sslmode=require for both; the server is the bench's
# private one, which offers TLS as Debian's does). Prints the TPS of each and the ratios.
#   ROUNDS=3 WIRES="plain tls" bench/script_pgbench.sh [SECONDS] [SCALE] [CLIENT COUNTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-10}"; scale="${2:-10}"; shift 2 || true
counts=("${@:-1 8 32}"); counts=(${counts[@]}); rounds="${ROUNDS:-3}"; wires=(${WIRES:-plain tls})
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_postgres.sh
[ -x "$pg_bin/pgbench" ] || { echo "pgbench missing: scripts/setup-servers.sh" >&2; exit 1; }
conn=(-h 127.0.0.1 -p "$pg_port" -U postgres)
"$pg_bin/pgbench" -i -q -s "$scale" "${conn[@]}" hakari_bench >/dev/null 2>&1
cores=$(nproc)
tps_of() { # RESULT-DIR: the run's transactions per second
  python3 -c "import json,glob; r=json.load(open(glob.glob('$1/*.json')[0])); print([m for m in r['measurements'] if m['step']=='run'][0]['ops_per_sec_mean'])"
}
: > "$work/figures.txt"
for wire in "${wires[@]}"; do
  case "$wire" in plain) mode=disable ;; tls) mode=require ;; *) echo "unknown wire $wire" >&2; exit 2 ;; esac
  export PGSSLMODE=$mode
for c in "${counts[@]}"; do
  j=$(( c < cores ? c : cores ))
  for r in $(seq "$rounds"); do
    pg=$("$pg_bin/pgbench" -n -b tpcb-like -c "$c" -j "$j" -T "$secs" "${conn[@]}" hakari_bench 2>/dev/null \
         | awk '/^tps/ {print $3; exit}')
    "$HAKARI_BIN" run script --builtin tpcb-like --engine postgres --url "$url?sslmode=$mode" \
      --clients "$c" --duration "$secs" --out "$work/hk-$wire-$c-$r" >/dev/null 2>&1
    hk=$(tps_of "$work/hk-$wire-$c-$r")
    pgp=$("$pg_bin/pgbench" -n -M prepared -b tpcb-like -c "$c" -j "$j" -T "$secs" "${conn[@]}" hakari_bench 2>/dev/null \
         | awk '/^tps/ {print $3; exit}')
    echo "$wire $c $r $pg $hk $pgp" | tee -a "$work/figures.txt"
  done
done
done
python3 - "$work/figures.txt" "$secs" "$scale" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"\nscale {sys.argv[3]}, {sys.argv[2]} s per run, medians over rounds (TPS)")
print("wire   clients  pgbench -b  hakari script  ratio  | pgbench -M prepared  ratio")
for w, c in dict.fromkeys((r[0], r[1]) for r in rows):
    rs = [r for r in rows if (r[0], r[1]) == (w, c)]
    pg, hk, pgp = (st.median(float(r[i]) for r in rs) for i in (3, 4, 5))
    print(f"{w:<5}  {c:>7}  {pg:10.1f}  {hk:13.1f}  {hk / pg:5.3f}  | {pgp:19.1f}  {hk / pgp:5.3f}")
PY
