#!/usr/bin/env bash
# Every test, from a fresh Debian 12 machine: install what is missing, then
#   1. Release build (build/): the whole GoogleTest suite with every x86 ISA forced in turn and
#      the GPU schedules run through OpenCL on PoCL, the install-and-consume check, the Android
#      and CUDA (ptxas) checks of the generated code, and a short benchmark smoke run;
#   2. AddressSanitizer + UBSan build (build-asan/) of the runtime, CLI and tests: the suite again,
#      on the baseline kernels only (the sanitizers see our C++, which is the same whatever the
#      kernels' instruction set, and not the kernels), linking build/'s baseline kernels rather
#      than compiling them again; no GPU kernels (the OpenCL driver's own allocations are not ours
#      to check); -O1 with line tables only, as sanitizer builds usually are: half the compile time
#      of -O2 -g, and reports still name files and lines;
#   3. AArch64 cross build (build-aarch64/, NEON kernels made by build/'s generators): the suite
#      under qemu-aarch64;
#   4. ThreadSanitizer build (build-tsan/) of the runtime and the concurrency stress test, linking
#      build/'s CPU kernels: the test, under TSan;
#   5. libFuzzer targets (build-fuzz/: clang, ASan + UBSan, build/'s CPU kernels), each run for
#      POOLCONV_FUZZ_SECONDS (default 30, which keeps the whole script near 30 minutes on a
#      2-core host; scripts/run-fuzz.sh alone defaults to 600) on its seed corpus.
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# PyPI's cmake and ninja first on PATH; CMake finds Halide 21 and oneDNN in the environment.
. .venv/bin/activate
jobs=$(nproc)

echo "== Release build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DPOOLCONV_SANITIZE=address,undefined -DPOOLCONV_BUILD_BENCH=OFF -DPOOLCONV_GPU_TARGETS="" \
      -DPOOLCONV_ISAS="baseline=cmake" -DPOOLCONV_KERNELS_FROM="$PWD/build" -Dpoolconv-halide_generators_ROOT="$PWD/build"
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"

echo "== AArch64 (NEON) cross build, tests under qemu-aarch64"
cmake -S . -B build-aarch64 -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -Dpoolconv-halide_generators_ROOT="$PWD/build"
cmake --build build-aarch64
ctest --test-dir build-aarch64 --output-on-failure -j "$jobs"

echo "== ThreadSanitizer build, concurrency stress test"
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DPOOLCONV_SANITIZE=thread -DPOOLCONV_BUILD_BENCH=OFF -DPOOLCONV_GPU_TARGETS="" \
      -DPOOLCONV_KERNELS_FROM="$PWD/build" -Dpoolconv-halide_generators_ROOT="$PWD/build"
cmake --build build-tsan --target concurrency_stress_test
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions="$PWD/tests/tsan.supp" build-tsan/tests/concurrency_stress_test

fuzz_seconds=${POOLCONV_FUZZ_SECONDS:-30}
echo "== libFuzzer targets, $fuzz_seconds s each"
scripts/run-fuzz.sh "$fuzz_seconds"
