#!/usr/bin/env bash
# Percona-Lab's sysbench-tpcc through `hakari run sysbench`, unchanged: prepare, run and its
# `check` command on a private MariaDB (DRIVER=mysql) or PostgreSQL (DRIVER=pgsql), with
# sysbench's own prepare timed beside hakari's. The scripts are read from a checkout of
# https://github.com/Percona-Lab/sysbench-tpcc given as the first argument (never copied here).
#   DRIVER=mysql bench/sysbench_tpcc.sh path/to/sysbench-tpcc [WAREHOUSES] [THREADS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
tpcc="$(cd "${1:?usage: bench/sysbench_tpcc.sh path/to/sysbench-tpcc [WAREHOUSES] [THREADS] [SECONDS]}" && pwd)"
scale="${2:-1}"; threads="${3:-2}"; secs="${4:-30}"; driver="${DRIVER:-mysql}"
export PGSSLMODE="${PGSSLMODE:-disable}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
case "$driver" in
  mysql)
    . bench/private_mariadb.sh
    "${my_client[@]}" -e "CREATE DATABASE by_sysbench"
    conn() { echo --db-driver=mysql --mysql-socket="$my_socket" --mysql-user=root --mysql-db="$1"; }
    out="$my_work" ;;
  pgsql)
    . bench/private_postgres.sh
    "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres by_sysbench
    conn() { echo --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$pg_port" --pgsql-user=postgres --pgsql-db="$1"; }
    out="$work" ;;
  *) echo "DRIVER is mysql or pgsql" >&2; exit 2 ;;
esac
size=(--scale="$scale" --tables=1)
cd "$tpcc"
t0=$(date +%s.%N)
sysbench ./tpcc.lua $(conn by_sysbench) "${size[@]}" --threads="$threads" prepare >/dev/null
t1=$(date +%s.%N)
"$HAKARI_BIN" run sysbench --out "$out/hk" ./tpcc.lua $(conn hakari_bench) "${size[@]}" --threads="$threads" prepare >/dev/null
t2=$(date +%s.%N)
echo "prepare, $scale warehouse(s), $threads threads: sysbench $(echo "$t1 - $t0" | bc) s, hakari $(echo "$t2 - $t1" | bc) s"
"$HAKARI_BIN" run sysbench --out "$out/hk" ./tpcc.lua $(conn hakari_bench) "${size[@]}" --threads="$threads" --time="$secs" run \
  | sed -n '/^sysbench/,/^$/p'
checks=$("$HAKARI_BIN" run sysbench --out "$out/hk" ./tpcc.lua $(conn hakari_bench) "${size[@]}" check)
echo "$checks" | grep -E "PASSED|FAILED" | sort | uniq -c | sed 's/warehouse.*//' | awk '{print $NF}' | sort | uniq -c
! echo "$checks" | grep -q FAILED
