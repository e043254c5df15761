#!/usr/bin/env bash
# Runs the fleet linearizability tests that inject faults (workers killed mid-move, PostgreSQL frozen and thawed,
# PostgreSQL restarted, the sessions of lock holders ended, the S3 gateway crashed and resumed) RUNS times in a row
# (default 20), and stops at the first failing run, leaving its whole output in the log folder it names. Each run
# prints its summary lines (fault, seed, operations, errors, outages) as the tests print them.
#
#   swift build --build-tests          # first: the runs use --skip-build
#   Scripts/fleet-soak.sh [RUNS]
#
# The tests need the servers Scripts/test.sh starts (STRATA_POSTGRES_URL, STRATA_POSTGRES_DIR, STRATA_S3_URL,
# STRATA_S3_DIR, AWS_*): with those exported, the running servers are used (and the gateway is killed and resumed
# under them); without them, throwaway ones are started and stopped at the end. STRATA_SOAK_TESTS narrows the tests
# (a regular expression of test names; the default is every fault test), STRATA_FLEET_SECONDS lengthens each run.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
tests=${STRATA_SOAK_TESTS:-workersKilledMidMove|postgresFrozen|postgresRestarted|postgresSessionsOfLockHolders|gatewayCrashed}
filter="FleetLinearizabilityTests/($tests)"
logs=$(mktemp -d /tmp/strata-fleet-soak.XXXXXX)

stops=()
stop_servers() { for command in "${stops[@]}"; do $command || true; done; }
trap stop_servers EXIT
if [ -z "${STRATA_POSTGRES_URL:-}" ]; then
    eval "$(bash Scripts/postgres.sh start)"
    stops+=("bash Scripts/postgres.sh stop")
fi
if [ -z "${STRATA_S3_URL:-}" ]; then
    eval "$(bash Scripts/s3.sh start)"
    stops+=("bash Scripts/s3.sh stop")
fi

for run in $(seq 1 "$runs"); do
    log="$logs/run-$run.log"
    start=$(date +%s)
    if swift test --skip-build --filter "$filter" >"$log" 2>&1; then status=passed; else status=FAILED; fi
    echo "== run $run/$runs: $status in $(($(date +%s) - start)) s"
    grep -E '^fleet \(' "$log" | sed 's/^/   /' || true
    if [ "$status" = FAILED ]; then
        # The failing expectations (the checker's report among them), then where the whole output is.
        grep -E -A 40 'Expectation failed|recorded an issue|error:' "$log" | head -n 200 || true
        echo "run $run failed; its whole output: $log"
        exit 1
    fi
done
echo "all $runs runs passed; logs in $logs"
