#!/usr/bin/env bash
# Runs the whole test suite. With CI=true it also checks formatting first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-deps.sh

if [ "${CI:-}" = "true" ]; then
    echo "== format check (swift format lint --strict)"
    swift format lint --strict -r Sources Tests Benchmarks Samples Plugins Package.swift
fi

echo "== build"
swift build --build-tests
if [ "${CI:-}" = "true" ]; then
    echo "== storage-lint on the sources and on the keys sample (the plugin, built and run by SwiftPM)"
    # The torture harness makes its keys up on purpose (key-N), so it is left out.
    "$(swift build --show-bin-path)/strata" lint $(ls -d Sources/*/ | grep -v strata-torture) Samples --strict
    swift package storage-lint --target KeysSample --strict
fi
echo "== test"
swift test
