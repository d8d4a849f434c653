#!/usr/bin/env bash
# Builds the libFuzzer targets (build-fuzz/: clang, AddressSanitizer + UBSan, linking build/'s CPU
# kernels, which must be built first) and runs each for SECONDS (default 600) on a copy of its seed
# corpus tests/fuzz/<target>/ with 1 job, as many targets at a time as the machine has cores (each
# target still gets its SECONDS; on a 2-core host the five default targets take 3 x SECONDS, not
# 5 x). A finding fails the script with libFuzzer's report and the input that caused it
# (build-fuzz/findings/); new inputs found go to build-fuzz/corpus/<target>/, from where
# interesting ones can be added to the seed corpus.
#   scripts/run-fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_npy fuzz_cli fuzz_shape fuzz_pool fuzz_conv)

[ -d .venv ] || scripts/install-deps.sh
. .venv/bin/activate
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DPOOLCONV_FUZZ=ON -DPOOLCONV_SANITIZE=address,undefined \
      -DPOOLCONV_BUILD_TESTS=OFF -DPOOLCONV_BUILD_BENCH=OFF -DPOOLCONV_GPU_TARGETS="" \
      -DPOOLCONV_KERNELS_FROM="$PWD/build" -Dpoolconv-halide_generators_ROOT="$PWD/build"
cmake --build build-fuzz --target "${targets[@]}"

mkdir -p build-fuzz/findings build-fuzz/logs
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
fuzz_one() {
    local target=$1
    mkdir -p "build-fuzz/corpus/$target"
    # -rss_limit_mb: the kernels' thread pool and ASan's shadow memory need more than the 2 GB
    # default. -timeout: an input running longer is a finding (a hang).
    build-fuzz/tests/fuzz/"$target" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 -print_final_stats=1 \
        -artifact_prefix="$PWD/build-fuzz/findings/$target-" "$PWD/build-fuzz/corpus/$target" "$PWD/tests/fuzz/$target" \
        > "build-fuzz/logs/$target.log" 2>&1 && echo 0 > "build-fuzz/logs/$target.rc" || echo $? > "build-fuzz/logs/$target.rc"
}
slots=$(nproc)
running=0
for target in "${targets[@]}"; do
    echo "== $target: $seconds s"
    fuzz_one "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$slots" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait
failed=0
for target in "${targets[@]}"; do
    echo "== $target"
    grep -E "^(INFO: seed corpus|stat::number_of_executed_units|stat::new_units_added|==|FINDING|SUMMARY|#[0-9]+ *DONE)|ERROR|Test unit written|artifact" \
        "build-fuzz/logs/$target.log" || true
    # A finding leaves its input in findings/ (crash-, leak-, timeout- or oom-; a slow-unit- file
    # is only the slowest input seen) and a non-zero exit status; a status without a finding is a
    # target that did not run (say, a flag libFuzzer refused).
    if compgen -G "build-fuzz/findings/$target-[clot]*" > /dev/null; then
        echo "run-fuzz: $target found a problem; the input is in build-fuzz/findings/, its log build-fuzz/logs/$target.log" >&2
        failed=1
    elif [ "$(cat "build-fuzz/logs/$target.rc")" != 0 ]; then
        echo "run-fuzz: $target exited with status $(cat "build-fuzz/logs/$target.rc"); its log is build-fuzz/logs/$target.log" >&2
        failed=1
    fi
done
[ "$failed" -eq 0 ] || exit 1
echo "run-fuzz: no findings"
