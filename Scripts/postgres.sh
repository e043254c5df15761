#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback, for the tests and benchmarks of the PostgreSQL records engine.
#
#   eval "$(Scripts/postgres.sh start)"   # prints the exports: STRATA_POSTGRES_URL, STRATA_POSTGRES_DIR,
#                                         # STRATA_POSTGRES_CA
#   Scripts/postgres.sh stop              # stops the server in $STRATA_POSTGRES_DIR and removes the folder
#   Scripts/postgres.sh crash             # stops it the way a crash would (immediate: no checkpoint), keeping it
#   Scripts/postgres.sh resume            # starts it again on the same port, recovering from its WAL
#   Scripts/postgres.sh freeze [SECONDS]  # stops the postmaster and every server process with SIGSTOP (a hung
#                                         # server: connections open, nothing answers); thaws by itself after
#                                         # SECONDS (default 60), so a test that dies cannot leave it hung
#   Scripts/postgres.sh thaw              # resumes them with SIGCONT
#   Scripts/postgres.sh terminate-lock-holders
#                                         # ends every session that holds an advisory lock (pg_terminate_backend),
#                                         # as a network cut of those clients would; the server and every other
#                                         # session go on. Prints how many it ended
#
# The cluster lives in a fresh temporary folder, listens on 127.0.0.1 only (and on a socket in that folder),
# uses password (SCRAM) authentication over TCP, and is initialized with the C locale. With openssl at hand it
# also serves TLS, with a self-signed certificate for 127.0.0.1 exported as STRATA_POSTGRES_CA (clients that
# ask for TLS get it; `sslmode=verify-full sslrootcert=$STRATA_POSTGRES_CA` verifies it). PostgreSQL refuses to
# run as root, so as root the server runs as the `postgres` system user (created by Debian's package).
# `wal_buffers` is 16 MB, as on a production server: what PostgreSQL picks by itself for a `shared_buffers` of
# 512 MB or more (with 128 MB it would pick 4 MB, and a bulk insert of 20,000 records then fills them about 130
# times on a loaded machine, its backend writing the WAL itself instead of the WAL writer).
set -euo pipefail

find_bin() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return; fi
    done
    command -v pg_ctl >/dev/null 2>&1 && dirname "$(command -v pg_ctl)" && return
    echo "postgres.sh: no PostgreSQL server binaries (install Debian's postgresql package)" >&2
    exit 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
    local bin dir port password url
    bin=$(find_bin)
    dir=$(mktemp -d /tmp/strata-postgres.XXXXXX)
    chmod 0755 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    password="strata-$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf '%s\n' "$password" >"$dir/pwfile"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir/pwfile"
    as_owner "$bin/initdb" -D "$dir/data" -U strata --pwfile="$dir/pwfile" --auth-host=scram-sha-256 \
        --auth-local=trust --locale=C --encoding=UTF8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    rm -f "$dir/pwfile"
    echo "$port" >"$dir/port"
    if command -v openssl >/dev/null 2>&1; then
        openssl req -new -x509 -days 7 -nodes -newkey rsa:2048 -subj "/CN=127.0.0.1" \
            -addext "subjectAltName=IP:127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.crt" >/dev/null 2>&1
        chmod 0600 "$dir/server.key"
        [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir/server.key" "$dir/server.crt"
    fi
    launch "$bin" "$dir"
    as_owner "$bin/createdb" -h "$dir" -p "$port" -U strata strata_test
    url="postgresql://strata:$password@127.0.0.1:$port/strata_test"
    echo "export STRATA_POSTGRES_URL='$url'"
    echo "export STRATA_POSTGRES_DIR='$dir'"
    echo "export STRATA_POSTGRES_BIN='$bin'"
    [ -f "$dir/server.crt" ] && echo "export STRATA_POSTGRES_CA='$dir/server.crt'"
    return 0
}

launch() {
    local bin=$1 dir=$2 tls=""
    [ -f "$dir/server.crt" ] && tls="-c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $(cat "$dir/port") -k $dir -c max_connections=400 -c shared_buffers=128MB -c wal_buffers=16MB $tls" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
}

crash() {
    as_owner "$(find_bin)/pg_ctl" -D "${STRATA_POSTGRES_DIR:?}/data" -m immediate -w stop >/dev/null
}

resume() {
    launch "$(find_bin)" "${STRATA_POSTGRES_DIR:?}"
}

# The postmaster (first line of postmaster.pid) and its children, by process id.
server_pids() {
    local postmaster
    postmaster=$(head -n 1 "${STRATA_POSTGRES_DIR:?}/data/postmaster.pid")
    echo "$postmaster"
    ps -o pid= --ppid "$postmaster" || true
}

signal_server() {
    local pid
    for pid in $(server_pids); do kill "-$1" "$pid" 2>/dev/null || true; done
}

freeze() {
    local seconds=${1:-60}
    signal_server STOP
    # The safety net: thaw after SECONDS even if nobody asks, in a process of its own.
    STRATA_POSTGRES_DIR=$STRATA_POSTGRES_DIR nohup bash "$0" thaw-after "$seconds" >/dev/null 2>&1 </dev/null &
}

thaw() {
    signal_server CONT
}

terminate_lock_holders() {
    local dir=${STRATA_POSTGRES_DIR:?}
    psql -h "$dir" -p "$(cat "$dir/port")" -U strata -d strata_test -Atq -c "SELECT count(pg_terminate_backend(pid))
        FROM (SELECT DISTINCT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()) AS h"
}

stop() {
    local dir=${STRATA_POSTGRES_DIR:-}
    [ -n "$dir" ] && [ -d "$dir/data" ] || return 0
    [ -f "$dir/data/postmaster.pid" ] && signal_server CONT
    as_owner "$(find_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
crash) crash ;;
resume) resume ;;
freeze) freeze "${2:-60}" ;;
thaw) thaw ;;
terminate-lock-holders) terminate_lock_holders ;;
thaw-after)
    sleep "${2:?}"
    thaw
    ;;
*)
    echo "usage: $0 start|stop|crash|resume|freeze [seconds]|thaw|terminate-lock-holders" >&2
    exit 2
    ;;
esac
