#include "runtime/kernel_table.h"

#include <cstring>
#include <string>

#include "poolconv/runtime.h"
#include "poolconv/tensor.h"
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

AnyKernel find_kernel(const char *op, const std::string &name, const CallPath &path) {
    auto lookup = [&](Isa isa) -> AnyKernel {
        for (const KernelEntry &k : kKernels) {
            if (k.isa == isa && name == k.name) return k.fn;
        }
        return nullptr;
    };
    AnyKernel fn = lookup(path.isa);
    if (!fn && is_gpu_isa(path.isa) && !path.device_tensors) fn = lookup(best_cpu_isa());
    if (!fn) {
        throw Error(std::string(op) + ": no " + isa_name(path.isa) + " kernel " + name +
                    (path.device_tensors ? " (the tensors are in device memory, so the CPU cannot run it)" : ""));
    }
    return fn;
}

}  // namespace poolconv::detail
