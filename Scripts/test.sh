#!/usr/bin/env bash
# Runs the whole test suite (starting a throwaway PostgreSQL server for it). With CI=true it also checks
# formatting, storage-lint and the DocC documentation first. The suite builds and runs every Swift block of the
# README and Documentation/ (DocumentationSnippetTests); under CI=true its PostgreSQL blocks must run too.
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
    echo "== documentation (DocC, warnings as errors; a broken symbol link fails)"
    time STRATA_DOCS_SKIP_BUILD=1 bash Scripts/docs.sh --self-test
fi
echo "== test"
# The records tests run every shared body on SQLite and on PostgreSQL: start a throwaway server on loopback
# (unless STRATA_POSTGRES_URL already names one), and stop it however the tests end.
if [ -z "${STRATA_POSTGRES_URL:-}" ]; then
    eval "$(bash Scripts/postgres.sh start)"
    trap 'bash Scripts/postgres.sh stop' EXIT
    echo "== PostgreSQL test server on ${STRATA_POSTGRES_URL##*@}"
fi
swift test
