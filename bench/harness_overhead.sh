#!/usr/bin/env bash
# hakari's own cost: the kv workload's steps on Berkeley DB through hakari (preset bdb-11gr2: 64-byte
# keys and values, 57,600 batches of 10) against bench/bdb_native.c, the same work written directly
# against libdb by hand for the fastest correct run. Data Store (durability none) and
# Transactional Data Store (sync), side by side, alternating which goes first, ROUNDS rounds of
# RUNS runs each. Prints each side's mean per step and the ratio hakari / native.
#   bench/harness_overhead.sh [ROUNDS] [RUNS] [KEY_LAYOUT]     (defaults: 3 5 number-last)
#   STORES=ds bench/harness_overhead.sh ...                    (only the Data Store; default "ds tds")
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
rounds="${1:-3}"
runs="${2:-5}"
layout="${3:-number-last}"
hakari="${HAKARI:-$HAKARI_BIN}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/bdb_native" bench/bdb_native.c -ldb-5.3
[ -x "$hakari" ] || cargo build --release --quiet
native() { # $1 ds|tds
  mkdir -p "$work/native"
  "$work/bdb_native" "$work/native" "$1" "$layout" "$runs" | sed "s/^/$1 /" >> "$work/native.txt"
  rm -rf "$work/native"
}
through_hakari() { # $1 ds|tds $2 round
  local level=none
  [ "$1" = tds ] && level=sync
  "$hakari" run kv --preset bdb-11gr2 --engine bdb --durability "$level" --runs "$runs" \
    --key-layout "$layout" --out "$work/hakari-$1-$2" > /dev/null 2>&1
}
for r in $(seq "$rounds"); do
  for kind in ${STORES:-ds tds}; do
    echo "round $r/$rounds: $kind" >&2
    if [ $((r % 2)) -eq 1 ]; then
      native "$kind"; through_hakari "$kind" "$r"
    else
      through_hakari "$kind" "$r"; native "$kind"
    fi
  done
done
python3 - "$work" "$layout" <<'PY'
import glob, json, statistics, sys
work, layout = sys.argv[1], sys.argv[2]
steps = ("fetch", "update", "delete", "insert")
native = {(k, s): [] for k in ("ds", "tds") for s in steps}
for line in open(f"{work}/native.txt"):
    f = line.split()
    kind = f[0]
    for i, s in enumerate(steps):
        native[(kind, s)].append(float(f[4 + 2 * i]))
hakari = {key: [] for key in native}
for kind in ("ds", "tds"):
    for path in glob.glob(f"{work}/hakari-{kind}-*/*.json"):
        for m in json.load(open(path))["measurements"]:
            if m["step"] in steps:
                hakari[(kind, m["step"])] += [r["ops_per_sec"] for r in m["runs"]]
print(f"Berkeley DB, 64-byte keys ({layout}) and values, 576,000 records")
print(f"{'store':6} {'step':8} {'native ops/s':>14} {'hakari ops/s':>14} {'hakari/native':>14}")
for kind in ("ds", "tds"):
    for s in steps:
        n, h = native[(kind, s)], hakari[(kind, s)]
        if not n or not h:
            continue
        ratio = statistics.mean(h) / statistics.mean(n)
        print(f"{kind:6} {s:8} {statistics.mean(n):14,.0f} {statistics.mean(h):14,.0f} {ratio:14.3f}"
              f"   ({len(n)} runs each)")
PY
