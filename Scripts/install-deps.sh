#!/usr/bin/env bash
# Installs the Debian packages Strata builds and tests with, when any is missing.
# Safe to run again: it installs nothing when everything is present.
#
#   Scripts/install-deps.sh               # the packages every build and test needs
#   Scripts/install-deps.sh s3            # only the Ceph daemons Scripts/s3.sh boots (big: not for every user)
#   Scripts/install-deps.sh restic age time  # those packages too (Scripts/bench.sh: the backup benchmark's
#                                            # baselines, and GNU time for each step's peak memory)
set -euo pipefail

# C libraries (the -dev packages the system-library targets link), the outside tools the interop tests use, and
# the PostgreSQL server the tests of the PostgreSQL records engine start on loopback (Scripts/postgres.sh), and the
# comparison tools and chart renderer of the benchmarks (pigz, rsvg-convert), and the shells whose syntax the
# completion scripts of `strata completions` are checked against (zsh, fish), and libcurl for the S3 client.
packages=(
    pkg-config zlib1g-dev libsqlite3-dev libsodium-dev libpq-dev sqlite3 unzip zip poppler-utils qpdf sox
    postgresql postgresql-client openssl libdeflate-dev pigz librsvg2-bin zsh fish libcurl4-openssl-dev libssl-dev
)
# A single-node Ceph cluster with its S3 gateway (monitor, OSD, RADOS Gateway), for the S3 client's tests.
if [ "${1:-}" = s3 ]; then packages=(ceph-mon ceph-osd radosgw); else packages+=("$@"); fi

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: not a Debian-based system; install the development files of zlib, libdeflate, SQLite 3, libsodium, libpq, libcurl and OpenSSL (and a PostgreSQL server for the tests) yourself." >&2
    exit 0
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
