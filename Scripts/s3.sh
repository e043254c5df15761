#!/usr/bin/env bash
# A throwaway single-node Ceph cluster with an S3 RADOS Gateway on loopback, for the tests of the S3 client.
#
#   eval "$(Scripts/s3.sh start)"   # prints the exports: STRATA_S3_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
#                                   # AWS_ENDPOINT_URL, AWS_REGION, STRATA_S3_DIR
#   Scripts/s3.sh env               # prints the exports of the cluster in $STRATA_S3_DIR again
#   Scripts/s3.sh stop              # stops the cluster in $STRATA_S3_DIR and removes the folder
#   Scripts/s3.sh crash-gateway     # kills radosgw with SIGKILL (the monitor and the OSD keep running)
#   Scripts/s3.sh resume-gateway    # starts radosgw again on the same port and waits until it answers S3
#   Scripts/s3.sh hold-completion-lock UPLOAD_ID
#                                   # takes the lock radosgw takes to complete that multipart upload, for 10
#                                   # minutes, as a gateway killed while completing it leaves it
#
# One monitor, one memstore OSD (the objects live in the OSD's memory: nothing touches the disk; 2 GiB, or
# STRATA_S3_MEMORY_BYTES for a cluster that outlives many test runs), pools of size 1,
# and a RADOS Gateway (Beast front end) on 127.0.0.1 that answers path-style requests only
# (http://127.0.0.1:PORT/bucket/key). No manager is needed. Everything lives in a fresh temporary folder. The
# daemons run under `nice`: the machine is shared. `start` is idempotent: with $STRATA_S3_DIR naming a cluster that
# still answers, it prints that cluster's exports and starts nothing. Readiness is a real signed S3 request (the
# test bucket is created with it), bounded by STRATA_S3_START_TIMEOUT seconds (default 180).
#
# The daemons stop in the order radosgw, OSD, monitor: a gateway whose OSD is gone waits ~2 minutes to give up.
# `stop` leaves no process and no folder behind.
set -Eeuo pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
bucket=strata-test
region=us-east-1

log() { echo "s3.sh: $*" >&2; }

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The daemons are big and only the S3 tests need them: install them on first use, the way install-deps does.
ensure_installed() {
    command -v ceph-mon >/dev/null 2>&1 && command -v ceph-osd >/dev/null 2>&1 && command -v radosgw >/dev/null 2>&1 \
        && return 0
    bash "$script_dir/install-deps.sh" s3 >&2
}

ceph_cmd() { ceph -c "$dir/ceph.conf" --connect-timeout 20 "$@"; }

# Starts a daemon under nice; it daemonizes itself and writes its pid file into $dir/run.
daemon() { nice -n 10 "$@" -c "$dir/ceph.conf" >>"$dir/log/daemons.log" 2>&1; }

# Signs a bodiless request with curl's own SigV4 (not ours: this is the check that the gateway answers S3). The
# gateway refuses a signature without x-amz-content-sha256, which curl does not add: the SHA-256 of no bytes.
s3_curl() {
    curl -sS -o /dev/null -w '%{http_code}' --max-time 10 --aws-sigv4 "aws:amz:$region:s3" \
        -H 'x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' \
        --user "$(cat "$dir/access"):$(cat "$dir/secret")" "$@"
}

# Waits until the gateway answers a signed S3 request (creating the test bucket on the way), within the deadline.
# With `any`, any HTTP answer will do (the gateway is up but its user may not exist yet).
wait_for_gateway() {
    local deadline=$(($(date +%s) + ${STRATA_S3_START_TIMEOUT:-180})) code
    while :; do
        code=$(s3_curl -X PUT "http://127.0.0.1:$(cat "$dir/port")/$bucket" 2>/dev/null || true)
        # 200: created; 409 BucketAlreadyExists / BucketAlreadyOwnedByYou: there already.
        case "$code" in 200 | 409) return 0 ;; esac
        if [ "${1:-}" = any ] && [ "$code" != 000 ] && [ -n "$code" ]; then return 0; fi
        if [ "$(date +%s)" -ge "$deadline" ]; then
            log "the gateway did not answer S3 within ${STRATA_S3_START_TIMEOUT:-180} s (last HTTP status $code);" \
                "logs in $dir/log"
            tail -n 20 "$dir/log/client.rgw.log" >&2 2>/dev/null || true
            return 1
        fi
        sleep 0.5
    done
}

exports() {
    echo "export STRATA_S3_URL='s3://$bucket/'"
    echo "export AWS_ACCESS_KEY_ID='$(cat "$dir/access")'"
    echo "export AWS_SECRET_ACCESS_KEY='$(cat "$dir/secret")'"
    echo "export AWS_ENDPOINT_URL='http://127.0.0.1:$(cat "$dir/port")'"
    echo "export AWS_REGION='$region'"
    echo "export STRATA_S3_DIR='$dir'"
}

start_gateway() {
    daemon radosgw -n client.rgw
    wait_for_gateway "$@"
}

