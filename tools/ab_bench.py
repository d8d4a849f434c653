#!/usr/bin/env python3
"""Interleaved A/B of two poolconv_bench binaries (say, two toolchains or two commits' kernels).

Runs A and B in alternating rounds (A B, then B A, ...), each run one repetition of every benchmark
the filter selects, and prints per benchmark the median time of each binary over the rounds and
the ratio B/A (below 1: B is faster). Alternating whole runs spreads a shared host's slow phases
over both binaries; within a run the bench shuffles its benchmarks itself.

    tools/ab_bench.py A/poolconv_bench B/poolconv_bench [--rounds 7] [--filter '/poolconv/']
                      [--min-time 0.2] [--env POOLCONV_ISA=avx2]

Standard library only (runs under Debian's /usr/bin/python3).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run_once(binary, bench_filter, min_time, env):
    cmd = [binary, f"--benchmark_filter={bench_filter}", f"--benchmark_min_time={min_time}",
           "--benchmark_repetitions=1", "--benchmark_format=json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("error_occurred"):
            continue
        times[b["name"]] = b["real_time"]  # microseconds (the bench's unit)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--filter", default="/poolconv/")
    parser.add_argument("--min-time", default="0.2")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for both binaries")
    args = parser.parse_args()

    env = dict(os.environ)
    for item in args.env:
        name, _, value = item.partition("=")
        env[name] = value
    samples = {"a": {}, "b": {}}
    for r in range(args.rounds):
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        for which in order:
            binary = args.a if which == "a" else args.b
            for name, t in run_once(binary, args.filter, args.min_time, env).items():
                samples[which].setdefault(name, []).append(t)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    names = sorted(set(samples["a"]) | set(samples["b"]))
    print("| benchmark | A median us | B median us | B/A |")
    print("|---|---|---|---|")
    for name in names:
        a, b = samples["a"].get(name), samples["b"].get(name)
        ma = statistics.median(a) if a else None
        mb = statistics.median(b) if b else None
        ratio = f"{mb / ma:.3f}" if ma and mb else "-"
        fa = f"{ma:.1f}" if ma else "-"
        fb = f"{mb:.1f}" if mb else "-"
        print(f"| {name} | {fa} | {fb} | {ratio} |")


if __name__ == "__main__":
    main()
