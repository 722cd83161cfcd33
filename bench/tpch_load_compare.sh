#!/usr/bin/env bash
# Loading TPC-H two ways into one engine, alternating, ROUNDS times:
#   hakari  - `hakari run tpch`'s "load tables" step: rows made by the tpchgen crate and streamed
#             into the engine's bulk path while they are made (PostgreSQL COPY, MariaDB LOAD DATA
#             LOCAL INFILE, DuckDB's Appender fed tpchgen-arrow's record batches);
#   files   - the same crate writes dbgen .tbl files first (examples/tbl_files.rs, 2 threads, as
#             tpchgen-cli does), then the engine's own loader reads them: psql \copy, the
#             mariadb client's LOAD DATA LOCAL INFILE, DuckDB's COPY of all parts at once
#             (examples/duckdb_copy.rs).
# Both load the same keyless tables (src/workload/tpch/sql/schema.sql) on the same server (a
# private one started here; DuckDB: a fresh file each), hakari first in odd rounds, the files in
# even ones. Prints each round, then the medians and the ratio files / hakari (above 1: hakari is
# faster).
#   ROUNDS=2 bench/tpch_load_compare.sh [SF] [postgres|mysql|duckdb]   (OUT=DIR keeps result files)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
sf="${1:-1}"
engine="${2:-postgres}"
rounds="${ROUNDS:-1}"
cargo build --release --quiet --bin hakari --example tbl_files --example duckdb_copy
tables=(region nation part supplier partsupp customer orders lineitem)
# .tbl lines end with '|': one trailing column absorbs the empty field after it.
schema_for() { # $1: decimal type, $2: date type
  sed -e "s/{decimal}/$1/g; s/{date}/$2/g; s/{bigint}/BIGINT/g; s/);\$/, tbl_end VARCHAR(1));/" \
    -e '/^--/d' \
    src/workload/tpch/sql/schema.sql
}
case "$engine" in
  postgres)
    . bench/private_postgres.sh
    psql=("$pg_bin/psql" -q -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres hakari_bench)
    target=(--engine postgres --url "$url")
    create() { "${psql[@]}" -c "$(schema_for 'DECIMAL(15,2)' DATE)"; }
    load_files() {
      for t in "${tables[@]}"; do
        for f in "$work/tbl/$t".tbl.*; do
          "${psql[@]}" -c "\\copy $t FROM '$f' WITH (FORMAT text, DELIMITER '|')"
        done
      done
    }
    drop() { "${psql[@]}" -c "DROP TABLE $(IFS=,; echo "${tables[*]}")"; }
    ;;
  mysql)
    . bench/private_mariadb.sh
    work="$my_work"
    target=(--engine mysql --url "$my_url")
    create() { "${my_client[@]}" hakari_bench -e "$(schema_for 'DECIMAL(15,2)' DATE)"; }
    load_files() {
      for t in "${tables[@]}"; do
        for f in "$work/tbl/$t".tbl.*; do
          "${my_client[@]}" hakari_bench -e "LOAD DATA LOCAL INFILE '$f' INTO TABLE $t FIELDS TERMINATED BY '|' LINES TERMINATED BY '\n'"
        done
      done
    }
    drop() { "${my_client[@]}" hakari_bench -e "DROP TABLE $(IFS=,; echo "${tables[*]}")"; }
    ;;
  duckdb)
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    target=(--engine duckdb --data-dir "$work")
    create() { schema_for 'DECIMAL(15,2)' DATE > "$work/schema.sql"; }
    load_files() {
      "$CARGO_TARGET_DIR/release/examples/duckdb_copy" "$work/native.duckdb" "$work/tbl" \
        "$work/schema.sql" > /dev/null
    }
    drop() { rm -f "$work/native.duckdb" "$work/native.duckdb.wal"; }
    ;;
  *) echo "engine: postgres, mysql or duckdb, not '$engine'" >&2; exit 2 ;;
esac
echo "TPC-H SF $sf into $engine"
printf "%-6s %12s %12s %12s %12s %8s\n" round hakari_s files_gen_s files_load_s files_total_s ratio
run_hakari() {
  "$HAKARI_BIN" run tpch "${target[@]}" --sf "$sf" --out "$work/out-$r" >/dev/null 2>"$work/hakari-$r.log" \
    || { cat "$work/hakari-$r.log" >&2; exit 1; }
  [ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$work/out-$r"/*.json "$OUT/"
  hk=$(python3 -c "
import json,glob
m=json.load(open(glob.glob('$work/out-$r/*.json')[0]))['measurements']
print(next(x['seconds_mean'] for x in m if x['step']=='load tables'))")
}
run_files() {
  create
  gen=$("$CARGO_TARGET_DIR/release/examples/tbl_files" "$sf" "$work/tbl")
  start=$(date +%s.%N)
  load_files
  load=$(python3 -c "print($(date +%s.%N) - $start)")
  drop
  rm -rf "$work/tbl"
}
for r in $(seq "$rounds"); do
  # Who goes first alternates: a fresh server's first load also pays for touching its memory.
  if [ $((r % 2)) -eq 1 ]; then run_hakari; run_files; else run_files; run_hakari; fi
  echo "$r $hk $gen $load" >> "$work/figures.txt"
  python3 -c "g,c,h=$gen,$load,$hk; print(f'{$r:<6} {h:12.2f} {g:12.2f} {c:12.2f} {g+c:12.2f} {(g+c)/h:8.3f}')"
done
python3 - "$work/figures.txt" <<'PY'
import statistics, sys
rows = [[float(x) for x in l.split()] for l in open(sys.argv[1])]
med = lambda i: statistics.median(r[i] for r in rows)
h, g, c = med(1), med(2), med(3)
print(f"{'median':<6} {h:12.2f} {g:12.2f} {c:12.2f} {g + c:12.2f} {(g + c) / h:8.3f}")
PY
