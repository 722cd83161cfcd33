#!/usr/bin/env bash
# cargo deny check with deny.toml: advisories, licences, duplicate crates, sources (run by .ci/run).
# The advisories come from RustSec's database, a git repository cargo-deny keeps under
# ~/.cargo/advisory-dbs: fetched when github.com is reachable; where it is not, the copy already
# there is used and its date printed, else a snapshot bundle beside the checkout
# (../shared/rustsec), and with no copy at all the advisories are not checked and the line says
# so (the other three checks still run).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
deny="$(command -v cargo-deny || true)"
if [ -z "$deny" ]; then
  echo "deny: cargo-deny is not installed (scripts/setup.sh --with-test-tools installs it)" >&2
  exit 1
fi
db="${CARGO_HOME:-$HOME/.cargo}/advisory-dbs/advisory-db-3157b0e258782691"
timeout 120 "$deny" deny fetch db >/dev/null 2>&1 || true
# Where upstream cannot be reached, a snapshot the workplace keeps beside the checkout (a git
# bundle of RustSec's database) is the floor.
snapshot="$(cd .. && pwd)/shared/rustsec/advisory-db.bundle"
if ! git -C "$db" rev-parse -q --verify HEAD >/dev/null 2>&1 && [ -f "$snapshot" ]; then
  rm -rf "$db"; mkdir -p "$(dirname "$db")"
  git clone -q -b snapshot "$snapshot" "$db" && echo "deny: RustSec's database from the snapshot $snapshot"
fi
if date=$(git -C "$db" log -1 --format=%cs 2>/dev/null); then
  echo "deny: advisories from RustSec's database as of $date"
  "$deny" deny --offline check
else
  echo "deny: advisories NOT checked: no RustSec database in $db and none could be fetched"
  "$deny" deny --offline check bans licenses sources
fi
