#!/usr/bin/env bash
# Builds the hand-written C R-Type dissector (rtype.c) out of tree against the system's
# libwireshark-dev (Debian 12: Wireshark 4.0; `apt-get install libwireshark-dev libglib2.0-dev`),
# into the plugin folder layout tshark reads under a home: <out>/.local/lib/wireshark/plugins/
# <major.minor>/epan/rtype_c.so. Prints that home. Used by `WIREGEN_BENCH_C=1 cargo bench
# -p wiregen-tests --bench lua_versus`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../../target/c-plugin-home}
version=$(pkg-config --modversion wireshark | cut -d. -f1,2)
dir="$out/.local/lib/wireshark/plugins/$version/epan"
mkdir -p "$dir"
# shellcheck disable=SC2046
cc -O2 -g -fPIC -shared -Wall -Wextra -Wno-unused-parameter -fvisibility=hidden \
  $(pkg-config --cflags wireshark) -o "$dir/rtype_c.so" "$here/rtype.c" \
  $(pkg-config --libs wireshark) >&2
cd "$out" && pwd
