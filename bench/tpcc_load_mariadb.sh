#!/usr/bin/env bash
# tpcc's load beside the MariaDB client's LOAD DATA of the same rows from files, on one private
# MariaDB, WAREHOUSES warehouses, the two alternating, ROUNDS rounds.
#
# The rows: one hakari load kept (--keep) and written out with SELECT ... INTO OUTFILE, one file
# per table; the table definitions from SHOW CREATE TABLE. The reference loads them as an expert
# would: each table made with its primary key (InnoDB keeps rows in key order; the files are in
# key order), `mariadb --local-infile` running LOAD DATA LOCAL INFILE, order_line in one session
# and the other tables in a second (one per core), then the two secondary indexes (two
# sessions), then ANALYZE TABLE. hakari's figure is its load step from its result file. Prints
# each round and the medians' ratio reference / hakari (above 1: hakari loads faster).
# NET_BUFFER=4096 has the reference's client send the rows in packets of that size instead of
# its 16 KiB (the mysql crate hakari uses sends 4 KiB ones), to see what the packets cost.
# SPLIT_CORES=1 keeps the server on core 0 and every client (hakari, the `mariadb` ones) on core 1,
# as when the client has a machine of its own: what each way of loading costs the server, without
# hakari's generating of the rows taking cores the server loads on (the reference's clients only
# read files). Needs two cores or more.
#   ROUNDS=3 [NET_BUFFER=BYTES] [SPLIT_CORES=1] bench/tpcc_load_mariadb.sh [WAREHOUSES]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
warehouses="${1:-10}"; rounds="${ROUNDS:-3}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/tpcc_load_rounds.sh
. bench/private_mariadb.sh
if [ -n "${SPLIT_CORES:-}" ]; then
  [ "$(nproc)" -ge 2 ] || { echo "SPLIT_CORES needs two cores or more" >&2; exit 1; }
  # -a: every thread of the server; threads it starts later inherit the mask.
  taskset -a -p -c 0 "$(cat "$my_work/mysqld.pid")" >/dev/null
  taskset -p -c 1 $$ >/dev/null
fi
sql=("${my_client[@]}" hakari_bench)
packets=(); [ -n "${NET_BUFFER:-}" ] && packets=(--net-buffer-length="$NET_BUFFER")
tables="warehouse district customer history new_order orders order_line item stock"
hakari_load() { # $1: out dir; prints the load step's seconds
  "$HAKARI_BIN" run tpcc --engine mysql --url "$my_url" --warehouses "$warehouses" --clients 1 \
    --duration 1 --ramp-up 0 --check none "${@:2}" --out "$1" >/dev/null 2>"$1.err" \
    || { cat "$1.err" >&2; exit 1; }
  load_seconds "$1"
}

echo "preparing: $warehouses warehouse(s) loaded once and written out" >&2
hakari_load "$my_work/prep" --keep >/dev/null
mkdir "$my_work/rows"; [ "$(id -u)" -eq 0 ] && chown mysql "$my_work/rows"
for t in $tables; do
  "${sql[@]}" -e "SELECT * INTO OUTFILE '$my_work/rows/$t.txt' FROM hakari_tpcc_$t"
  # The table with its primary key only; the secondary indexes come after the rows.
  "${sql[@]}" -N -B -e "SHOW CREATE TABLE hakari_tpcc_$t" | cut -f2 | sed 's/\\n/\n/g' \
    | grep -v '^  KEY ' | sed "s/hakari_tpcc_$t/ref_$t/" \
    | python3 -c "import re,sys; print(re.sub(r',\s*\n\)', '\n)', sys.stdin.read()))" > "$my_work/create_$t.sql"
done
"${sql[@]}" -e "DROP TABLE $(echo $tables meta | sed 's/\([a-z_]*\)/hakari_tpcc_\1/g; s/ /, /g')"

reference() { # prints the seconds of the whole reference load
  local start; start=$(date +%s.%N)
  load() { "${sql[@]}" "${packets[@]}" -e "$(cat "$my_work/create_$1.sql"); LOAD DATA LOCAL INFILE '$my_work/rows/$1.txt' INTO TABLE ref_$1"; }
  load order_line &
  for t in $tables; do [ "$t" = order_line ] || load "$t"; done
  wait
  "${sql[@]}" -e "ALTER TABLE ref_customer ADD INDEX ref_customer_name (c_w_id, c_d_id, c_last, c_first)" &
  "${sql[@]}" -e "ALTER TABLE ref_orders ADD INDEX ref_orders_customer (o_w_id, o_d_id, o_c_id, o_id)"
  wait
  "${sql[@]}" -e "ANALYZE TABLE $(echo $tables | sed 's/\([a-z_]*\)/ref_\1/g; s/ /, /g')" >/dev/null
  python3 -c "print($(date +%s.%N) - $start)"
  "${sql[@]}" -e "DROP TABLE $(echo $tables | sed 's/\([a-z_]*\)/ref_\1/g; s/ /, /g')"
}

figures="$my_work/figures.txt"
rounds "mariadb LOAD DATA from files${NET_BUFFER:+ in $NET_BUFFER-byte packets}${SPLIT_CORES:+ (server on core 0, clients on core 1)}"
