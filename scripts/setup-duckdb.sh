#!/usr/bin/env bash
# Fetches the prebuilt DuckDB 1.5.6 library (libduckdb.so, x86_64 Linux) that the optional
# `duckdb` feature links, into $DUCKDB_LIB_DIR (scripts/env.sh sets it). DuckDB publishes it in
# its Node.js bindings package on the npm registry; the tarball is checked against its SHA-256.
# Building DuckDB from source instead: `cargo build --release --features duckdb-bundled`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
[ -f "$DUCKDB_LIB_DIR/libduckdb.so" ] && exit 0
if [ "$(uname -sm)" != "Linux x86_64" ]; then
  echo "setup-duckdb: no prebuilt libduckdb.so for $(uname -sm) here; build with --features duckdb-bundled" >&2
  exit 1
fi
url=https://registry.npmjs.org/@duckdb/node-bindings-linux-x64/-/node-bindings-linux-x64-1.5.6-r.1.tgz
sha256=1b9f82478539bb9a1d1df44bd103121a12ae52142c07158dc52b97d2ec1d69ff
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "setup-duckdb: fetching libduckdb.so 1.5.6 (about 20 MB)" >&2
curl -fsSL --retry 3 -o "$tmp/duckdb.tgz" "$url"
echo "$sha256  $tmp/duckdb.tgz" | sha256sum -c --quiet
tar -xzf "$tmp/duckdb.tgz" -C "$tmp" package/libduckdb.so package/LICENSE
mkdir -p "$DUCKDB_LIB_DIR"
mv "$tmp/package/LICENSE" "$DUCKDB_LIB_DIR/LICENSE"
mv "$tmp/package/libduckdb.so" "$DUCKDB_LIB_DIR/libduckdb.so"
