#include "target_params.h"

namespace poolconv::schedules {

TargetParams target_params(const Halide::Target &target) {
    using Halide::Target;
    if (target.has_gpu_feature()) return gpu_params(target.has_feature(Target::CUDA));
    if (target.arch == Target::X86) {
        // Halide 14: `avx512` alone is AVX-512F/CD; the integer and VL forms need avx512_skylake.
        if (target.has_feature(Target::AVX512_Skylake)) return x86_avx512_params();
        if (target.has_feature(Target::AVX2)) return x86_avx2_params();
        return x86_baseline_params();
    }
    if (target.arch == Target::ARM && target.bits == 64) return arm_neon_params();
    throw Halide::CompileError("poolconv has no schedule for target " + target.to_string() +
                               "; add a TargetParams table in schedules/");
}

}  // namespace poolconv::schedules
