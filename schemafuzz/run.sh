#!/usr/bin/env bash
# Random schemas through `wiregen verify` for a while: `schemafuzz/run.sh [hours] [first seed]`
# (default 1 hour from seed 1000). Failing seeds are listed at the end; each schema stays in
# target/schemafuzz/seed-N.yaml and `schemafuzz --print N` prints it again.
set -euo pipefail
cd "$(dirname "$0")/.."
hours=${1:-1}
seed=${2:-1000}
cargo build -q -p wiregen -p wiregen-schemafuzz
deadline=$(( $(date +%s) + $(awk "BEGIN { print int($hours * 3600) }") ))
failed=()
while [ "$(date +%s)" -lt "$deadline" ]; do
  if ! target/debug/schemafuzz --seeds "$seed..$((seed + 10))" | tee -a target/schemafuzz/run.log | grep -v '^seed .*: ok$'; then
    failed+=("$seed..$((seed + 10))")
  fi
  seed=$((seed + 10))
done
echo "schemafuzz/run.sh: seeds up to $seed; batches with failures: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
