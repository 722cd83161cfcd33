#!/usr/bin/env bash
# sysbench's `prepare` timed two (or three) ways on one private server, alternating who goes
# first, ROUNDS rounds: Debian's sysbench 1.0.20, and `hakari run sysbench` with the same script
# and command line (and, with OLD=path, an earlier hakari binary as well). Each prepare starts
# from an empty database (`cleanup` first, untimed). Prints each round's seconds (the whole
# command, wall clock) and the medians with the ratio sysbench / hakari (above 1: hakari is
# faster).
#   DRIVER=mysql|pgsql ROUNDS=4 bench/sysbench_prepare.sh [TABLES] [TABLE SIZE] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
tables="${1:-4}"; size="${2:-250000}"; threads="${3:-2}"; rounds="${ROUNDS:-4}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet --bin hakari
. bench/private_sysbench.sh
args=(oltp_read_write "${conn[@]}" --tables="$tables" --table-size="$size" --threads="$threads")
tools=(sysbench hakari); [ -n "${OLD:-}" ] && tools+=(old)
timed() { # $1: tool; prints the prepare's seconds
  sysbench "${args[@]}" cleanup >/dev/null 2>&1 || true
  local start; start=$(date +%s.%N)
  case $1 in
    sysbench) sysbench "${args[@]}" prepare >/dev/null ;;
    hakari) "$HAKARI_BIN" run sysbench --no-resources --out "$out/hk" "${args[@]}" prepare >/dev/null 2>&1 ;;
    old) "$OLD" run sysbench --no-resources --out "$out/hk" "${args[@]}" prepare >/dev/null 2>&1 ;;
  esac
  python3 -c "print(round($(date +%s.%N) - $start, 3))"
}
echo "sysbench prepare, $driver, $tables tables of $size rows, $threads threads"
: > "$out/figures.txt"
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order=("${tools[@]}"); else order=($(printf '%s\n' "${tools[@]}" | tac)); fi
  declare -A secs=()
  for tool in "${order[@]}"; do secs[$tool]=$(timed "$tool"); done
  line="$r"; for tool in "${tools[@]}"; do line+=" $tool ${secs[$tool]}"; done
  echo "$line" | tee -a "$out/figures.txt"
done
python3 - "$out/figures.txt" <<'PY'
import statistics, sys
rows = [l.split()[1:] for l in open(sys.argv[1])]
med = {}
for row in rows:
    for tool, s in zip(row[::2], row[1::2]):
        med.setdefault(tool, []).append(float(s))
med = {t: statistics.median(v) for t, v in med.items()}
print("medians: " + ", ".join(f"{t} {s:.2f} s" for t, s in med.items()))
print(f"sysbench / hakari: {med['sysbench'] / med['hakari']:.2f}")
if 'old' in med:
    print(f"old hakari / hakari: {med['old'] / med['hakari']:.2f}")
PY
