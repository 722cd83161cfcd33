#!/usr/bin/env bash
# What placing every operation against a fault's clock costs a run (`--fault`): ycsb's read-only
# workload C on a private Redis (the fastest operations a private server gives, one client thread, so a cost per
# operation shows most), without a fault and with a stall of 1 ms half a second before the step
# ends (every operation of the step then goes through the fault's bookkeeping; the stall itself
# holds the step for 1 ms of its DURATION s). Alternating which goes first, ROUNDS rounds; ops/s
# of each, the ratio with / without per round and its median.
#   ROUNDS=6 DURATION=15 bench/fault_overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
rounds="${ROUNDS:-6}"; duration="${DURATION:-15}"
[ -x "$HAKARI_BIN" ] || cargo build --release --quiet
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
ycsb=(run ycsb --engine redis --workload c --records 10000 --threads 1 --duration "$duration" --runs 1)
fault=$(python3 -c "print(f'stall@{$duration - 0.5}s:1ms')")
rate() { python3 -c "import json,glob
r = json.load(open(glob.glob('$1/*.json')[0]))
print(next(m['ops_per_sec_mean'] for m in r['measurements'] if m['step'] == 'run'))"; }
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="without with"; else order="with without"; fi
  for side in $order; do
    flag=(); [ "$side" = with ] && flag=(--fault "$fault")
    "$HAKARI_BIN" "${ycsb[@]}" "${flag[@]}" --out "$work/$side-$r" >/dev/null 2>&1
    echo "$r $side $(rate "$work/$side-$r")" | tee -a "$work/figures.txt"
  done
done
python3 - "$work/figures.txt" "$fault" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
w = {r[0]: float(r[2]) for r in rows if r[1] == "with"}
wo = {r[0]: float(r[2]) for r in rows if r[1] == "without"}
ratios = [w[k] / wo[k] for k in w]
print(f"\nycsb C on a private Redis, ops/s, medians over rounds: with --fault {sys.argv[2]} "
      f"{st.median(w.values()):,.0f}, without {st.median(wo.values()):,.0f}, "
      f"with/without {st.median(ratios):.3f} (rounds {' '.join(f'{x:.3f}' for x in ratios)})")
PY
