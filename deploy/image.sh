#!/usr/bin/env bash
# Builds the hakari client image (deploy/Dockerfile) from this checkout's release binary:
#   deploy/image.sh [TAG]        (default hakari:latest; docker, else podman)
# Then push it where your cluster pulls from, and name it in deploy/kubernetes/*.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
tag="${1:-hakari:latest}"
engine="$(command -v docker || command -v podman || true)"
[ -n "$engine" ] || { echo "image: neither docker nor podman is installed" >&2; exit 1; }
"$engine" info >/dev/null 2>&1 || { echo "image: $engine cannot reach its daemon here" >&2; exit 1; }
[ -x "$HAKARI_BIN" ] || cargo build --release
context="$(mktemp -d)"; trap 'rm -rf "$context"' EXIT
cp deploy/Dockerfile "$HAKARI_BIN" "$context/"
cp -L .duckdb/libduckdb.so "$context/"
"$engine" build -t "$tag" "$context"
echo "image: $tag"
