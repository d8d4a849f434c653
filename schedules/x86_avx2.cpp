// AVX2 + FMA + F16C (Haswell and later, AMD Zen 1+): 16 ymm registers of 32 bytes.
#include "target_params.h"

namespace poolconv::schedules {

TargetParams x86_avx2_params() {
    return TargetParams{"x86-avx2", /*vector_bytes=*/32, /*vector_registers=*/16,
                        // 8 accumulators (FMA latency 4 cycles on 2 ports needs >= 8); 3 x 4
                        // (12) spills with the 3x3 taps unrolled.
                        /*conv_tile=*/{2, 4, 1},
                        // 8 accumulators, one x vector by two rows: at stride 1 the two rows'
                        // 3x3 windows share two of their four input rows (12 loads per 72 FMAs,
                        // where 2 x 4 x 1 takes 18; stride 2: one of five), and rows are covered
                        // in 8-column steps (a 56-wide row computes 56 columns, not 64; a 7-wide
                        // one 8, not 16). 1 x 4 x 3 spills. Over 2 x 4 x 1, interleaved on a
                        // Zen 3 host, 1 thread: C1 3.40 -> 2.87 ms, C4 4.08 -> 3.58 ms, 3x3
                        // stride 2 112 -> 56 (64 -> 128 channels) 7.9 -> 6.7 ms, 3x3 on 7x7 (512
                        // channels) 7.9 -> 4.2 ms; slower (so not used there) with dilation 2
                        // (C6, 6% slower) and on 7x7 kernels (C2, 26% slower).
                        /*row_pair_tile=*/{1, 4, 2},
                        /*depthwise_tile=*/{2, 1, 4},
                        // 8 accumulators along one row (both FMA pipes busy at 4 cycles of
                        // latency). The 4-row tile computed three discarded rows for each row of
                        // a 1-D layer: on 256 channels of 500 columns, interleaved on a Zen 3
                        // host, 31 taps 1007 -> 245 us, 3 taps 182 -> 89 us; 4 x 1 x 1 was
                        // 20% slower at 31 taps.
                        /*depthwise_1d_tile=*/{8, 1, 1},
                        // 12 accumulators, 3 input vectors and a broadcast: all 16 registers,
                        // which only a 1x1 kernel's single tap leaves free (C3: 1.30 -> 1.25 ms
                        // over 2 x 4, measured interleaved on a Zen 3 host).
                        /*pointwise_tile=*/{3, 4, 1}};
}

}  // namespace poolconv::schedules
