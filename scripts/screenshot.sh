#!/usr/bin/env bash
# Makes docs/report.png, docs/report-over-time.png and the faults' docs/report-fault.png and
# docs/report-failover.png: pictures of the HTML report of fresh small runs, for the docs.
# Runs the kv preset bdb-11gr2 at a reduced size on Berkeley DB at every durability level (so the
# paper's figures appear beside the fresh ones) and at 1, 2, 4 threads, reports, and screenshots
# the page with headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-test-tools
. scripts/env.sh
cargo build --release --quiet
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$HAKARI_BIN" run kv --preset bdb-11gr2 --engine bdb --durability none,write-nosync,nosync,in-memory \
  --batches 5000 --runs 3 --out "$work/results" > /dev/null
"$HAKARI_BIN" run kv --preset bdb-11gr2 --engine bdb --durability sync --threads 1,2,4 \
  --batches 1000 --runs 3 --out "$work/results" > /dev/null
"$HAKARI_BIN" report "$work/results" -o "$work/report.html"
mkdir -p docs
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" \
  --hide-scrollbars --window-size=1100,2600 --screenshot="$PWD/docs/report.png" \
  "file://$work/report.html" 2> /dev/null
echo "wrote docs/report.png"

# The time charts: tpcb on SQLite (sync) in an open loop at four rates, 2 s of warm-up shaded,
# a point every 0.5 s: the whole page of that run.
"$HAKARI_BIN" run tpcb --engine sqlite --durability sync --clients 4 --rate 250,500,1000,2000 \
  --duration 8 --warmup 2 --interval 0.5 --runs 1 --out "$work/time" > /dev/null 2>&1
"$HAKARI_BIN" report "$work/time" -o "$work/time.html"
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" \
  --hide-scrollbars --window-size=1100,3900 --screenshot="$PWD/docs/report-over-time.png" \
  "file://$work/time.html" 2> /dev/null
echo "wrote docs/report-over-time.png"

# A fault in the time charts: its step's throughput and p99 charts alone, with the page's style,
# as docs/NAME.png. charts NAME RUN-ARGS...
charts() {
  local name="$1"; shift
  "$HAKARI_BIN" run "$@" --out "$work/$name" > /dev/null 2>&1
  "$HAKARI_BIN" report "$work/$name" -o "$work/$name.html"
  python3 - "$work/$name.html" "$work/$name-charts.html" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
style = re.search(r"<style>.*?</style>", page, re.S).group(0)
kept = ("throughput per interval", "p99 latency per interval")
charts = [c for c in re.findall(r"<svg.*?</svg>", page, re.S) if any(k in c for k in kept)]
open(sys.argv[2], "w").write(f"<!doctype html><meta charset=utf-8>{style}<body>{''.join(charts)}</body>")
PY
  chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$work/profile" \
    --hide-scrollbars --window-size=760,690 --screenshot="$PWD/docs/$name.png" \
    "file://$work/$name-charts.html" 2> /dev/null
  echo "wrote docs/$name.png"
}

# tpcb on a private PostgreSQL stalled for 2 s, 3 s into an 8 s run, a point every 0.25 s.
charts report-fault tpcb --engine postgres --clients 4 --duration 8 --interval 0.25 --runs 1 \
  --fault stall@3s:2s
# A failover: the primary of a PostgreSQL with one synchronous standby killed 3 s in.
charts report-failover tpcb --engine postgres --replicas 1 --replica-ack on --clients 4 \
  --duration 8 --interval 0.25 --runs 1 --fault kill-primary@3s
