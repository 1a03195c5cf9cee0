#!/usr/bin/env bash
# Runs every test of the repository on a fresh machine: installs what is missing (tshark, from
# the OS packages), then `cargo test` over the whole workspace.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v tshark >/dev/null 2>&1; then
  echo "test.sh: tshark is missing; installing it from the OS packages" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq tshark >/dev/null
fi
tshark --version | head -1

cargo test --workspace "$@"
