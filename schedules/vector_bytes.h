// What each CPU path's SIMD unit offers that both the schedules and the runtime count on: the
// width of one register in bytes (the TargetParams tables, x86_avx512.cpp, x86_avx2.cpp,
// x86_baseline.cpp and arm_neon.cpp, size their vectors by it), and whether it converts f16 in
// hardware (the runtime's pooling rule, pool_limits.h, counts both). Plain C++, no Halide.
#pragma once

namespace poolconv {

struct CpuSimd {
    int vector_bytes;
    bool converts_f16;  // F16C, NEON; the x86-64 baseline (SSE2) emulates f16 in integer code
};

constexpr CpuSimd kAvx512Simd{64, true};  // zmm
constexpr CpuSimd kAvx2Simd{32, true};    // ymm
constexpr CpuSimd kSse2Simd{16, false};   // xmm: the x86-64 baseline
constexpr CpuSimd kNeonSimd{16, true};    // q registers

}  // namespace poolconv
