// AVX-512 (Skylake-SP and later, AMD Zen 4/5): 32 zmm registers of 64 bytes, F16C conversions.
#include "target_params.h"

namespace poolconv::schedules {

TargetParams x86_avx512_params() {
    return TargetParams{"x86-avx512", /*vector_bytes=*/64, /*vector_registers=*/32,
                        // 16 accumulators: 2 input vectors + 8 broadcast weights per 16 FMAs.
                        // Two rows of one vector, as on AVX2 (where it measured 12-16% faster):
                        // rows share input rows, and a 14-wide row (C4) computes 16 columns
                        // where two vectors computed 32. Not yet timed on an AVX-512 host.
                        /*conv_tile=*/{1, 8, 2},
                        /*row_tile=*/{2, 8, 1},
                        // 8 accumulators over 4 rows: a 3x3 window's input rows are loaded once
                        // for the rows that share them.
                        /*depthwise_tile=*/{2, 1, 4},
                        /*pointwise_tile=*/{2, 8, 1}};
}

}  // namespace poolconv::schedules
