#!/usr/bin/env bash
# tpcc's load beside PostgreSQL's own COPY of the same rows from CSV files, on one private
# PostgreSQL, WAREHOUSES warehouses, the two alternating, ROUNDS rounds.
#
# The rows: one hakari load kept (--keep) and written out with COPY ... TO, one CSV file per
# table; its table definitions taken with pg_dump (pre-data: the tables; post-data: the keys and
# the two indexes). The reference loads them as an expert would for the fastest correct load:
# the server reads the files itself (COPY FROM a file, no client in between), each table made
# and filled in one transaction with FREEZE (no vacuum needed after), the tables in two sessions
# at once (one per core: order_line alone, the rest in the other), then the keys and indexes
# (two sessions), then ANALYZE. hakari's figure is its load step (create, generate, COPY in one
# stream per core, keys, indexes, VACUUM ANALYZE), from its result file. Prints each round and
# the medians' ratio reference / hakari (above 1: hakari loads faster).
#   ROUNDS=3 bench/tpcc_load_compare.sh [WAREHOUSES]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
warehouses="${1:-10}"; rounds="${ROUNDS:-3}"; export PGSSLMODE=disable
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/tpcc_load_rounds.sh
. bench/private_postgres.sh
psql=("$pg_bin/psql" -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres hakari_bench)
tables="warehouse district customer history new_order orders order_line item stock"
hakari_load() { # $1: out dir; prints the load step's seconds
  "$HAKARI_BIN" run tpcc --engine postgres --url "$url" --warehouses "$warehouses" --clients 1 \
    --duration 1 --ramp-up 0 --check none "${@:2}" --out "$1" >/dev/null 2>&1
  load_seconds "$1"
}

echo "preparing: $warehouses warehouse(s) loaded once and written out as CSV" >&2
hakari_load "$work/prep" --keep >/dev/null
mkdir "$work/csv"; [ "$(id -u)" -eq 0 ] && chown postgres "$work/csv"
for t in $tables; do
  "${psql[@]}" -c "COPY hakari.hakari_tpcc_$t TO '$work/csv/$t.csv' (FORMAT csv)"
done
dump=("$pg_bin/pg_dump" -h 127.0.0.1 -p "$pg_port" -U postgres -n hakari -t 'hakari.hakari_tpcc_*' hakari_bench)
"${dump[@]}" --section=pre-data | sed 's/hakari\.hakari_tpcc_/ref_/g' > "$work/tables.sql"
"${dump[@]}" --section=post-data | sed 's/hakari\.hakari_tpcc_/ref_/g; s/ hakari_tpcc_/ ref_/g' > "$work/keys.sql"
"${psql[@]}" -c "DROP SCHEMA hakari CASCADE"

reference() { # prints the seconds of the whole reference load
  local start; start=$(date +%s.%N)
  # Each table made and filled in one transaction, so COPY can FREEZE its rows.
  for t in $tables; do
    ddl=$(python3 - "$work/tables.sql" "$t" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"CREATE TABLE ref_%s \(.*?\);" % sys.argv[2], text, re.S)
print(m.group(0))
PY
)
    echo "BEGIN; $ddl COPY ref_$t FROM '$work/csv/$t.csv' (FORMAT csv, FREEZE); COMMIT;" > "$work/load_$t.sql"
  done
  "${psql[@]}" -f "$work/load_order_line.sql" &
  for t in $tables; do [ "$t" = order_line ] || "${psql[@]}" -f "$work/load_$t.sql"; done
  wait
  # Keys and indexes in two sessions, then the planner's statistics.
  grep -E '^(ALTER TABLE|CREATE INDEX|    ADD CONSTRAINT)' "$work/keys.sql" | python3 -c "
import sys
lines = sys.stdin.read().replace('\n    ADD', ' ADD').splitlines()
for i, part in enumerate((lines[0::2], lines[1::2])):
    open('$work/keys_%d.sql' % i, 'w').write('\n'.join(part) + '\n')
"
  "${psql[@]}" -f "$work/keys_0.sql" & "${psql[@]}" -f "$work/keys_1.sql"; wait
  "${psql[@]}" -c "ANALYZE"
  python3 -c "print($(date +%s.%N) - $start)"
  for t in $tables; do "${psql[@]}" -c "DROP TABLE ref_$t"; done
}

figures="$work/figures.txt"
rounds "PostgreSQL COPY FROM files"
