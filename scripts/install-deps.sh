#!/usr/bin/env bash
# Installs what poolconv needs to build, test and benchmark, if any of it is missing:
#   - Debian 12 packages (compilers, clang and libFuzzer, GoogleTest, Google Benchmark, the ARM
#     cross toolchain and qemu, OpenCL on PoCL);
#   - a Python virtual environment .venv/ in the checkout (git-ignored) with the pinned PyPI
#     packages below: Halide 21 (libHalide with LLVM 21 inside, its CMake package and the
#     autoscheduler plugins; Halide's README recommends this wheel for C++ use), CMake (Halide 21
#     needs >= 3.28; Debian 12 has 3.25), Ninja, and oneDNN with its headers and TBB's (the
#     bench's peer: PyPI's last CPU-only build, oneDNN 3.2 on TBB; PyPI's current `onednn` is a
#     SYCL build, whose calls took 100-150 µs longer on Zen 4 than the same JIT kernels of the
#     CPU-only build: a cost no CPU inference engine pays. Its libimf and libintlc come from
#     Intel's compiler runtime, which its wheel does not name).
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
python_packages=(halide==21.0.0 cmake==4.4.5 ninja==1.13.2 onednn-cpu-tbb==2023.2.0 onednn-devel-cpu-tbb==2023.2.0
                 tbb==2021.13.1 tbb-devel==2021.13.1 intel-cmplr-lib-rt==2026.2.0)

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
# The SYCL oneDNN pinned before 2026-11-27 writes the same files as the CPU-only one: out first,
# with the SYCL and OpenCL runtimes it brought.
if grep -q '^onednn==' <<<"$installed"; then
    echo "install-deps: replacing oneDNN's SYCL build with the CPU-only one"
    "$venv/bin/python3" -m pip uninstall -y -q onednn onednn-devel dpcpp-cpp-rt intel-opencl-rt intel-sycl-rt \
        intel-openmp intel-cmplr-lib-ur intel-cmplr-lic-rt umf
fi
for p in "${python_packages[@]}"; do
    if ! grep -qxF "$p" <<<"$installed"; then
        echo "install-deps: installing ${python_packages[*]} into $venv"
        "$venv/bin/python3" -m pip install -q --disable-pip-version-check "${python_packages[@]}"
        break
    fi
done
