// AVX-512 (Skylake-SP and later, AMD Zen 4/5): 32 zmm registers of 64 bytes, F16C conversions.
#include "schedules/conv_plan.h"
#include "schedules/vector_bytes.h"
#include "target_params.h"

namespace poolconv::schedules {

TargetParams x86_avx512_params() {
    TargetParams p{"x86-avx512", /*vector_bytes=*/kAvx512Simd.vector_bytes, /*vector_registers=*/32,
                   // 16 accumulators, two vectors by 8 channels: two input vectors and 8
                   // weights (broadcast by the FMAs from memory) per 16 FMAs. On an Intel Xeon
                   // (Emerald Rapids) 1 x 16 x 1 took 1.37x the time on C6 and 1.2-1.3x on C8
                   // at 1 thread (it reads four runs of packed weights per tap where 8 channels
                   // read two; which difference costs was not isolated), 3 x 8 x 1 2.3-4x
                   // (interleaved turns). On Zen 4 it is the other way, by less: 1 x 16 x 1
                   // covered C2's 112-wide rows without a half tile (0.87x the time there), C6
                   // and C8 0.95-1.0x (docs/PERFORMANCE_HISTORY.md, 5c03182 and df0a298).
                   /*conv_tile=*/{2, 8, 1},
                   // 16 accumulators, one vector by two rows, as on AVX2 (where it was
                   // faster): rows share input rows. On AVX-512, C7 (the 3-D layer) ran no
                   // faster with 2 x 4 x 2 and slower with 1 x 8 x 3, 2 x 4 x 3 and 3 x 4 x 2
                   // (docs/PERFORMANCE_HISTORY.md).
                   /*row_pair_tile=*/{1, 8, 2},
                   // 7 accumulators down one column of vectors: a 3x3 window's input rows are
                   // loaded once for the rows that share them (7 output rows read 9). One
                   // vector wide, not two by 4 rows as before: C5 (56x56, Zen 4) took
                   // 0.82x / 0.93x the time at 1 / 2 threads (fastest of 10 interleaved
                   // runs; medians 0.89x / 0.87x; 1 x 4 and 1 x 8 rows slower than 1 x 7).
                   // 7 rows tile every MobileNet plane (112, 56, 28, 14, 7) whole.
                   /*depthwise_tile=*/{1, 1, 7},
                   // 8 accumulators along one row, as on AVX2. Run on AVX-512 (README's
                   // table), not yet compared with other tiles there.
                   /*depthwise_1d_tile=*/{8, 1, 1},
                   /*pointwise_tile=*/{2, 8, 1},
                   // 28 accumulators, 2 weight vectors and a broadcast: 14 columns (a quarter
                   // of ResNet's 56-wide rows, a whole 14-wide one) by 32 output channels.
                   /*channel_vector_tile=*/{14, int(kChannelVectorChannels), 1},
                   // 16 accumulators, one vector by 16 channels: the general plan's tile
                   // for cores that run one 512-bit FMA a cycle (Zen 4; schedules/conv_plan.h
                   // says where the runtime takes it, and why not elsewhere).
                   /*one_vector_tile=*/{1, 16, 1},
                   // Masked stores take a mask register (k1-k7): as cheap as any store.
                   /*masked_stores=*/true,
                   // Zen 4, 7 interleaved turns, time with the test over without, 1 / 2
                   // threads: C4 0.97 / 0.93, C6 0.96 / 0.96, C7 0.95 / 0.94, C9 0.96 / 0.99,
                   // C1 0.99 / 1.01, C2 0.97 / 1.02, C8 1.00 / 1.01. The AVX2 kernels, with
                   // half the registers, took 1.27-1.38x the time with it on the row-pair
                   // plan (C1, C4, C7, C9), and the general plan gained nothing (C6 0.99 /
                   // 1.04, C2 1.04 / 1.07): off there.
                   /*conv_skips_padding_rows=*/true};
    // As on AVX2 (x86_avx2.cpp has the Zen 3 figures). On Zen 4 a wash: three interleaved A/B
    // runs, time with / without at 1 and 2 threads: P2 0.60-0.88 / 0.73-0.88, P5 1.09-1.34 /
    // 0.96-1.17, P1, P6, P9 and P10 0.77-1.21 either way, as much as the control (AvgPool, no
    // prefetch) moved; 8 KB level with 4 KB (docs/PERFORMANCE_HISTORY.md, "2026-12-02"). Intel
    // hosts not measured. AvgPool's in-place kernels on Zen 5 (7 interleaved rounds, time with /
    // without at 1 and 2 threads): rows first P11 0.89-0.94 / 0.92-0.94, 3x3/2 over 8x64x56x56
    // 0.88 / 0.87, 1-D 3/2 0.93 / 0.93, 2x2/2 on 28x28 0.95 / 0.99 (unpadded since 90128fe),
    // 5x5/3 on 17x17 0.99 / 0.97; unpadded 2x2/2 on 56x56 0.87 / 0.91, on 224x224 0.86 / 0.96
    // (docs/PERFORMANCE_HISTORY.md, "2026-12-02, 032d30a..").
    p.in_place_prefetch_bytes = 4096;
    // 4-lane copies of narrow rows: with 16-lane ones the gathers at the rows' ends took 18% of
    // C7's samples on an Intel Xeon, and 4 lanes C7 0.87x / 0.96x the time at 1 / 2 threads
    // (fastest of 9 interleaved turns; C6 and C8 within noise). Whole vectors from 512 columns:
    // C8 (4096 wide) took 0.93-0.96x the time at 1 and 2 threads on Zen 5 (three interleaved
    // runs), where C7's 56-wide rows took 1.12-1.14x (8 lanes level); 512 lies between the two
    // widths measured (docs/PERFORMANCE_HISTORY.md, "2026-11-28, 30a44af..bfe8bee" and
    // "2026-12-02, 047bbe5..f939c2b").
    p.narrow_row_copy_lanes = 4;
    p.whole_vector_copy_columns = 512;
    return p;
}

}  // namespace poolconv::schedules
