# Cross-compiling poolconv for 64-bit ARM Linux with Debian's g++-aarch64-linux-gnu; tests run
# under qemu-user. The Halide generators still run on the build machine: pass the build directory
# of a host build as poolconv-halide_generators_ROOT (README: "ARM NEON").
#
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -Dpoolconv-halide_generators_ROOT=build
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Libraries and headers come from the aarch64 sysroot only; build tools and CMake packages (the
# host generators, Halide's CMake helpers) from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest (and the CLI tests, which spawn the CLI) run aarch64 programs through qemu-user.
find_program(POOLCONV_QEMU_AARCH64 qemu-aarch64)
if (POOLCONV_QEMU_AARCH64)
    set(CMAKE_CROSSCOMPILING_EMULATOR "${POOLCONV_QEMU_AARCH64};-L;/usr/aarch64-linux-gnu")
endif ()
