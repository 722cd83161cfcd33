#!/usr/bin/env bash
# `hakari run sysbench` beside Debian's sysbench 1.0.20: the same script and command line on the
# same private server and wire (MariaDB over its Unix socket, or PostgreSQL over loopback TCP
# with PGSSLMODE, default disable), the tables made once by sysbench's own prepare, the two tools
# alternating which goes first, ROUNDS rounds per script and thread count. Prints each tool's
# transactions per second (sysbench's "transactions:" line, hakari's result file) and the ratio
# hakari / sysbench per round and its median.
#   DRIVER=mysql|pgsql ROUNDS=4 bench/sysbench_compare.sh [SECONDS] [SCRIPTS] [THREAD COUNTS...]
#   e.g. DRIVER=pgsql bench/sysbench_compare.sh 20 oltp_read_write,oltp_point_select 1 8 32
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
secs="${1:-20}"; scripts="${2:-oltp_read_write,oltp_point_select}"; shift 2 || true
counts=("${@:-1 8 32}"); counts=(${counts[@]}); rounds="${ROUNDS:-4}"
size=(--tables=4 --table-size=100000)
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
. bench/private_sysbench.sh
sysbench oltp_common "${conn[@]}" "${size[@]}" --threads=4 prepare >/dev/null
: > "$out/figures.txt"
newest_tps() {
  python3 -c 'import json,glob,os,sys; f=max(glob.glob(sys.argv[1]+"/*.json"), key=os.path.getmtime); r=json.load(open(f)); print(next(m["ops_per_sec_mean"] for m in r["measurements"] if m["step"]=="run"))' "$1"
}
for script in ${scripts//,/ }; do
  for c in "${counts[@]}"; do
    args=("${conn[@]}" "${size[@]}" --threads="$c" --time="$secs" --rand-seed=1)
    for r in $(seq "$rounds"); do
      if [ $((r % 2)) = 1 ]; then order="sysbench hakari"; else order="hakari sysbench"; fi
      for tool in $order; do
        case $tool in
          sysbench) sysbench "$script" "${args[@]}" run >"$out/sb.log" 2>&1 || { tail -3 "$out/sb.log" >&2; exit 1; }
                    sb=$(awk '/transactions:/ {gsub(/\(/, "", $3); print $3; exit}' "$out/sb.log") ;;
          hakari) "$HAKARI_BIN" run sysbench --out "$out/hk" "$script" "${args[@]}" run >"$out/hk.log" 2>&1 || { tail -3 "$out/hk.log" >&2; exit 1; }
                  hk=$(newest_tps "$out/hk") ;;
        esac
      done
      echo "$script $c $r $sb $hk" | tee -a "$out/figures.txt"
    done
  done
done
python3 - "$out/figures.txt" "$secs" "$driver" "$PGSSLMODE" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"\n{sys.argv[3]}, {sys.argv[2]} s per run, 4 tables of 100,000 rows (sslmode={sys.argv[4]} for pgsql); medians over rounds (transactions/s)")
print("script               threads  sysbench    hakari  hakari/sysbench  rounds")
for key in dict.fromkeys((r[0], r[1]) for r in rows):
    rs = [r for r in rows if (r[0], r[1]) == key]
    ratios = [float(r[4]) / float(r[3]) for r in rs]
    sb, hk = (st.median(float(r[i]) for r in rs) for i in (3, 4))
    print(f"{key[0]:<20} {key[1]:>7}  {sb:8.1f}  {hk:8.1f}  {st.median(ratios):15.3f}  {' '.join(f'{x:.3f}' for x in ratios)}")
PY
