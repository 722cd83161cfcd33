# Sourced by the tpcc load benches: what they share. `load_seconds DIR` prints the load step's
# seconds from the one result file in DIR; `rounds REFERENCE_LABEL` runs $rounds rounds of
# `reference` then `hakari_load` (each printing seconds), alternating, into $figures, and prints
# the medians and their ratio reference / hakari (above 1: hakari loads faster).
load_seconds() {
  python3 - "$1" <<'PY'
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))
print(next(m["seconds_mean"] for m in r["measurements"] if m["step"] == "load"))
PY
}
rounds() {
  : > "$figures"
  for r in $(seq "$rounds"); do
    ref=$(reference)
    hk=$(hakari_load "$(dirname "$figures")/hk-$r")
    echo "$r $ref $hk" | tee -a "$figures"
  done
  python3 - "$figures" "$warehouses" "$1" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
ref, hk = (st.median(float(r[i]) for r in rows) for i in (1, 2))
print(f"\n{sys.argv[2]} warehouse(s), medians of {len(rows)} rounds")
print(f"{sys.argv[3]} {ref:.2f} s, hakari tpcc load {hk:.2f} s: reference / hakari {ref / hk:.2f}")
PY
}
