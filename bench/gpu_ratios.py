#!/usr/bin/python3
"""Markdown table of poolconv_gpu_bench results: poolconv's CUDA kernels beside cuDNN's.

    poolconv_gpu_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \\
                       --benchmark_format=json > gpu.json
    /usr/bin/python3 bench/gpu_ratios.py gpu.json

One row per shape: poolconv_cuda's median time; its share of the limit measured in the same run
(convolutions: GFLOP/s of PEAK/sgemm's; pooling: GB/s of <ID>/copy's, a device-to-device copy of
the footprint); and each cuDNN implementation's median time over poolconv's (above 1 poolconv is
faster; below 1 in bold). Pure standard library; reads the JSON as bench/ratios.py does.
"""

import argparse
import re
import statistics
import sys

from ratios import TO_US, fmt_time, load, natural

GPU_NAME_RE = re.compile(r"^(?P<id>[^/]+)/(?P<impl>[^/]+)$")
OTHERS = ("cudnn", "cudnn_nhwc", "cudnn_tf32")


def collect(doc):
    """{(id, impl): {"us", "gbps", "gflops", "error"}} from the medians (or the runs' median)."""
    runs, errors = {}, {}
    for b in doc.get("benchmarks", []):
        m = GPU_NAME_RE.match(b.get("run_name") or b.get("name", ""))
        if not m:
            continue
        key = (m["id"], m["impl"])
        if b.get("error_occurred"):
            errors[key] = b.get("error_message", "error")
            continue
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        runs.setdefault(key, []).append(
            (b["real_time"] * TO_US[b.get("time_unit", "ns")], b.get("GB/s"), b.get("GFLOP/s")))
    result = {key: {"error": e} for key, e in errors.items()}
    for key, entries in runs.items():
        if key in result:
            continue
        def med(i):
            values = [e[i] for e in entries if e[i] is not None]
            return statistics.median(values) if values else None
        result[key] = {"us": med(0), "gbps": med(1), "gflops": med(2), "error": None}
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="?", default="-", help="Google Benchmark JSON output (default: stdin)")
    args = ap.parse_args()
    doc = load(args.json)
    res = collect(doc)
    ids = sorted({rid for rid, impl in res if impl == "poolconv_cuda"}, key=natural)
    if not ids:
        sys.exit("gpu_ratios.py: no poolconv_gpu_bench results (<ID>/poolconv_cuda) in the input")
    peak = res.get(("PEAK", "sgemm"), {}).get("gflops")
    others = [o for o in OTHERS if any(impl == o for _, impl in res)]

    header = ["ID", "poolconv µs", "% of limit"] + [f"{o} / poolconv" for o in others]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    errors = []
    for rid in ids:
        pc = res[(rid, "poolconv_cuda")]
        if pc["error"]:
            errors.append(f"{rid}/poolconv_cuda: {pc['error']}")
            print("| " + " | ".join([rid, "error"] + ["—"] * (len(header) - 2)) + " |")
            continue
        share = None
        if pc["gflops"] is not None and peak:
            share = pc["gflops"] / peak
        elif pc["gbps"] is not None and res.get((rid, "copy"), {}).get("gbps"):
            share = pc["gbps"] / res[(rid, "copy")]["gbps"]
        cells = [rid, fmt_time(pc["us"]), "—" if share is None else f"{100 * share:.1f}%"]
        for o in others:
            other = res.get((rid, o))
            if other and other["error"]:
                errors.append(f"{rid}/{o}: {other['error']}")
            if not other or other["error"]:
                cells.append("—")
                continue
            r = other["us"] / pc["us"]
            cells.append(f"**{r:.2f}**" if r < 1 else f"{r:.2f}")
        print("| " + " | ".join(cells) + " |")
    print()
    if peak:
        print(f"f32 limit measured (PEAK/sgemm, cuBLAS without tensor cores): {peak:.0f} GFLOP/s")
    context = doc.get("context", {})
    print(f"GPU: {context.get('gpu', '?')}, cuDNN {context.get('cudnn', '?')}")
    for e in errors:
        print(f"error: {e}")


if __name__ == "__main__":
    main()
