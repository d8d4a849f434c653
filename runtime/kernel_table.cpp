#include "runtime/kernel_table.h"

#include <cstring>

#include "poolconv/runtime.h"
#include "runtime/dispatch.h"
#include "poolconv_kernels.h"  // generated: every kernel header + POOLCONV_FOR_EACH_KERNEL

namespace poolconv::detail {

namespace {

struct KernelEntry {
    const char *name;
    Isa isa;
    AnyKernel fn;
};

#define POOLCONV_KERNEL_ENTRY(name, isa) \
    KernelEntry{#name, Isa::isa, reinterpret_cast<AnyKernel>(&poolconv_##name##_##isa)},
const KernelEntry kKernels[] = {POOLCONV_FOR_EACH_KERNEL(POOLCONV_KERNEL_ENTRY)};
#undef POOLCONV_KERNEL_ENTRY

}  // namespace

bool kernels_built_for(int isa) {
    for (const KernelEntry &k : kKernels) {
        if (static_cast<int>(k.isa) == isa) return true;
    }
    return false;
}

AnyKernel find_kernel(const std::string &name) {
    auto lookup = [&](Isa isa) -> AnyKernel {
        for (const KernelEntry &k : kKernels) {
            if (k.isa == isa && name == k.name) return k.fn;
        }
        return nullptr;
    };
    const Isa isa = active_isa();
    AnyKernel fn = lookup(isa);
    // GPU paths have kernels for the types GPUs compute in; the other types run on the CPU.
    if (!fn && is_gpu_isa(isa)) fn = lookup(best_cpu_isa());
    return fn;
}

}  // namespace poolconv::detail
