// AArch64 Advanced SIMD (NEON), every ARMv8-A core: 32 q registers of 16 bytes (4 f32 lanes).
#include "schedules/vector_bytes.h"
#include "target_params.h"

namespace poolconv::schedules {

TargetParams arm_neon_params() {
    return TargetParams{"arm-neon", /*vector_bytes=*/kNeonSimd.vector_bytes, /*vector_registers=*/32,
                        // 16 accumulators, 2 input vectors, 2 vectors of 4 weights (Halide emits
                        // fmla by element). 3 x 8 fits 32 registers on paper, but in the generated
                        // code six of its 3x3 tap loops spilled, far more than 2 x 8's worst loop.
                        /*conv_tile=*/{2, 8, 1},
                        // 16 accumulators, one vector by two rows, as on x86 (rows share input
                        // rows); untimed here, since qemu cannot time it.
                        /*row_pair_tile=*/{1, 8, 2},
                        // 8 accumulators over 4 rows, as on x86: rows share the 3x3 window's loads.
                        /*depthwise_tile=*/{2, 1, 4},
                        // 8 accumulators along one row, as on x86; untimed (qemu).
                        /*depthwise_1d_tile=*/{8, 1, 1},
                        // Kept at the general tile: 3 x 8 would fit a 1x1 kernel, but qemu cannot
                        // time it.
                        /*pointwise_tile=*/{2, 8, 1},
                        // Unused: channel-vector kernels are built for AVX-512 only.
                        /*channel_vector_tile=*/{12, 8, 1},
                        // Unused: one-vector kernels are built for AVX-512 only.
                        /*one_vector_tile=*/{1, 8, 1}};
}

}  // namespace poolconv::schedules
