#!/usr/bin/env bash
# The odbc engine against the native postgres and mysql engines on the same private servers:
# tpcb (TPS at each client count, alternating odbc and native, several rounds) and the TPC-H
# "load tables" step at SF 0.1 (ODBC arrays of parameters against COPY and multi-row INSERT). Prints each run
# and the ratio odbc / native.
#   bench/odbc_native.sh [ROUNDS] [SECONDS] [CLIENTS] [SF]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ROUNDS=${1:-3}
SECS=${2:-10}
CLIENTS=${3:-1,8}
SF=${4:-0.1}
cargo build --release --quiet
H="$CARGO_TARGET_DIR/release/hakari"
. bench/private_postgres.sh
pg_work=$work
. bench/private_mariadb.sh
trap 'stop_private_mariadb; work=$pg_work; stop_private_postgres' EXIT
"${my_client[@]}" -e "CREATE DATABASE hakari_odbc"
pg_odbc="odbc:Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=$pg_port;Database=hakari_bench;UID=postgres"
my_odbc="odbc:Driver={MariaDB Unicode};Socket=$my_socket;Database=hakari_odbc;UID=root"
OUT=$(mktemp -d)
# figure FILE STEP THREADS: the mean ops/s of tpcb at THREADS, or a tpch step's seconds.
figure() {
  python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = [m for m in r["measurements"] if m["step"] == sys.argv[2] and sys.argv[3] in ("", str(m["threads"]))]
print(m[0]["ops_per_sec_mean"] if sys.argv[2] == "tpcb" else m[0]["runs"][0]["seconds"])
PY
}
run() { rm -rf "$OUT"/*; "$H" "$@" --out "$OUT" >/dev/null 2>&1; ls "$OUT"/*.json; }
for server in postgres mysql; do
  if [ $server = postgres ]; then native_url=$url; odbc_url=$pg_odbc; else native_url=$my_url; odbc_url=$my_odbc; fi
  for round in $(seq "$ROUNDS"); do
    for c in ${CLIENTS//,/ }; do
      n=$(figure "$(run run tpcb --engine $server --url "$native_url" --clients "$c" --duration "$SECS" --runs 1)" tpcb "$c")
      o=$(figure "$(run run tpcb --engine odbc --url "$odbc_url" --clients "$c" --duration "$SECS" --runs 1)" tpcb "$c")
      python3 -c "import sys; n,o=map(float,sys.argv[1:]); print(f'tpcb $server round $round, $c clients: native {n:,.0f} TPS, odbc {o:,.0f} TPS, ratio {o/n:.3f}')" "$n" "$o"
    done
    n=$(figure "$(run run tpch --engine $server --url "$native_url" --sf "$SF" --streams 1)" "load tables" "")
    o=$(figure "$(run run tpch --engine odbc --url "$odbc_url" --sf "$SF" --streams 1)" "load tables" "")
    python3 -c "import sys; n,o=map(float,sys.argv[1:]); print(f'tpch load SF $SF $server round $round: native {n:.1f} s, odbc {o:.1f} s, ratio (native/odbc time) {n/o:.3f}')" "$n" "$o"
  done
done
rm -rf "$OUT"
