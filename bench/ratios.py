#!/usr/bin/python3
"""Markdown table of poolconv_bench results: poolconv's median time and GB/s, and how oneDNN compares.

    poolconv_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \\
                   --benchmark_format=json > bench.json
    /usr/bin/python3 bench/ratios.py bench.json [--times]

Reads Google Benchmark JSON (--benchmark_format=json or --benchmark_out=FILE; '-' or no file: stdin).
Uses the "median" aggregates when present, else the median of the individual runs. A ratio is
another implementation's median time / poolconv's: above 1 means poolconv is faster; ratios below 1
are in bold. Columns: oneDNN NCHW and blocked, and poolconv_adams2019 / poolconv_mullapudi2016 (the
autoschedulers' checked-in schedules) when the input has them. --times adds their median times.
Convolutions also get poolconv's GFLOP/s and its fraction of the FMA peak that PEAK/fma/<n>t
measured in the same run; pooling shapes poolconv's GB/s as a fraction of the copy bandwidth that
<ID>/copy/<n>t measured at the shape's footprint and thread count in the same run (the "limit"
columns). --compact prints one row per shape, each cell "1 thread / 2 threads" (the README's
table). Pure standard library.
"""

import argparse
import json
import re
import statistics
import sys

# poolconv, then what it is compared with: oneDNN, and poolconv with the autoschedulers' schedules
# (columns only for those in the input).
IMPLS = ("poolconv", "onednn_nchw", "onednn_blocked", "poolconv_adams2019", "poolconv_mullapudi2016")
TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
NAME_RE = re.compile(r"^(?P<id>[^/]+)/(?P<impl>[^/]+)/(?P<threads>\d+)t(?:/|$)")


def load(path):
    if path in (None, "-"):
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def collect_peaks(doc):
    """{threads: median GFLOP/s of PEAK/fma/<threads>t}"""
    peaks = {}
    for b in doc.get("benchmarks", []):
        m = NAME_RE.match(b.get("run_name") or b.get("name", ""))
        if m and m["id"] == "PEAK" and b.get("GFLOP/s") is not None:
            if b.get("run_type") != "aggregate" or b.get("aggregate_name") == "median":
                peaks.setdefault(int(m["threads"]), []).append(b["GFLOP/s"])
    return {t: statistics.median(v) for t, v in peaks.items()}


def collect_copies(doc):
    """{(id, threads): median GB/s of <id>/copy/<threads>t}"""
    copies = {}
    for b in doc.get("benchmarks", []):
        m = NAME_RE.match(b.get("run_name") or b.get("name", ""))
        if m and m["impl"] == "copy" and b.get("GB/s") is not None and not b.get("error_occurred"):
            if b.get("run_type") != "aggregate" or b.get("aggregate_name") == "median":
                copies.setdefault((m["id"], int(m["threads"])), []).append(b["GB/s"])
    return {k: statistics.median(v) for k, v in copies.items()}


def limit_share(pc, peaks, copies, rid, threads):
    """poolconv's fraction of the limit measured in the same run: the FMA peak for convolutions
    (GFLOP/s), the copy bandwidth at the footprint for pooling (GB/s); None when not measured."""
    if not pc or pc["error"]:
        return None
    if pc.get("gflops") is not None:
        return pc["gflops"] / peaks[threads] if threads in peaks else None
    copy = copies.get((rid, threads))
    return pc["gbps"] / copy if copy and pc.get("gbps") is not None else None


def collect(doc):
    """{(id, threads, impl): {"us": median time, "gbps": median GB/s or None, "gflops": ..., "error": str or None}}"""
    medians, runs, errors = {}, {}, {}
    for b in doc.get("benchmarks", []):
        m = NAME_RE.match(b.get("run_name") or b.get("name", ""))
        if not m or m["impl"] not in IMPLS:
            continue
        key = (m["id"], int(m["threads"]), m["impl"])
        if b.get("error_occurred"):
            errors[key] = b.get("error_message", "error")
            continue
        us = b["real_time"] * TO_US[b.get("time_unit", "ns")]
        entry = (us, b.get("GB/s"), b.get("GFLOP/s"))
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = entry
        else:
            runs.setdefault(key, []).append(entry)
    result = {}
    for key in set(medians) | set(runs) | set(errors):
        if key in errors:
            result[key] = {"us": None, "gbps": None, "gflops": None, "error": errors[key]}
        elif key in medians:
            us, gbps, gflops = medians[key]
            result[key] = {"us": us, "gbps": gbps, "gflops": gflops, "error": None}
        else:
            entries = runs[key]
            gb = [g for _, g, _ in entries if g is not None]
            fl = [f for _, _, f in entries if f is not None]
            result[key] = {"us": statistics.median(u for u, _, _ in entries),
                           "gbps": statistics.median(gb) if gb else None,
                           "gflops": statistics.median(fl) if fl else None, "error": None}
    return result


