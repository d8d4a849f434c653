// The width of one SIMD register on each CPU path, in bytes: the schedules' TargetParams tables
// (x86_avx512.cpp, x86_avx2.cpp, x86_baseline.cpp, arm_neon.cpp) size their vectors by these, and
// the runtime's pooling rule (pool_limits.h) counts a row's outputs in those vectors. Plain C++,
// no Halide.
#pragma once

namespace poolconv {

constexpr int kAvx512VectorBytes = 64;  // zmm
constexpr int kAvx2VectorBytes = 32;    // ymm
constexpr int kSse2VectorBytes = 16;    // xmm: the x86-64 baseline
constexpr int kNeonVectorBytes = 16;    // q registers

}  // namespace poolconv
