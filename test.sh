#!/usr/bin/env bash
# Runs every test of the repository on a fresh machine: installs what is missing (tshark, Lua
# 5.2 and 5.4, luacheck, Python, from the OS packages; DuckDB from PyPI), then `cargo test` over
# the whole workspace, then the tshark tests again on the current Wireshark release.
set -euo pipefail
cd "$(dirname "$0")"

# tshark runs the dissectors; the standalone Lua 5.2 and 5.4 interpreters check the code paths
# a dissector chooses between at load time (Wireshark 4.0 has Lua 5.2, the current one 5.4);
# luacheck lints every generated dissector.
missing=()
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
command -v lua5.2 >/dev/null 2>&1 || missing+=(lua5.2)
command -v lua5.4 >/dev/null 2>&1 || missing+=(lua5.4)
command -v luacheck >/dev/null 2>&1 || missing+=(lua-check)
# Mono's C# compiler and runtime build and run the C# codecs' proofs (tests/tests/csharp.rs,
# `wiregen verify`).
command -v mcs >/dev/null 2>&1 || missing+=(mono-mcs)
command -v mono >/dev/null 2>&1 || missing+=(mono-runtime)
# DuckDB queries wirecat's Parquet export (wirecat/tests/export.rs): its Python package, in a
# virtual environment under target/ (Debian's Python needs python3-venv for one).
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]} from the OS packages" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
tshark --version | head -1
if ! target/duckdb-venv/bin/python3 -c 'import duckdb' >/dev/null 2>&1; then
  echo "test.sh: installing duckdb (PyPI) in target/duckdb-venv" >&2
  python3 -m venv target/duckdb-venv
  target/duckdb-venv/bin/pip install -q duckdb
fi

cargo test --workspace "$@"
# A game crate outside the workspace, built the way the README tells a user (build.rs + include).
cargo test --manifest-path examples/mygame/Cargo.toml --target-dir target "$@"
# Its dissector proven against its crate, as the README tells a user (`wiregen verify`).
(cd examples/mygame && cargo run -q --manifest-path ../../codegen/Cargo.toml -- verify schema/mygame.yaml)
# Schemas nobody tuned: random schemas of fixed seeds through `wiregen verify` (a few minutes;
# schemafuzz/run.sh runs it for hours).
cargo build -q -p wiregen -p wiregen-schemafuzz
target/debug/schemafuzz --seeds 1..17

# Every tshark test again on the current Wireshark release (Lua 5.4), run as an unprivileged user
# as 4.4 and later require (tests/tshark-current.sh builds a Debian testing root for it once).
# When that root cannot be built (no network, a mirror mid-update) the run is skipped with a
# warning; WIREGEN_CURRENT_WIRESHARK=required makes that a failure, =0 skips the run.
mode=${WIREGEN_CURRENT_WIRESHARK:-1}
if [ "$mode" != 0 ]; then
  if current=$(tests/tshark-current.sh); then
    WIREGEN_TSHARK="$current" cargo test -p wiregen-tests "$@"
    WIREGEN_TSHARK="$current" cargo test -p wiregen --test regressions "$@"
    WIREGEN_TSHARK="$current" target/debug/schemafuzz --seeds 1..9
    (cd examples/mygame && WIREGEN_TSHARK="$current" \
      cargo run -q --manifest-path ../../codegen/Cargo.toml -- verify schema/mygame.yaml)
  elif [ "$mode" = required ]; then
    exit 1
  else
    echo "test.sh: WARNING: the current Wireshark release could not be installed;" \
      "its tshark tests did NOT run (only Wireshark $(tshark --version | head -1 | awk '{print $3}') was tested)" >&2
  fi
fi
