// AVX2 + FMA + F16C (Haswell and later, AMD Zen 1+): 16 ymm registers of 32 bytes.
#include "schedules/vector_bytes.h"
#include "target_params.h"

namespace poolconv::schedules {

TargetParams x86_avx2_params() {
    TargetParams p{"x86-avx2", /*vector_bytes=*/kAvx2Simd.vector_bytes, /*vector_registers=*/16,
                   // 8 accumulators (FMA latency 4 cycles on 2 ports needs >= 8); 3 x 4
                   // (12) spills with the 3x3 taps unrolled.
                   /*conv_tile=*/{2, 4, 1},
                   // 8 accumulators, one x vector by two rows: at stride 1 the two rows'
                   // 3x3 windows share two of their four input rows (12 loads per 72 FMAs,
                   // where 2 x 4 x 1 takes 18; stride 2: one of five), and rows are covered
                   // in 8-column steps (a 56-wide row computes 56 columns, not 64; a 7-wide
                   // one 8, not 16). 1 x 4 x 3 spills. Faster than 2 x 4 x 1 on 3x3
                   // layers; slower (so not used there) with dilation 2 and on 7x7 kernels.
                   /*row_pair_tile=*/{1, 4, 2},
                   // 7 accumulators down one column of vectors (7 output rows read 9 input
                   // rows), as on AVX-512: 2 x 1 x 4 spilled in 16 registers. C5 (56x56,
                   // Zen 4 running this path) took 0.69x / 0.79x the time at 1 / 2 threads
                   // (fastest of 8 interleaved runs; 1 x 1 x 4 0.71x / 0.85x).
                   /*depthwise_tile=*/{1, 1, 7},
                   // 8 accumulators along one row (both FMA pipes busy at 4 cycles of
                   // latency). The 4-row tile computed three discarded rows for each row of
                   // a 1-D layer; 4 x 1 x 1 was slower on a 31-tap window.
                   /*depthwise_1d_tile=*/{8, 1, 1},
                   // 12 accumulators, 3 input vectors and a broadcast: all 16 registers,
                   // which only a 1x1 kernel's single tap leaves free (faster than 2 x 4).
                   /*pointwise_tile=*/{3, 4, 1},
                   // Unused: channel-vector kernels are built for AVX-512 only.
                   /*channel_vector_tile=*/{6, 16, 1},
                   // Unused: one-vector kernels are built for AVX-512 only.
                   /*one_vector_tile=*/{1, 8, 1}};
    // The in-place MaxPool kernels' loads waited on memory: perf on P2 (2x2/2 over 12.8 MB, Zen 3)
    // put 78% of the samples on one input load. Interleaved A/B on Zen 3, 5 rounds, time with /
    // without at 1 and 2 threads: P2 0.30 / 0.47, P9 0.61 / 0.54, P10 0.58 / 0.73, P5 0.62 / 0.72,
    // P1 0.82 / 1.26 (one noisy round), P6 0.99 / 1.05 (docs/PERFORMANCE_HISTORY.md, "2026-12-01,
    // a9e33d4.."). A C model of P2 put 2-8 KB ahead alike and 1 KB short. AvgPool's in-place
    // kernels take it too. On Zen 5 running this path (7-9 interleaved rounds, time with / without
    // at 1 and 2 threads) the unpadded ones gained (2x2/2 on 224x224 0.51 / 0.70, on 56x56 and
    // 28x28 0.96-1.01) and the rows-first ones mostly lost (P11 1.05-1.07 / 1.03-1.05, 3x3/2 over
    // 8x64x56x56 1.05-1.09 / 1.04-1.07, 1-D 3/2 1.03-1.04 / 0.94-1.02, 5x5/3 0.97 / 0.90); but an
    // AVX-512 CPU runs this path only when forced, and on the AVX2-only Zen 3 MaxPool's rows-first
    // kernels, whose loads are these, gained (above) (docs/PERFORMANCE_HISTORY.md, "2026-12-02,
    // 032d30a..").
    p.in_place_prefetch_bytes = 4096;
    // As on AVX-512 (x86_avx512.cpp has the figures); on this path within noise either way (the
    // Xeon with 4 lanes; Zen 5 with whole vectors from 512 columns: C8 1.00 / 0.97, C6 1.00 / 1.03).
    p.narrow_row_copy_lanes = 4;
    p.whole_vector_copy_columns = 512;
    return p;
}

}  // namespace poolconv::schedules
