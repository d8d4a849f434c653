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
// (generators/pool_window.h, padded=false), which read the input in place, converting each tap,
// instead of copying each plane once into a padded scratch. What the rule below needs to know of a
// call (window numbers in Halide axis order: 0 = x, 1 = y, 2 = z; 1 along the axes a call lacks):
struct UnpaddedPoolCall {
    bool avg = false;        // AvgPool (sums); else MaxPool, values only
    bool f16 = false;        // f16 data: each tap converted to f32, and MaxPool's encoded as a key
    int compared_bytes = 4;  // the type compared or summed (and the padded scratch's): 1 for 8-bit
                             // MaxPool (its own type), 8 for f64, else 4 (f32, f16 keys, bf16 as f32)
    int32_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
    int64_t output_width = 1;  // outputs per row
    // The path: bytes of one vector (schedules/vector_bytes.h; 0 on the GPU paths), and whether
    // it converts f16 in hardware (F16C, NEON; the x86-64 baseline emulates it).
    int vector_bytes = 0;
    bool f16_in_hardware = false;
};

// Whether the unpadded kernel is the faster for such a call. Measured on Zen 4 (AMD EPYC family 25
// model 17) on the AVX-512, AVX2 and baseline paths, f32 unless named, 1 and 2 threads, fastest /
// median of 3-5 interleaved turns; figures are the unpadded kernel's time over the padded one's
// (docs/PERFORMANCE_HISTORY.md, "2026-11-29", has the table):
//   - A row narrower than one vector: the padded one. The unpadded kernels' rows of at least one
//     vector are specialized (the last vector shifted inwards); a narrower row is a guarded vector,
//     computed lane by lane, without the hot windows' constant taps: 2x2/2 on 28x28 planes (14
//     outputs, 16 lanes) 6.2-8.1 on AVX-512 (AVX2's 8 lanes: 0.41), on 14x14 planes 3.0-8.1; 8-bit
//     MaxPool (64 lanes on AVX-512) 2x2/2 on 112x112 planes 36-46, 3x3/2 on 55x55 69-84.
//   - f16: each tap converted, and MaxPool's encoded as a key (five vector instructions): disjoint
//     windows only (each element read once), where the conversion replaces the copy's. 2x2x2/2
//     0.76-0.98, 2x2/2 0.86-1.20, but 3x3/2 1.03-1.44 (AVX-512 and AVX2). Never on the baseline,
//     which emulates the conversion: 1.3-2.6 on every window measured.
//   - 8-bit MaxPool (compares its own type, no conversion): always, 0.19-0.89 (rows of at least one
//     vector); on the baseline 2x2/1 level (1.02).
//   - Otherwise (f32, bf16, f64; AvgPool of those): always, except the 2-D windows the padded
//     kernels step two rows with at stride 1, where the rows' x stages are shared: 3x3/1 (MaxPool
//     1.07-1.65, AvgPool 0.76-1.21 on 28x28 and 35x35 planes: faster at 1 thread, slower at 2),
//     and for MaxPool 2x2/1 (1.02-1.60; AvgPool 0.81-1.05). Elsewhere: MaxPool 3x3/2 0.77-0.92
//     (bf16 0.60-0.96, f64 0.54-0.85; the baseline 0.96-1.00), 2x2/2 0.60-0.81, 3x3/3 0.24-0.53,
//     3x3x3/2 0.46-0.59; AvgPool 3x3/2 0.54-0.80, 2x2/2 0.45-0.74, 5x5/1 0.43-0.69, 7x7/1
//     0.40-0.65, 3x3x3/2 0.31-0.38: the padded kernels specialize 2x2 and 3x3 windows only, and
//     their copy costs more than the shared rows save.
//   - The GPU paths (not measured): disjoint windows only.
inline bool unpadded_kernel_pays(const UnpaddedPoolCall &c) {
    int64_t taps = 1, strides = 1;
    for (int a = 0; a < 3; a++) {
        taps *= c.kernel[a];
        strides *= c.stride[a];
    }
    const bool disjoint = taps <= strides;
    if (c.vector_bytes == 0) return disjoint;
    if (c.output_width * c.compared_bytes < c.vector_bytes) return false;
    if (c.f16) return c.f16_in_hardware && disjoint;
    if (c.compared_bytes == 1) return true;
    const bool stride_one_box = c.kernel[0] == c.kernel[1] && c.kernel[2] == 1 && c.stride[0] == 1 &&
                                c.stride[1] == 1 && c.dilation[0] == 1 && c.dilation[1] == 1;
    if (stride_one_box && c.kernel[0] == 3) return false;
    if (stride_one_box && c.kernel[0] == 2) return c.avg;
    return true;
}

}  // namespace poolconv
