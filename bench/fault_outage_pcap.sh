#!/usr/bin/env bash
# The outage hakari measures for a fault (`fault.outage_s`) against one measured outside it: a
# packet capture on loopback of the private PostgreSQL's traffic, in which the outage is the
# longest span of the timed step between two commits acknowledged (PostgreSQL's CommandComplete
# for COMMIT, from whichever node sent it: after kill-primary, the promoted standby). The two
# should agree within 100 ms. A partition drops packets after the capture has seen them, and TCP
# sends them again: a segment counts when it was last sent (by its ports and sequence number),
# the copy that got through. PostgreSQL only: the private MariaDB is reached over its Unix
# socket, which no capture on an interface sees.
#
#   bench/fault_outage_pcap.sh [ROUNDS]        (root, tcpdump installed; default 3 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
hakari=${HAKARI_BIN:-$CARGO_TARGET_DIR/release/hakari}
rounds=${1:-3}
command -v tcpdump >/dev/null || { echo "tcpdump is not installed (apt-get install tcpdump)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
worst=0
for fault in stall@2s:1s partition@2s:1s restart@2s kill-primary@2s; do
  # A primary is killed where it has a synchronous standby to promote.
  cluster=()
  [[ $fault == kill-primary* ]] && cluster=(--replicas 1 --replica-ack on)
  for round in $(seq "$rounds"); do
    dir="$work/$fault-$round"
    mkdir -p "$dir"
    tcpdump -i lo -n -s 256 -w "$dir/lo.pcap" 'tcp' 2>/dev/null &
    capture=$!
    sleep 1
    "$hakari" run tpcb --engine postgres "${cluster[@]}" --clients 4 --duration 5 --runs 1 \
      --no-resources --fault "$fault" --out "$dir" >/dev/null 2>&1
    sleep 0.5
    kill "$capture"
    wait "$capture" || true
    line=$(python3 - "$dir" <<'EOF'
import glob, json, struct, sys
d = sys.argv[1]
r = json.load(open(glob.glob(d + "/*.json")[0]))
m = r["measurements"][0]
hakari = next(f["value"] for f in m["figures"] if f["name"] == "fault.outage_s")
start = m["runs"][0]["started_unix_s"]
end = start + 5.0
# The capture as written (pcap, microseconds, Linux loopback: a 14-byte Ethernet header): each
# TCP segment's time, ports, sequence number and data.
raw = open(d + "/lo.pcap", "rb").read()
segments, at = [], 24
while at + 16 <= len(raw):
    sec, usec, kept, _ = struct.unpack_from("<IIII", raw, at)
    frame = raw[at + 16 : at + 16 + kept]
    at += 16 + kept
    ip = frame[14:]
    if len(ip) < 20 or ip[9] != 6:
        continue
    tcp = ip[(ip[0] & 15) * 4 :]
    data = tcp[(tcp[12] >> 4) * 4 :]
    segments.append((sec + usec / 1e6, struct.unpack_from(">HHI", tcp, 0), data))
# A commit acknowledged: PostgreSQL's CommandComplete ('C', length 11, "COMMIT"), which only a
# server sends (a client's COMMIT is a Query, 'Q'; a standby's WAL stream carries no such text).
tag = b"C\x00\x00\x00\x0bCOMMIT\x00"
# A segment sent again (after a partition) counts when it was last sent: that copy got through.
last = {}
for t, key, data in segments:
    if tag in data:
        last[key] = t
commits = sorted(t for t in last.values() if start <= t <= end)
gap = max(b - a for a, b in zip(commits, commits[1:]))
print(f"{hakari:.3f} {gap:.3f} {abs(hakari - gap) * 1000:.1f}")
EOF
)
    read -r measured captured diff <<<"$line"
    printf '%-16s round %d  hakari %s s  capture %s s  difference %s ms\n' "$fault" "$round" "$measured" "$captured" "$diff"
    worst=$(python3 -c "print(max($worst, $diff))")
  done
done
echo "largest difference: $worst ms"
python3 -c "import sys; sys.exit(0 if $worst <= 100 else 1)"
