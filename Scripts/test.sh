#!/usr/bin/env bash
# Runs the whole test suite. With CI=true it also checks formatting first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-deps.sh

if [ "${CI:-}" = "true" ]; then
    echo "== format check (swift format lint --strict)"
    swift format lint --strict -r Sources Tests Benchmarks Samples Package.swift
fi

echo "== build"
swift build --build-tests
echo "== test"
swift test
