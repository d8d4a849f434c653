#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is missing, build everything
# (Release, build/), then let the `poolconv` CLI pool a realistic tensor and check it against
# the reference implementation.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# PyPI's cmake and ninja first on PATH; CMake finds Halide 21 and oneDNN in the environment.
. .venv/bin/activate
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
mkdir -p build/demo
build/examples/demo/poolconv_demo build/cli/poolconv build/demo
