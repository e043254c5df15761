#!/usr/bin/env python3
"""Turns the JSON lines BenchmarkKit appended (benchmarks.jsonl, one object per Comparison row per round) into
benchmarks.json, RESULTS.md and results.svg in the same folder. Used by Scripts/bench.sh. A suite that suites.tsv
lists but benchmarks.jsonl has no rows of (a run of other suites; a fresh clone, which has the committed report but
not the raw rows) keeps its rows from the benchmarks.json being replaced.

    python3 Scripts/bench-report.py Benchmarks/results [--rounds N] [--seconds S] [--quick]
"""
import json
import math
import os
import platform
import statistics
import sys
import time
from xml.sax.saxutils import escape

SUITES = {
    "strata-bench-defaults": "defaults",
    "strata-bench-files": "files",
    "strata-bench-records": "records",
    "strata-bench-secrets": "secrets",
    "strata-bench-postgres": "postgres",
    "strata-bench-storage": "storage",
    "strata-bench-backup": "backup",
    "strata-bench-s3": "s3",
}


def summarize(lines):
    """Groups the rows by suite, name and baseline, in first-seen order: median, min and max of the ratio per
    group. The baseline is part of the key: one step compared with two tools (a first backup against restic and
    against `tar -cz | age`) is two rows, never one range mixing both."""
    groups = {}
    for row in lines:
        key = (row["suite"], row["name"], row.get("baselineName", ""))
        groups.setdefault(key, []).append(row)
    results = []
    for (suite, name, _), rows in groups.items():
        ratios = [row["ratio"] for row in rows if row["ratio"] is not None and math.isfinite(row["ratio"])]
        if not ratios:
            continue
        target = rows[-1].get("target")
        median = statistics.median(ratios)
        results.append({
            "suite": SUITES.get(suite, suite), "name": name, "baseline": rows[-1].get("baselineName", ""),
            "rounds": len(ratios), "median": median, "min": min(ratios), "max": max(ratios), "target": target,
            "met": None if target is None else median >= target,
            "unit": rows[-1].get("unit", "seconds"),
            "strataSecondsPerOp": statistics.median(r["strata"] / max(r["operations"], 1) for r in rows),
            "baselineSecondsPerOp": statistics.median(r["baseline"] / max(r["operations"], 1) for r in rows),
        })
    return results


def per_op(seconds, unit="seconds"):
    if unit == "bytes":
        return "%.2f MB" % (seconds / 1e6)
    if seconds < 1e-6:
        return "%.0f ns" % (seconds * 1e9)
    if seconds < 1e-3:
        return "%.2f µs" % (seconds * 1e6)
    if seconds < 1:
        return "%.2f ms" % (seconds * 1e3)
    return "%.2f s" % seconds


