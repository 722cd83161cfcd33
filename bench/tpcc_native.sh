#!/usr/bin/env bash
# `hakari run tpcc` against bench/tpcc_native.rs (the same transactions straight through the same
# postgres crate) on one private PostgreSQL: WAREHOUSES warehouses loaded once by hakari and kept,
# then TERMINALS terminals for SECONDS seconds after a 10-second ramp-up, the two alternating,
# ROUNDS rounds, the one that goes first swapped each round. The database grows as both run on it:
# before each run a VACUUM and a CHECKPOINT (untimed) clear what the run before left, so that
# neither runs beside autovacuum working off the other's rows. Prints each round's NOPM and the
# medians' ratio hakari / native.
#   ROUNDS=3 bench/tpcc_native.sh [WAREHOUSES] [TERMINALS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
warehouses="${1:-8}"; terminals="${2:-8}"; seconds="${3:-60}"; rounds="${ROUNDS:-3}"
export PGSSLMODE=disable
cargo build --release --quiet
cargo bench --no-run --quiet --bench tpcc_native 2>/dev/null
native=$(ls -t "$CARGO_TARGET_DIR"/release/deps/tpcc_native-* | grep -v '\.d$' | head -1)
. bench/private_postgres.sh
hakari() { # $1: out dir, then flags
  "$HAKARI_BIN" run tpcc --engine postgres --url "$url" --warehouses "$warehouses" --keep \
    --out "$@" >/dev/null 2>"$1.err" || { cat "$1.err" >&2; exit 1; }
}
echo "preparing: $warehouses warehouse(s) loaded once and kept" >&2
hakari "$work/prep" --clients 1 --duration 1 --ramp-up 0 --check none
figures="$work/figures.txt"
psql=("$pg_bin/psql" -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres hakari_bench)
settle() { "${psql[@]}" -c "VACUUM" -c "CHECKPOINT"; }
native_nopm() {
  settle
  "$native" "$url" "$terminals" "$seconds" 10 | awk '/^nopm/ {print $2}'
}
hakari_nopm() { # $1: out dir
  settle
  # Conditions 1-4 after each hakari run also cover the native runs before it (same tables).
  hakari "$1" --clients "$terminals" --duration "$seconds" --ramp-up 10 --check required
  python3 - "$1" <<'PY'
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))
print(round(next(m["value"] for m in r["metrics"] if m["name"] == "NOPM")))
PY
}
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    n=$(native_nopm); h=$(hakari_nopm "$work/hk-$r")
  else
    h=$(hakari_nopm "$work/hk-$r"); n=$(native_nopm)
  fi
  echo "round $r: native $n NOPM, hakari $h NOPM" | tee -a "$figures"
done
python3 - "$figures" "$warehouses" "$terminals" "$seconds" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
n, h = (st.median(float(r[i]) for r in rows) for i in (3, 6))
print(f"\n{sys.argv[2]} warehouse(s), {sys.argv[3]} terminals, {sys.argv[4]} s, medians of {len(rows)} rounds")
print(f"native {n:,.0f} NOPM, hakari {h:,.0f} NOPM: hakari / native {h / n:.3f}")
PY
# The kept tables go with the private server.
