#include "schedules/vector_bytes.h"
#include "target_params.h"

namespace poolconv::schedules {

// Baseline x86-64 (SSE2 only): the fallback every x86-64 CPU runs. 16 xmm registers of 16 bytes;
// f16 conversions are emulated in integer code.
TargetParams x86_baseline_params() {
    TargetParams p{"x86-baseline", /*vector_bytes=*/kSse2Simd.vector_bytes, /*vector_registers=*/16,
                   // The AVX2 tiles (the same 16 registers), at half the width.
                   /*conv_tile=*/{2, 4, 1},
                   /*row_pair_tile=*/{1, 4, 2},
                   /*depthwise_tile=*/{2, 1, 4},
                   /*depthwise_1d_tile=*/{8, 1, 1},
                   /*pointwise_tile=*/{3, 4, 1},
                   // Unused: channel-vector kernels are built for AVX-512 only.
                   /*channel_vector_tile=*/{6, 8, 1},
                   // Unused: one-vector kernels are built for AVX-512 only.
                   /*one_vector_tile=*/{1, 8, 1}};
    // As on AVX2 (x86_avx2.cpp has the figures; AvgPool's in-place kernels too since a22a091); not
    // measured on this path.
    p.in_place_prefetch_bytes = 4096;
    return p;
}

}  // namespace poolconv::schedules