start() {
    dir=${STRATA_S3_DIR:-}
    if [ -n "$dir" ] && [ -f "$dir/port" ] && [ -f "$dir/access" ] && STRATA_S3_START_TIMEOUT=5 wait_for_gateway \
        2>/dev/null; then
        exports
        return 0
    fi
    ensure_installed
    dir=$(mktemp -d /tmp/strata-s3.XXXXXX)
    # Whatever fails from here on leaves nothing running.
    trap 'stop_cluster; rm -rf "$dir"' ERR
    mkdir -p "$dir/run" "$dir/log" "$dir/mon.a" "$dir/osd.0"
    local fsid mon_port rgw_port osd_uuid
    fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
    osd_uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
    mon_port=$(free_port)
    rgw_port=$(free_port)
    echo "$rgw_port" >"$dir/port"
    echo "STRATA$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n' | tr a-f A-F)" >"$dir/access"
    od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >"$dir/secret"
    cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
mon initial members = a
auth allow insecure global id reclaim = false
run dir = $dir/run
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid
log file = $dir/log/\$name.log
crash dir = $dir/crash
keyring = $dir/keyring
mon data = $dir/mon.\$id
osd data = $dir/osd.\$id
osd objectstore = memstore
memstore device bytes = ${STRATA_S3_MEMORY_BYTES:-2147483648}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon pg warn min per osd = 0
paxos propose interval = 0.05
mon osd reporter subtree level = osd
ms bind ipv6 = false
osd max object name len = 460
osd max object namespace len = 64
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port tcp_nodelay=1
rgw thread pool size = 64
rgw enable usage log = false
rgw dns name =
EOF
    # One keyring for every daemon and the admin; the monitor imports it (keys and capabilities) at mkfs.
    ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
    ceph-authtool "$dir/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
        --cap mgr 'allow *' >/dev/null
    ceph-authtool "$dir/keyring" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' >/dev/null
    ceph-authtool "$dir/keyring" --gen-key -n client.rgw --cap mon 'allow rw' --cap osd 'allow rwx' >/dev/null
    monmaptool --create --addv a "[v2:127.0.0.1:$mon_port]" --fsid "$fsid" "$dir/monmap" >/dev/null
    ceph-mon -c "$dir/ceph.conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring" \
        >>"$dir/log/daemons.log" 2>&1
    daemon ceph-mon -i a
    ceph_cmd osd new "$osd_uuid" >/dev/null
    ceph-osd -c "$dir/ceph.conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$dir/log/daemons.log" 2>&1
    daemon ceph-osd -i 0
    start_gateway any
    radosgw-admin -c "$dir/ceph.conf" user create --uid=strata --display-name=Strata \
        --access-key="$(cat "$dir/access")" --secret-key="$(cat "$dir/secret")" >/dev/null 2>>"$dir/log/daemons.log"
    wait_for_gateway
    trap - ERR
    exports
}

# Kills one daemon by the pid in its pid file and waits until it is gone (SIGKILL after `grace` seconds).
stop_daemon() {
    local name=$1 grace=$2 signal=${3:-TERM} pid waited=0
    [ -f "$dir/run/$name.pid" ] || return 0
    pid=$(cat "$dir/run/$name.pid")
    kill "-$signal" "$pid" 2>/dev/null || { rm -f "$dir/run/$name.pid"; return 0; }
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$waited" -ge $((grace * 10)) ]; then kill -KILL "$pid" 2>/dev/null || true; fi
        sleep 0.1
        waited=$((waited + 1))
    done
    rm -f "$dir/run/$name.pid"
}

# The cluster is thrown away (memstore: nothing on disk to flush), so the daemons get SIGKILL at once instead of
# a SIGTERM each spends ~2 s on (16 s measured for the three with a grace period); the order still matters.
stop_cluster() {
    stop_daemon client.rgw 0 KILL
    stop_daemon osd.0 0 KILL
    stop_daemon mon.a 0 KILL
}

stop() {
    dir=${STRATA_S3_DIR:-}
    [ -n "$dir" ] && [ -d "$dir/run" ] || return 0
    stop_cluster
    rm -rf "$dir"
}

crash_gateway() {
    dir=${STRATA_S3_DIR:?}
    stop_daemon client.rgw 0 KILL
}

resume_gateway() {
    dir=${STRATA_S3_DIR:?}
    start_gateway
}

# RGW serializes the completions of an upload with an exclusive lock, named RGWCompleteMultipart, on the upload's
# meta object (in the buckets' non-EC pool, named ...__multipart_KEY.UPLOAD_ID.meta); a gateway that dies
# completing it leaves the lock until it expires. This takes that lock under another owner.
hold_completion_lock() {
    dir=${STRATA_S3_DIR:?}
    local upload=${1:?usage: $0 hold-completion-lock UPLOAD_ID} meta
    meta=$(rados -c "$dir/ceph.conf" -p default.rgw.buckets.non-ec ls | grep -F -- ".$upload.meta" | head -n 1)
    [ -n "$meta" ] || {
        echo "s3.sh: no multipart upload $upload" >&2
        exit 1
    }
    rados -c "$dir/ceph.conf" -p default.rgw.buckets.non-ec lock get "$meta" RGWCompleteMultipart \
        --lock-type exclusive --lock-duration 600 --lock-cookie killed-gateway
}

case "${1:-}" in
start) start ;;
env)
    dir=${STRATA_S3_DIR:?}
    exports
    ;;
stop) stop ;;
crash-gateway) crash_gateway ;;
resume-gateway) resume_gateway ;;
hold-completion-lock) hold_completion_lock "${2:-}" ;;
*)
    echo "usage: $0 start|env|stop|crash-gateway|resume-gateway|hold-completion-lock UPLOAD_ID" >&2
    exit 2
    ;;
esac
