#!/usr/bin/env bash
# Installs the Debian 12 packages poolconv needs to build, test and benchmark, if any are missing.
set -euo pipefail

packages=(
    build-essential cmake ninja-build  # toolchain
    libhalide14-0-dev                  # Halide 14 (+ LLVM 14 dev): the generators run at build time
    libgtest-dev                       # tests
    libbenchmark-dev libdnnl-dev       # poolconv_bench, side by side with oneDNN
    g++-aarch64-linux-gnu qemu-user    # ARM: cross-compiled kernels and tests, run under emulation
    pocl-opencl-icd ocl-icd-libopencl1 # GPU schedules checked through OpenCL on PoCL (a CPU device)
    ocl-icd-opencl-dev opencl-c-headers # the device-memory test makes its cl_mem buffers itself
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
