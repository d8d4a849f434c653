// AVX2 + FMA + F16C (Haswell and later, AMD Zen 1+): 16 ymm registers of 32 bytes.
#include "target_params.h"

namespace poolconv::schedules {

TargetParams x86_avx2_params() {
    return TargetParams{"x86-avx2", /*vector_bytes=*/32, /*vector_registers=*/16,
                        // 12 accumulators (FMA latency 4-5 cycles on 2 ports needs >= 10).
                        /*conv_tile=*/{2, 4, 1},
                        /*depthwise_tile=*/{2, 1, 4}};
}

}  // namespace poolconv::schedules
