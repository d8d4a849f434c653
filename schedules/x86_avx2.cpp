// AVX2 + FMA + F16C (Haswell and later, AMD Zen 1+): 16 ymm registers of 32 bytes.
#include "target_params.h"

namespace poolconv::schedules {

TargetParams x86_avx2_params() {
    return TargetParams{"x86-avx2", /*vector_bytes=*/32, /*vector_registers=*/16,
                        // 12 accumulators (FMA latency 4-5 cycles on 2 ports needs >= 10).
                        /*conv_tile=*/{2, 4, 1},
                        /*depthwise_tile=*/{2, 1, 4},
                        // 12 accumulators, 3 input vectors and a broadcast: all 16 registers,
                        // which only a 1x1 kernel's single tap leaves free (C3: 1.30 -> 1.25 ms
                        // over 2 x 4, measured interleaved on a Zen 3 host).
                        /*pointwise_tile=*/{3, 4, 1}};
}

}  // namespace poolconv::schedules
