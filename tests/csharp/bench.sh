#!/usr/bin/env bash
# The C# codec's benchmark (tests/csharp/bench/): the generated R-Type codec next to a
# hand-written one, under Mono, in one run. Prints a Markdown table (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=target/csharp-bench
mkdir -p "$out"
mcs -nologo -optimize -warn:4 -warnaserror -out:"$out/bench.exe" \
  csharp/WiregenRuntime.cs csharp/WiregenReader.cs csharp/WiregenWriter.cs csharp/Rtype.cs tests/csharp/bench/HandRtype.cs tests/csharp/bench/Bench.cs
mono --version | head -1
mono -O=all "$out/bench.exe"