def natural(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def fmt_time(us):
    return "—" if us is None else (f"{us:.1f}" if us < 1000 else f"{us:.0f}")


def print_compact(res, peaks, copies, others):
    """One row per shape; each cell "<1 thread> / <2 threads>" (threads as in the input)."""
    ids = sorted({k[0] for k in res}, key=natural)
    threads = sorted({k[1] for k in res})

    def per_thread(fmt):
        return " / ".join(fmt(t) for t in threads)

    def ratio(rid, t, impl):
        pc, other = res.get((rid, t, "poolconv")), res.get((rid, t, impl))
        if not pc or pc["error"] or not other or other["error"]:
            return "—"
        r = other["us"] / pc["us"]
        return f"**{r:.2f}**" if r < 1 else f"{r:.2f}"

    def peak_share(rid, t):
        share = limit_share(res.get((rid, t, "poolconv")), peaks, copies, rid, t)
        return "—" if share is None else f"{100 * share:.0f}%"

    def time(rid, t):
        pc = res.get((rid, t, "poolconv"))
        return "—" if not pc or pc["error"] else fmt_time(pc["us"])

    header = ["ID", "poolconv µs", "% of limit"] + [f"{impl} / poolconv" for impl in others]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for rid in ids:
        cells = [rid, per_thread(lambda t: time(rid, t)), per_thread(lambda t: peak_share(rid, t))]
        cells += [per_thread(lambda t, impl=impl: ratio(rid, t, impl)) for impl in others]
        print("| " + " | ".join(cells) + " |")
    print()
    for t, p in sorted(peaks.items()):
        print(f"FMA peak measured (PEAK/fma/{t}t): {p:.0f} GFLOP/s")
    print("% of limit: convolutions of that FMA peak, pooling of the copy bandwidth at the shape's footprint")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="?", default="-", help="Google Benchmark JSON output (default: stdin)")
    ap.add_argument("--times", action="store_true", help="also show oneDNN's median times")
    ap.add_argument("--compact", action="store_true", help="one row per shape: 1 and 2 threads in each cell")
    args = ap.parse_args()

    doc = load(args.json)
    res = collect(doc)
    peaks = collect_peaks(doc)
    copies = collect_copies(doc)
    rows = sorted({(k[0], k[1]) for k in res}, key=lambda r: (natural(r[0]), r[1]))
    if not rows:
        sys.exit("ratios.py: no poolconv_bench results (<ID>/<impl>/<N>t) in the input")

    others = [impl for impl in IMPLS[1:] if any(k[2] == impl for k in res)]
    if args.compact:
        print_compact(res, peaks, copies, others)
        return
    header = ["ID", "threads", "poolconv median (µs)", "poolconv GB/s", "poolconv GFLOP/s", "% of limit"]
    header += [f"{impl} / poolconv" for impl in others]
    if args.times:
        header += [f"{impl} median (µs)" for impl in others]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" if i > 1 else "---" for i in range(len(header))) + "|")

    slower = {impl: [] for impl in others}
    errors = []
    for rid, threads in rows:
        pc = res.get((rid, threads, "poolconv"))
        cells = [rid, f"{threads}"]
        if pc is None or pc["error"]:
            cells += ["error" if pc else "—", "—", "—", "—"]
            if pc:
                errors.append(f"{rid}/poolconv/{threads}t: {pc['error']}")
        else:
            cells += [fmt_time(pc["us"]), "—" if pc["gbps"] is None else f"{pc['gbps']:.2f}"]
            cells.append("—" if pc.get("gflops") is None else f"{pc['gflops']:.0f}")
            share = limit_share(pc, peaks, copies, rid, threads)
            cells.append("—" if share is None else f"{100 * share:.0f}%")
        for impl in others:
            other = res.get((rid, threads, impl))
            if other and other["error"]:
                errors.append(f"{rid}/{impl}/{threads}t: {other['error']}")
            if pc is None or pc["error"] or other is None or other["error"]:
                cells.append("—")
                continue
            ratio = other["us"] / pc["us"]
            if ratio < 1:
                slower[impl].append(f"{rid}/{threads}t")
            cells.append(f"**{ratio:.2f}**" if ratio < 1 else f"{ratio:.2f}")
        if args.times:
            for impl in others:
                other = res.get((rid, threads, impl))
                cells.append(fmt_time(other["us"]) if other and not other["error"] else "—")
        print("| " + " | ".join(cells) + " |")

    print()
    for t, p in sorted(peaks.items()):
        print(f"FMA peak measured (PEAK/fma/{t}t): {p:.0f} GFLOP/s")
    print("% of limit: convolutions of that FMA peak, pooling of the copy bandwidth at the shape's footprint")
    for impl, cases in slower.items():
        print(f"poolconv slower than {impl} on: {', '.join(cases) if cases else 'none'}")
    for e in errors:
        print(f"error: {e}")


if __name__ == "__main__":
    main()
