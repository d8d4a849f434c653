#!/usr/bin/env bash
# Installs what poolconv needs to build, test and benchmark, if any of it is missing:
#   - Debian 12 packages (compilers, clang and libFuzzer, GoogleTest, Google Benchmark, the ARM
#     cross toolchain and qemu, OpenCL on PoCL);
#   - a Python virtual environment .venv/ in the checkout (git-ignored) with the pinned PyPI
#     packages below: Halide 21 (libHalide with LLVM 21 inside, its CMake package and the
#     autoscheduler plugins; Halide's README recommends this wheel for C++ use), CMake (Halide 21
#     needs >= 3.28; Debian 12 has 3.25), Ninja, and oneDNN with its headers and TBB's (the
#     bench's peer; PyPI's oneDNN runs its CPU engine through SYCL on Intel's OpenCL CPU runtime,
#     which its wheels bring along: bench/onednn.cpp).
# Afterwards `. .venv/bin/activate` puts that cmake and ninja first on PATH, and CMake finds
# Halide and oneDNN in the environment (CMakeLists.txt, bench/CMakeLists.txt).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(
    build-essential                    # toolchain (cmake and ninja come from .venv/)
    python3-venv python3-dev           # .venv/; Halide's CMake package asks for Python's headers
    libgtest-dev                       # tests
    libbenchmark-dev                   # poolconv_bench
    g++-aarch64-linux-gnu qemu-user    # ARM: cross-compiled kernels and tests, run under emulation
    pocl-opencl-icd ocl-icd-libopencl1 # GPU schedules checked through OpenCL on PoCL (a CPU device)
    ocl-icd-opencl-dev opencl-c-headers # the device-memory test makes its cl_mem buffers itself
    clang libclang-rt-14-dev           # libFuzzer targets (scripts/run-fuzz.sh)
    nlohmann-json3-dev                 # poolconv-tune's layer files (tune/)
    libonnx-dev libprotobuf-dev        # poolconv-tune --onnx: ONNX's parser and shape inference
)
# Pinned: the checked-in autoscheduler results and the measured figures in the README belong to
# these versions.
python_packages=(halide==21.0.0 cmake==4.4.5 ninja==1.13.2 onednn==2026.1.0 onednn-devel==2026.1.0 tbb-devel==2023.2.0)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "install-deps: installing ${missing[*]}"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Debian's Python, whose venv module python3-venv provides (the wheels are built for its 3.11).
venv="$root/.venv"
if [ ! -x "$venv/bin/python3" ]; then
    echo "install-deps: creating $venv"
    /usr/bin/python3 -m venv "$venv"
fi
installed="$("$venv/bin/python3" -m pip freeze 2>/dev/null || true)"
for p in "${python_packages[@]}"; do
    if ! grep -qxF "$p" <<<"$installed"; then
        echo "install-deps: installing ${python_packages[*]} into $venv"
        "$venv/bin/python3" -m pip install -q --disable-pip-version-check "${python_packages[@]}"
        break
    fi
done
