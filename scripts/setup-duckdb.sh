#!/usr/bin/env bash
# Fetches the prebuilt DuckDB 1.5.6 library (libduckdb.so, x86_64 or arm64 Linux) that the optional
# `duckdb` feature links, into $DUCKDB_LIB_DIR (scripts/env.sh sets it). DuckDB publishes it in
# its Node.js bindings package on the npm registry; the tarball is checked against its SHA-256.
# Building DuckDB from source instead: `cargo build --release --features duckdb-bundled`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
# A plain `cargo build` (no scripts/env.sh) finds the library through this link
# (.cargo/config.toml's DUCKDB_LIB_DIR).
link() { ln -sfn "$DUCKDB_LIB_DIR" .duckdb; }
[ -f "$DUCKDB_LIB_DIR/libduckdb.so" ] && link && exit 0
# The checksums are of the registry's tarballs (their SHA-512 is the registry's own `integrity`).
case "$(uname -sm)" in
  "Linux x86_64")
    url=https://registry.npmjs.org/@duckdb/node-bindings-linux-x64/-/node-bindings-linux-x64-1.5.6-r.1.tgz
    sha256=1b9f82478539bb9a1d1df44bd103121a12ae52142c07158dc52b97d2ec1d69ff ;;
  "Linux aarch64")
    url=https://registry.npmjs.org/@duckdb/node-bindings-linux-arm64/-/node-bindings-linux-arm64-1.5.6-r.1.tgz
    sha256=3a45a6305b3235a781ed9de25aa795a3862acd042782d1f864e1bdb656de212b ;;
  *)
    echo "setup-duckdb: no prebuilt libduckdb.so for $(uname -sm); build with --features duckdb-bundled (or --no-default-features: no duckdb engine)" >&2
    exit 1 ;;
esac
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "setup-duckdb: fetching libduckdb.so 1.5.6 for $(uname -m) (about 20 MB)" >&2
curl -fsSL --retry 3 -o "$tmp/duckdb.tgz" "$url"
echo "$sha256  $tmp/duckdb.tgz" | sha256sum -c --quiet
tar -xzf "$tmp/duckdb.tgz" -C "$tmp" package/libduckdb.so package/LICENSE
mkdir -p "$DUCKDB_LIB_DIR"
mv "$tmp/package/LICENSE" "$DUCKDB_LIB_DIR/LICENSE"
mv "$tmp/package/libduckdb.so" "$DUCKDB_LIB_DIR/libduckdb.so"
link
