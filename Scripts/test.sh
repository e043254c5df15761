#!/usr/bin/env bash
# Runs the whole test suite (starting a throwaway PostgreSQL server and a Ceph S3 gateway for it). With CI=true it
# also checks formatting, storage-lint and the DocC documentation first. The suite builds and runs every Swift
# block of the README and Documentation/ (DocumentationSnippetTests); under CI=true its PostgreSQL blocks must run
# too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-deps.sh

if [ "${CI:-}" = "true" ]; then
    echo "== format check (swift format lint --strict)"
    swift format lint --strict -r Sources Tests Benchmarks Samples Plugins Package.swift
    echo "== release-build guard (an unguarded @testable import under Sources/ breaks swift build -c release)"
    for file in $(grep -rl "@testable import" Sources); do
        grep -q "^#if DEBUG || FUZZING" "$file" || { echo "$file: @testable import outside #if DEBUG || FUZZING"; exit 1; }
    done
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
stops=()
stop_servers() { for command in "${stops[@]}"; do $command || true; done; }
trap stop_servers EXIT
if [ -z "${STRATA_POSTGRES_URL:-}" ]; then
    eval "$(bash Scripts/postgres.sh start)"
    stops+=("bash Scripts/postgres.sh stop")
    echo "== PostgreSQL test server on ${STRATA_POSTGRES_URL##*@}"
fi
# The S3 client's live tests run against a throwaway single-node Ceph cluster with a RADOS Gateway on loopback
# (unless STRATA_S3_URL already names one). Its daemons are installed on first use. Outside CI a gateway that does
# not start only skips those tests; under CI=true it fails the run (and a test fails when they did not run).
if [ -z "${STRATA_S3_URL:-}" ]; then
    if exports=$(bash Scripts/s3.sh start); then
        eval "$exports"
        stops+=("bash Scripts/s3.sh stop")
        echo "== S3 test gateway at ${AWS_ENDPOINT_URL}"
    elif [ "${CI:-}" = "true" ]; then
        echo "the S3 test gateway did not start (Scripts/s3.sh start); see its messages above" >&2
        exit 1
    else
        echo "== no S3 test gateway (Scripts/s3.sh start failed): the live S3 tests are skipped" >&2
    fi
fi
swift test
