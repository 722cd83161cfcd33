#!/usr/bin/env bash
# The main job: install what is missing, build hakari (release), and run `hakari run` with the
# arguments given (none: the short tour of the kv workload on every engine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/env.sh
if [ ! -x "$HAKARI_BIN" ]; then
  echo "run: building hakari (the first build compiles RocksDB and every other library: about 30 minutes on 2 cores)" >&2
fi
cargo build --release
# `hakari` as the manual writes it: a link in ~/.local/bin, which Debian's login shell puts on
# the PATH when the folder exists.
mkdir -p "$HOME/.local/bin"
ln -sfn "$HAKARI_BIN" "$HOME/.local/bin/hakari"
case ":$PATH:" in
  *":$HOME/.local/bin:"*) ;;
  *) echo "run: hakari is linked as ~/.local/bin/hakari; that folder is not on your PATH yet (log in again, or export PATH=\"\$HOME/.local/bin:\$PATH\")" >&2 ;;
esac
exec "$HAKARI_BIN" run "$@"
