#!/usr/bin/env bash
# Every test, from a fresh Debian 12 machine: install what is missing, then
#   1. Release build (build/): the whole GoogleTest suite with every x86 ISA forced in turn,
#      the install-and-consume check, and a short benchmark smoke run;
#   2. AddressSanitizer + UBSan build (build-asan/) of the runtime, CLI and tests: the suite again.
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
jobs=$(nproc)

echo "== Release build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOOLCONV_SANITIZE=address,undefined \
      -DPOOLCONV_BUILD_BENCH=OFF
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"
