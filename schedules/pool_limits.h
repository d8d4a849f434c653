// What the pooling runtime (which checks a call's geometry) and the pooling schedules (which
// compute whole vectors) agree on. Plain C++, no Halide.
#pragma once

#include <cstdint>

namespace poolconv {

// Pooling kernels compute a row's outputs in whole vectors, so the last vector of a row computes
// up to this many outputs past its end (64 lanes: AVX-512 with 1-byte values), reading the
// windows those would have. Every coordinate those windows read must fit in int32 too.
constexpr int kMaxPoolOvercompute = 63;

// Padded values-only kernels pool this many output rows per step (schedules/pooling_schedule.cpp
// says why), so the last step may compute up to kPooledRowsPerStep - 1 rows past the last output
// row (into nothing kept), reading the input rows their windows would.
constexpr int kPooledRowsPerStep = 2;

// Where every window lies inside the input, the runtime may call the unpadded kernels
// (generators/pool_window.h, padded=false), which convert each tap as they read it instead of
// copying each plane once: cheaper where few windows share an element. Whether they pay, from how
// many windows read an element (about kernel / stride per axis, multiplied), at most (measured
// when every MaxPool tap was encoded as a key; the unpadded MaxPool kernels of f32, bf16 and f64
// have compared values since, 0.6-0.86x the time of those key kernels on Zen 4 with AVX-512,
// which these limits do not count: with AVX2 there, P6's 3x3/2 max pool took 0.82x the padded
// kernel's time unpadded, against the limit of 1 below; a rule per operator and type is left to
// measure, AvgPool's included):
//   4 on the AVX-512 path, whose mask registers make the encoding cheap. Measured on Zen 5, f32,
//     1 thread, unpadded over padded kernel's time: 2x2/2 0.68, 2x2x2/2 0.60, 3x3/2 0.73-0.78,
//     2x2/1 0.79, but 3x3/1 (9 reads) 1.10;
//   1 on every other path (disjoint windows only): with AVX2, 2x2x2/2 0.74, 2x2/2 0.96-1.03, but
//     2x2/1 1.03 and 3x3/2 1.30-1.34 (NEON, SSE4.1 and the GPUs not measured).
inline bool unpadded_kernel_pays(const int32_t kernel[3], const int32_t stride[3], bool avx512_path) {
    int64_t taps = 1, strides = 1;
    for (int a = 0; a < 3; a++) {
        taps *= kernel[a];
        strides *= stride[a];
    }
    return taps <= (avx512_path ? 4 : 1) * strides;
}

}  // namespace poolconv
