#!/usr/bin/env bash
# Fuzzes one of Strata's parsers with libFuzzer (it ships with the toolchain's clang).
#
#   Scripts/fuzz.sh [--keep-going] TARGET [SECONDS]   TARGET: archive, sealed-item, json-lines, record-body,
#                                                             path-mapping, plist, backup-metadata,
#                                                             store-configuration
#
# The seed corpus is committed in Fuzz/TARGET; new interesting inputs go to .build/fuzz-corpus/TARGET. A run stops
# at its first crash and writes it as crash-* in the current folder; with --keep-going it runs the target in a
# child process (libFuzzer's -fork=1), writes every crash, timeout and out-of-memory input to
# .build/fuzz-crashes/TARGET/ and carries on until SECONDS are up, then lists what it kept. Replay an input with:
# swift run strata-fuzz TARGET FILE...
set -euo pipefail
cd "$(dirname "$0")/.."
keep_going=false
if [ "${1:-}" = "--keep-going" ]; then
    keep_going=true
    shift
fi
target=${1:?usage: Scripts/fuzz.sh [--keep-going] TARGET [SECONDS]}
seconds=${2:-600}
bash Scripts/install-deps.sh
# The targets reach the parsers' internals with `@testable import`, which a release build allows only for modules
# compiled with -enable-testing: the library modules carry no entry points of their own for the fuzzer.
swift build -c release --product strata-fuzz --scratch-path .build/fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld -Xswiftc -enable-testing
mkdir -p ".build/fuzz-corpus/$target"
# A fatal error's report comes from libFuzzer and the sanitizer; Swift's backtracer, run inside the sanitized
# process as well, is slow and reports a stack overflow of its own after each one.
export SWIFT_BACKTRACE=enable=no
options=(-max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1)
if $keep_going; then
    crashes=".build/fuzz-crashes/$target"
    mkdir -p "$crashes"
    options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -artifact_prefix="$crashes/")
    started="$crashes/.started"
    touch "$started"
fi
status=0
STRATA_FUZZ_TARGET="$target" .build/fuzz/release/strata-fuzz ".build/fuzz-corpus/$target" "Fuzz/$target" \
    "${options[@]}" || status=$?
if $keep_going; then
    # Only this run's: the folder keeps earlier runs' inputs.
    found=$(find "$crashes" -type f ! -name .started -newer "$started" | sort)
    echo "fuzz.sh: $(printf '%s' "$found" | grep -c . || true) input(s) kept this run in $crashes/ (crash-*, timeout-*, oom-*)"
    if [ -n "$found" ]; then
        printf '%s\n' "$found" | head -20
        exit 1
    fi
fi
exit "$status"
