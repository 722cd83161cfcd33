#!/usr/bin/env bash
# The cost of the interval series and the accuracy of the open loop's schedule, on the null
# engine (no storage: what is left is hakari's own loop).
#   1. hakari --interval 1 against hakari built without interval bookkeeping (HAKARI_OLD, a build
#      of the commit before the series: `git worktree add /tmp/old 947f291` and build it), every
#      operation timed (--txn-size op), alternating, ROUNDS rounds; the ratio new / old per step.
#   2. the null engine asked for 1M operations a second (open loop, 2 workers): achieved / asked
#      and the p99 schedule lag, per step.
#   HAKARI_OLD=/path/to/old/hakari ROUNDS=5 RATE_BATCHES=300000 bench/interval_overhead.sh [BATCHES]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
batches="${1:-2000000}"; rounds="${ROUNDS:-5}"
new="${HAKARI:-$HAKARI_BIN}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
kv=(run kv --engine null --durability none --batch-size 10 --txn-size op --runs 1)
steps() { # RESULT-DIR: "step ops/s" per line
  python3 -c "import json,glob
for m in json.load(open(glob.glob('$1/*.json')[0]))['measurements']: print(m['step'], m['ops_per_sec_mean'])"
}
if [ -n "${HAKARI_OLD:-}" ]; then
  for r in $(seq "$rounds"); do
    # Alternate which goes first.
    if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
    for side in $order; do
      if [ "$side" = old ]; then "$HAKARI_OLD" "${kv[@]}" --batches "$batches" --out "$work/old-$r" >/dev/null 2>&1
      else "$new" "${kv[@]}" --batches "$batches" --interval 1 --out "$work/new-$r" >/dev/null 2>&1; fi
      steps "$work/$side-$r" | sed "s/^/$side $r /" >> "$work/overhead.txt"
    done
  done
  python3 - "$work/overhead.txt" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print("interval bookkeeping, null engine, every operation timed: medians over rounds")
print(f"{'step':8} {'without ops/s':>14} {'--interval 1':>14} {'ratio':>7}   per round")
for step in dict.fromkeys(r[2] for r in rows):
    old = {r[1]: float(r[3]) for r in rows if r[0] == "old" and r[2] == step}
    new = {r[1]: float(r[3]) for r in rows if r[0] == "new" and r[2] == step}
    ratios = [new[k] / old[k] for k in old]
    print(f"{step:8} {st.median(old.values()):14,.0f} {st.median(new.values()):14,.0f} {st.median(ratios):7.3f}   "
          + " ".join(f"{x:.3f}" for x in ratios))
PY
fi
for r in $(seq "$rounds"); do
  "$new" "${kv[@]}" --batches "${RATE_BATCHES:-300000}" --threads 2 --rate 1000000 \
    --out "$work/rate-$r" >/dev/null 2>&1
  python3 -c "import json,glob
for m in json.load(open(glob.glob('$work/rate-$r/*.json')[0]))['measurements']:
  o = m['open_loop']; print(m['step'], o['rate'], m['ops_per_sec_mean'], o['lag']['p99_us'])" >> "$work/rate.txt"
done
python3 - "$work/rate.txt" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
print("open loop at 1M ops/s, null engine, 2 workers: medians over rounds")
for step in dict.fromkeys(r[0] for r in rows):
    rs = [r for r in rows if r[0] == step]
    asked, got = float(rs[0][1]), st.median(float(r[2]) for r in rs)
    print(f"{step:8} achieved {got:12,.0f}/s ({got / asked:.4f} of asked), lag p99 {st.median(float(r[3]) for r in rs):.1f} us")
PY
