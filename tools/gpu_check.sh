#!/bin/bash
# The checks that need an NVIDIA GPU, on a machine that has one: the test suite's cuda instances
# (every kernel test runs them where a CUDA device is present), then poolconv_gpu_bench beside
# cuDNN and its table. Needs a build with CUDA kernels (POOLCONV_GPU_TARGETS) and, for the bench,
# the CUDA toolkit and cuDNN (bench/CMakeLists.txt); the driver and cuDNN's libraries must be
# found at run time (LD_LIBRARY_PATH).
#
#   tools/gpu_check.sh [BUILD_DIR] [OUT_DIR]      (defaults: build, gpu-check)
#
# Writes OUT_DIR/tests.log, OUT_DIR/gpu.json and OUT_DIR/gpu_table.md; prints a summary. Each step
# has a time limit (POOLCONV_GPU_TEST_TIMEOUT, POOLCONV_GPU_BENCH_TIMEOUT seconds), so that a hung
# kernel ends the step, not the run. Exit status: 0 when every cuda test passed and the bench ran.
set -u
build=${1:-build}
out=${2:-gpu-check}
tests_timeout=${POOLCONV_GPU_TEST_TIMEOUT:-300}
bench_timeout=${POOLCONV_GPU_BENCH_TIMEOUT:-300}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
status=0

# The test binaries with cuda instances (tests/CMakeLists.txt), run side by side.
binaries=(random_pooling_test random_convolution_test spec_examples_test torch_parity_test gpu_memory_test)
: > "$out/tests.log"
pids=()
for t in "${binaries[@]}"; do
    timeout "$tests_timeout" "$build/tests/$t" --gtest_filter='*cuda*:*Cuda*' --gtest_brief=1 > "$out/$t.log" 2>&1 &
    pids+=($!)
done
for i in "${!binaries[@]}"; do
    wait "${pids[$i]}"
    rc=$?
    t=${binaries[$i]}
    echo "$t: exit $rc, $(grep -c '^\[  FAILED  \]' "$out/$t.log") failed"
    { echo "== $t (exit $rc)"; cat "$out/$t.log"; } >> "$out/tests.log"
    rm -f "$out/$t.log"
    [ "$rc" -eq 0 ] || status=1
done

# The bench: 3 repetitions of short runs keep it to a few minutes on an H100.
if [ -x "$build/bench/poolconv_gpu_bench" ]; then
    timeout "$bench_timeout" "$build/bench/poolconv_gpu_bench" --benchmark_repetitions=3 \
        --benchmark_report_aggregates_only=true --benchmark_min_time=0.02 \
        --benchmark_out="$out/gpu.json" --benchmark_out_format=json > "$out/bench.log" 2>&1
    rc=$?
    echo "poolconv_gpu_bench: exit $rc"
    [ "$rc" -eq 0 ] || status=1
    if [ -s "$out/gpu.json" ]; then
        python3 "$here/bench/gpu_ratios.py" "$out/gpu.json" | tee "$out/gpu_table.md"
    else
        tail -3 "$out/bench.log"
    fi
else
    echo "poolconv_gpu_bench: not built (bench/CMakeLists.txt says why at configure time)"
    status=1
fi
exit $status
