#!/usr/bin/env bash
# wirecat on large captures, against tshark with the generated dissector (what a user would run
# instead): throughput and peak memory of `check`, `read`, `export` and `tshark -T ek`, on the
# real R-Type capture (game build: login, lobby, 60 inputs, a 4-fragment entity state, deltas)
# repeated to 1M and 10M datagrams. A benchmark, not a test: run it on a quiet machine.
#
#   wirecat/bench.sh [SIZES...]    (default: 1000000 10000000; tshark on the first size only,
#                                   none with WIRECAT_BENCH_TSHARK=0)
#
# Needs python3 (to write the captures), tshark and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
work=${WIRECAT_BENCH_DIR:-target/wirecat-bench}
mkdir -p "$work"
cargo build -q --release -p wirecat
wirecat=target/release/wirecat
ports=(--port 8080 --port 9000)

# The capture's records repeated (timestamps moved on by 1 ms per record) to `n` datagrams.
make_capture() {
  local n=$1 out=$2
  [ -f "$out" ] && return
  editcap -F pcap tests/captures/rtype.pcap "$work/rtype.pcap"
  python3 - "$work/rtype.pcap" "$out" "$n" <<'EOF'
import struct, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read()
header, records, at = data[:24], [], 24
while at < len(data):
    incl = struct.unpack_from('<I', data, at + 8)[0]
    records.append(data[at + 16:at + 16 + incl])
    at += 16 + incl
with open(out, 'wb') as f:
    f.write(header)
    t = 1_700_000_000_000_000
    for i in range(n):
        r = records[i % len(records)]
        t += 1000
        f.write(struct.pack('<IIII', t // 1_000_000, t % 1_000_000, len(r), len(r)))
        f.write(r)
EOF
}

# One run: wall seconds, datagrams per second, peak resident MB.
measure() {
  local label=$1 n=$2
  shift 2
  /usr/bin/time -o "$work/time" -f "%e %M" "$@" > /dev/null 2> "$work/stderr"
  local t
  t=$(tail -1 "$work/time")
  local secs=${t% *} kib=${t#* }
  printf "| %s | %s | %.2f s | %.0f | %.1f MB |\n" "$label" "$n" "$secs" \
    "$(echo "$n / $secs" | bc -l)" "$(echo "$kib / 1024" | bc -l)"
}

echo "| run | datagrams | time | datagrams/s | peak memory |"
echo "| --- | --- | --- | --- | --- |"
first=${WIRECAT_BENCH_TSHARK:-1}
for n in "${sizes[@]}"; do
  pcap="$work/rtype-$n.pcap"
  make_capture "$n" "$pcap"
  measure "wirecat check" "$n" "$wirecat" check rtype_impl "$pcap" "${ports[@]}"
  measure "wirecat read (NDJSON)" "$n" "$wirecat" read rtype_impl "$pcap" "${ports[@]}"
  measure "wirecat export (Parquet)" "$n" "$wirecat" export rtype_impl "$pcap" "${ports[@]}" -o "$work/out.parquet"
  if [ $first = 1 ]; then
    home=$(mktemp -d)
    measure "tshark -T ek, Lua dissector" "$n" env HOME="$home" XDG_CONFIG_HOME="$home" \
      tshark -r "$pcap" -X lua_script:dissectors/rtype_impl.lua \
      -o "rtype_impl.udp_ports:8080,9000" -T ek
    rm -rf "$home"
    first=0
  fi
done