def markdown(results, meta):
    out = ["# Benchmark results", "",
           "Written by `Scripts/bench.sh` on %s: %d round(s)%s, %s, %d cores, %d s in all. Ratio = baseline time / "
           "Strata time (above 1, Strata is faster; for a size row, baseline bytes / Strata bytes); median of the rounds, range min–max. The chart: "
           "[results.svg](results.svg)." % (meta["date"], meta["rounds"], " (quick sizes)" if meta["quick"] else "",
                                            meta["machine"], meta["cores"], meta["seconds"]),
           ""]
    if meta["suites"]:
        out += ["Each suite's rows come from its latest run (`Scripts/bench.sh SUITE…` re-measures only those): " +
                "; ".join("%s %s, %s round(s)" % suite for suite in meta["suites"]) + ".", ""]
    out += ["| suite | benchmark | baseline | Strata/op | baseline/op | ratio (median) | range | target | met |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        target = ("≥ %.4g×" if r["unit"] == "bytes" else "≥ %.2g×") % r["target"] if r["target"] is not None else "–"
        met = "–" if r["met"] is None else ("yes" if r["met"] else "**no**")
        digits = 4 if r["unit"] == "bytes" else 2
        out.append(("| %%s | %%s | %%s | %%s | %%s | %%.%df× | %%.%df–%%.%df× | %%s | %%s |" % (digits, digits, digits)) % (
            r["suite"], r["name"].replace("|", "\\|"), r["baseline"].replace("|", "\\|"), per_op(r["strataSecondsPerOp"], r["unit"]),
            per_op(r["baselineSecondsPerOp"], r["unit"]), r["median"], r["min"], r["max"], target, met))
    return "\n".join(out) + "\n"


def svg(results, meta):
    """One row per ratio on a log axis: the median as a dot, the range as whiskers, the target as a mark."""
    row_height, top, left, right = 26, 70, 430, 40
    plot_width = 620
    width = left + plot_width + right
    height = top + row_height * len(results) + 60
    values = [v for r in results for v in (r["min"], r["max"], r["target"] or r["median"])]
    low = 10 ** math.floor(math.log10(max(min(values), 1e-3)))
    high = 10 ** math.ceil(math.log10(max(max(values), 1.0001)))
    if high / low < 100:
        high = low * 100

    def x(value):
        value = min(max(value, low), high)
        return left + (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low)) * plot_width

    # Suites kept from earlier runs may have been measured over another number of rounds than this run's.
    counts = sorted({result["rounds"] for result in results}) or [meta["rounds"]]
    rounds_text = "%d" % counts[0] if len(counts) == 1 else "%d–%d" % (counts[0], counts[-1])
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="13">' % (width, height, width, height),
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="%d" y="24" font-size="17" font-weight="bold">Strata vs baselines: ratio = baseline time / Strata '
        'time (log scale)</text>' % 16,
        '<text x="%d" y="44" fill="#555">median of %s round(s) (dot), range (whiskers), target (bar: green met, '
        'red missed) — %s, %d cores</text>' % (16, rounds_text, escape(meta["date"]), meta["cores"]),
    ]
    # Bands under every other row, then the grid (each power of ten; 1× darker), then the rows.
    for index in range(0, len(results), 2):
        parts.append('<rect x="0" y="%d" width="%d" height="%d" fill="#f3f6fb"/>' % (
            top + index * row_height, width, row_height))
    decade = low
    while decade <= high * 1.0001:
        for step in (1, 2, 5):
            value = decade * step
            if value > high * 1.0001:
                break
            gx = x(value)
            strong = abs(value - 1) < 1e-9
            parts.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="%s"/>' % (
                gx, top - 8, gx, height - 45, "#888" if strong else ("#ddd" if step == 1 else "#f0f0f0"),
                "1.5" if strong else "1"))
            if step == 1 or (high / low <= 1000):
                parts.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%s×</text>' % (
                    gx, height - 28, ("%g" % value)))
        decade *= 10
    for index, r in enumerate(results):
        y = top + index * row_height + row_height / 2
        label = "%s · %s" % (r["suite"], r["name"])
        if len(label) > 58:
            label = label[:57] + "…"
        parts.append('<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>' % (
            left - 12, y, escape(label)))
        met = r["met"]
        color = "#1f6fd1" if met is None else ("#1a9850" if met else "#d73027")
        parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>' % (
            x(r["min"]), y, x(r["max"]), y, color))
        for end in (r["min"], r["max"]):
            parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>' % (
                x(end), y - 6, x(end), y + 6, color))
        if r["target"] is not None:
            tx = x(r["target"])
            parts.append('<rect x="%.1f" y="%.1f" width="4" height="%d" fill="%s" opacity="0.85"/>' % (
                tx - 2, y - 10, 20, "#1a9850" if met else "#d73027"))
        parts.append('<circle cx="%.1f" cy="%.1f" r="5.5" fill="%s" stroke="white" stroke-width="1.5"/>' % (
            x(r["median"]), y, color))
        parts.append('<text x="%.1f" y="%.1f" dominant-baseline="middle" fill="#333" font-size="11">%.2f×</text>' % (
            min(x(r["max"]) + 10, width - 40), y, r["median"]))
    parts.append('<text x="%d" y="%d" text-anchor="middle" fill="#444">ratio (× as fast as the baseline; right of '
                 '1× Strata is faster)</text>' % (left + plot_width / 2, height - 8))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def suite_runs(folder):
    """(suite, when, rounds) per line of suites.tsv, which Scripts/bench.sh keeps: when each suite was measured."""
    path = os.path.join(folder, "suites.tsv")
    if not os.path.exists(path):
        return []
    with open(path) as table:
        return [tuple(line.rstrip("\n").split("\t")) for line in table if line.count("\t") == 2]


def main():
    folder = sys.argv[1]
    args = sys.argv[2:]
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 1
    seconds = int(args[args.index("--seconds") + 1]) if "--seconds" in args else 0
    lines = []
    with open(os.path.join(folder, "benchmarks.jsonl")) as log:
        for text in log:
            if text.strip():
                lines.append(json.loads(text))
    results = summarize(lines)
    # Suites measured before but not in this run's rows (a run of some suites, or a fresh clone, where the raw rows
    # of earlier runs are not kept): their rows come from the report this one replaces, as they were.
    runs = suite_runs(folder)
    measured = {r["suite"] for r in results}
    previous = os.path.join(folder, "benchmarks.json")
    if os.path.exists(previous):
        with open(previous) as report:
            kept = [r for r in json.load(report).get("results", [])
                    if r["suite"] not in measured and any(r["suite"] == run[0] for run in runs)]
        order = {run[0]: index for index, run in enumerate(runs)}
        results = sorted(kept + results, key=lambda r: order.get(r["suite"], len(order)))
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rounds": rounds, "quick": "--quick" in args,
        "machine": platform.machine(), "cores": os.cpu_count() or 0, "seconds": seconds,
        "suites": runs,
    }
    with open(os.path.join(folder, "benchmarks.json"), "w") as out:
        json.dump({"run": meta, "results": results}, out, indent=2)
        out.write("\n")
    with open(os.path.join(folder, "RESULTS.md"), "w") as out:
        out.write(markdown(results, meta))
    with open(os.path.join(folder, "results.svg"), "w") as out:
        out.write(svg(results, meta))
    missed = [r for r in results if r["met"] is False]
    print("%d ratios, %d with a target, %d missed" % (
        len(results), sum(r["target"] is not None for r in results), len(missed)))


if __name__ == "__main__":
    main()
