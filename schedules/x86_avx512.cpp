// AVX-512 (Skylake-SP and later, AMD Zen 4/5): 32 zmm registers of 64 bytes, F16C conversions.
#include "target_params.h"

namespace poolconv::schedules {

TargetParams x86_avx512_params() {
    return TargetParams{"x86-avx512", /*vector_bytes=*/64, /*vector_registers=*/32};
}

}  // namespace poolconv::schedules
