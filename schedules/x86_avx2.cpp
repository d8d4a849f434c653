// AVX2 + FMA + F16C (Haswell and later, AMD Zen 1+): 16 ymm registers of 32 bytes.
#include "target_params.h"

namespace poolconv::schedules {

TargetParams x86_avx2_params() {
    return TargetParams{"x86-avx2", /*vector_bytes=*/32, /*vector_registers=*/16,
                        // 8 accumulators (FMA latency 4 cycles on 2 ports needs >= 8), one x
                        // vector by two rows: a 3x3 window's two rows share two of their four
                        // input rows (12 loads per 72 FMAs, where 2 x-vectors x 1 row took 18),
                        // and a row is covered in 8-column steps, so 56-wide rows compute
                        // nothing past their end (16-column tiles computed 64). 3 x 4 x 1 or
                        // 1 x 4 x 3 (12 accumulators) spill. C1 1 thread: 3.40 -> 2.87 ms, C4
                        // 4.08 -> 3.58 ms; measured interleaved on a Zen 3 host.
                        /*conv_tile=*/{1, 4, 2},
                        // One output row: two x vectors (C8: 25.4 ms, where {1, 4, 2} computed
                        // a second, discarded row in 52.4 ms).
                        /*row_tile=*/{2, 4, 1},
                        /*depthwise_tile=*/{2, 1, 4},
                        // 12 accumulators, 3 input vectors and a broadcast: all 16 registers,
                        // which only a 1x1 kernel's single tap leaves free (C3: 1.30 -> 1.25 ms
                        // over 2 x 4, measured interleaved on a Zen 3 host).
                        /*pointwise_tile=*/{3, 4, 1}};
}

}  // namespace poolconv::schedules
