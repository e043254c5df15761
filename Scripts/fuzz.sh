#!/usr/bin/env bash
# Fuzzes one of Strata's parsers with libFuzzer (it ships with the toolchain's clang).
#
#   Scripts/fuzz.sh TARGET [SECONDS]      TARGET: archive, sealed-item, json-lines, record-body, path-mapping,
#                                                 plist
#
# The seed corpus is committed in Fuzz/TARGET; new interesting inputs go to .build/fuzz-corpus/TARGET, and a
# crash is written as crash-* in the current folder (replay it with: swift run strata-fuzz TARGET crash-...).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: Scripts/fuzz.sh TARGET [SECONDS]}
seconds=${2:-600}
bash Scripts/install-deps.sh
swift build -c release --product strata-fuzz --scratch-path .build/fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -parse-as-library -Xswiftc -use-ld=lld
mkdir -p ".build/fuzz-corpus/$target"
STRATA_FUZZ_TARGET="$target" .build/fuzz/release/strata-fuzz ".build/fuzz-corpus/$target" "Fuzz/$target" \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1
