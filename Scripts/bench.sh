#!/usr/bin/env bash
# Runs every benchmark executable (Benchmarks/*) in release mode over several rounds and reports each ratio's
# median and range, against its target:
#
#   Scripts/bench.sh                # 3 rounds of every benchmark (each round runs baseline and Strata, alternating)
#   Scripts/bench.sh --quick        # 1 round, the benchmarks' own --quick sizes: a smoke run of a few minutes
#   Scripts/bench.sh --rounds 5     # more rounds
#   Scripts/bench.sh secrets files  # only these benchmarks (defaults files records secrets postgres storage backup s3);
#                                   # the other suites' rows of the previous run stay in the report, marked with
#                                   # when they were measured
#
# Writes, in Benchmarks/results/: benchmarks.jsonl (every row of every round, as BenchmarkKit emitted it),
# suites.tsv (per suite: when it was measured and in how many rounds),
# benchmarks.json (per row: median, min, max, target, met), RESULTS.md (the table) and results.svg (each
# ratio's median as a dot, its range as whiskers, its target as a mark; any browser opens it), plus each run's
# printed output in logs/. The PostgreSQL benchmark gets a throwaway server from Scripts/postgres.sh; the S3 one a
# throwaway Ceph gateway from Scripts/s3.sh (unless STRATA_S3_URL names one) and boto3 in a virtualenv under .build.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3
quick=()
selected=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=(--quick); rounds=1 ;;
        --rounds) rounds="$2"; shift ;;
        defaults|files|records|secrets|postgres|storage|backup|s3) selected+=("$1") ;;
        *) echo "usage: Scripts/bench.sh [--quick] [--rounds N] [defaults files records secrets postgres storage backup s3]" >&2; exit 64 ;;
    esac
    shift
done
[ ${#selected[@]} -eq 0 ] && selected=(defaults files records secrets postgres storage backup s3)

extra=()
# The backup benchmark's baselines: restic, and age for `tar -cz | age`; GNU time measures each step's peak memory.
[[ " ${selected[*]} " == *" backup "* ]] && extra=(restic age time)
# The S3 benchmark's baseline, boto3, goes into a virtualenv (Debian's python3 makes one with python3-venv).
[[ " ${selected[*]} " == *" s3 "* ]] && extra+=(python3-venv)
bash Scripts/install-deps.sh ${extra[@]+"${extra[@]}"}
out=Benchmarks/results
mkdir -p "$out/logs"
# Only the selected suites' rows and logs are replaced; a full run replaces them all.
if [ -f "$out/benchmarks.jsonl" ]; then
    python3 - "$out/benchmarks.jsonl" "${selected[@]}" <<'PY'
import json, sys
path, chosen = sys.argv[1], {"strata-bench-" + name for name in sys.argv[2:]}
kept = [line for line in open(path) if line.strip() and json.loads(line)["suite"] not in chosen]
open(path, "w").writelines(kept)
PY
fi
touch "$out/suites.tsv"
for name in "${selected[@]}"; do
    rm -f "$out"/logs/"$name"-*.txt
    sed -i "/^$name\t/d" "$out/suites.tsv"
done
export STRATA_BENCH_JSON="$PWD/$out/benchmarks.jsonl"
# The rounds are whole runs, one after another (each run alternates baseline and Strata inside): a benchmark's
# own --rounds stays 1 so a full run keeps to its time budget.
export STRATA_BENCH_ROUNDS=1

started=$(date +%s)
echo "== build (release)"
for name in "${selected[@]}"; do swift build -c release --product "strata-bench-$name" >/dev/null; done
bin="$(swift build -c release --show-bin-path)"

stop_postgres=false
# The storage benchmark's shared-store rows (--shared) need both servers too.
if [[ " ${selected[*]} " =~ " "(postgres|storage)" " ]] && [ -z "${STRATA_POSTGRES_URL:-}" ]; then
    eval "$(bash Scripts/postgres.sh start)"
    stop_postgres=true
fi
stop_s3=false
if [[ " ${selected[*]} " =~ " "(s3|storage)" " ]] && [ -z "${STRATA_S3_URL:-}" ]; then
    eval "$(bash Scripts/s3.sh start)"
    stop_s3=true
fi
if [[ " ${selected[*]} " == *" s3 "* ]]; then
    # boto3, the S3 benchmark's baseline, in a virtualenv of its own: from PyPI, else Debian's python3-boto3.
    venv=.build/s3-bench-venv
    if ! "$venv/bin/python" -c 'import boto3' 2>/dev/null; then
        rm -rf "$venv"
        python3 -m venv "$venv"
        if ! "$venv/bin/pip" install --quiet --disable-pip-version-check boto3; then
            echo "   pip cannot install boto3; using Debian's python3-boto3" >&2
            bash Scripts/install-deps.sh python3-boto3
            rm -rf "$venv"
            /usr/bin/python3 -m venv --system-site-packages "$venv"
        fi
    fi
    export STRATA_BENCH_PYTHON="$PWD/$venv/bin/python"
fi
cleanup() {
    if $stop_postgres; then bash Scripts/postgres.sh stop >/dev/null 2>&1 || true; fi
    if $stop_s3; then bash Scripts/s3.sh stop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

for round in $(seq 1 "$rounds"); do
    for name in "${selected[@]}"; do
        echo "== round $round/$rounds: $name"
        export STRATA_BENCH_ROUND="$round"
        log="$out/logs/$name-$round.txt"
        if ! "$bin/strata-bench-$name" ${quick[@]+"${quick[@]}"} >"$log" 2>&1; then
            echo "   strata-bench-$name failed (see $log)" >&2
        fi
        if [ "$name" = storage ]; then
            log="$out/logs/storage-shared-$round.txt"
            if ! "$bin/strata-bench-storage" --shared ${quick[@]+"${quick[@]}"} >"$log" 2>&1; then
                echo "   strata-bench-storage --shared failed (see $log)" >&2
            fi
        fi
    done
done

elapsed=$(( $(date +%s) - started ))
for name in "${selected[@]}"; do
    printf '%s\t%s\t%s%s\n' "$name" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$rounds" "${quick:+ (quick)}" >>"$out/suites.tsv"
done
python3 Scripts/bench-report.py "$out" --rounds "$rounds" --seconds "$elapsed" ${quick[@]+"${quick[@]}"}
if command -v rsvg-convert >/dev/null 2>&1; then
    rsvg-convert -w 1400 "$out/results.svg" -o "$out/results.png"
fi
echo "== $out/RESULTS.md, $out/benchmarks.json, $out/results.svg (${elapsed} s)"
