"""The boto3 side of strata-bench-s3: the same transfers, written the way a boto3 user writes them.

Each command runs one measured step in this process and prints one line, `seconds peak_kib cpu_seconds`: the
time of the step alone (the interpreter's start and the client's creation are left out), the process's peak
resident memory, and the CPU time the step spent in this process (all threads). The gateway and the credentials come from the standard variables (AWS_ENDPOINT_URL, AWS_REGION,
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), as for any boto3 program.

    python boto3_side.py upload FILE BUCKET KEY           # the managed transfer, upload_file with its defaults
    python boto3_side.py download BUCKET KEY FILE         # the managed transfer, download_file with its defaults
    python boto3_side.py put-many BUCKET PREFIX COUNT SIZE THREADS
    python boto3_side.py get-many BUCKET PREFIX COUNT THREADS
    python boto3_side.py put-floor BUCKET PREFIX COUNT SIZE    # bare put_object in a loop, no checksum header
    python boto3_side.py delete-prefix BUCKET PREFIX

THREADS is 1 for a plain loop, else the size of a ThreadPoolExecutor sharing one client (boto3's documented way
to use a client from several threads; its connection pool holds 10 connections by default).
"""

import concurrent.futures
import os
import resource
import sys
import time

import boto3
from botocore.config import Config


def client(**options):
    # Path-style addressing: Ceph's gateway answers nothing else without wildcard DNS.
    return boto3.client("s3", config=Config(s3={"addressing_style": "path"}, **options))


CPU_START = [0.0]


def start_clock():
    """Starts the step's clocks: returns its wall-clock start, and notes the CPU time so far."""
    CPU_START[0] = time.process_time()
    return time.perf_counter()


def report(seconds):
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{seconds:.6f} {peak_kib} {time.process_time() - CPU_START[0]:.6f}")


def run_threads(count, threads, work):
    if threads <= 1:
        for index in range(count):
            work(index)
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
        for _ in pool.map(work, range(count)):
            pass


def main(arguments):
    command = arguments[0]
    s3 = client()
    if command == "upload":
        path, bucket, key = arguments[1:4]
        start = start_clock()
        s3.upload_file(path, bucket, key)
        report(time.perf_counter() - start)
    elif command == "download":
        bucket, key, path = arguments[1:4]
        start = start_clock()
        s3.download_file(bucket, key, path)
        report(time.perf_counter() - start)
    elif command == "put-many":
        bucket, prefix = arguments[1:3]
        count, size, threads = (int(value) for value in arguments[3:6])
        bodies = [os.urandom(size) for _ in range(count)]
        start = start_clock()
        run_threads(count, threads, lambda index: s3.put_object(Bucket=bucket, Key=f"{prefix}{index}", Body=bodies[index]))
        report(time.perf_counter() - start)
    elif command == "put-floor":
        # boto3's barest signed PUT: no flexible checksum (boto3 >= 1.36 adds a CRC-32 header by default).
        s3 = client(request_checksum_calculation="when_required")
        bucket, prefix = arguments[1:3]
        count, size = (int(value) for value in arguments[3:5])
        bodies = [os.urandom(size) for _ in range(count)]
        start = start_clock()
        for index in range(count):
            s3.put_object(Bucket=bucket, Key=f"{prefix}{index}", Body=bodies[index])
        report(time.perf_counter() - start)
    elif command == "get-many":
        bucket, prefix = arguments[1:3]
        count, threads = (int(value) for value in arguments[3:5])
        total = [0] * count

        def get(index):
            total[index] = len(s3.get_object(Bucket=bucket, Key=f"{prefix}{index}")["Body"].read())

        start = start_clock()
        run_threads(count, threads, get)
        report(time.perf_counter() - start)
        if 0 in total:
            sys.exit(f"get-many: an object of {prefix} came back empty")
    elif command == "delete-prefix":
        bucket, prefix = arguments[1:3]
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
            if keys:
                s3.delete_objects(Bucket=bucket, Delete={"Objects": keys})
        report(0)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
