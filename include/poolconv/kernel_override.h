// Shape-specialized kernels run in place of the built-in ones: the mechanism behind the libraries
// poolconv-tune writes (their NAME.h calls the operators of this API inside an override, so that
// validation, packing and errors are the API's own). An engine calls those generated functions,
// not this.
#pragma once

#include <string>

#include "poolconv/runtime.h"

namespace poolconv {

// A kernel with the signature of built-in kernel `kernel` (runtime/kernel_table.h gives each kind's
// signature), compiled for CPU path `isa`.
struct KernelOverride {
    const char *kernel;  // e.g. "conv_f32_row_pairs"; nullptr: whichever kernel a call picks
    Isa isa;
    void (*function)();
};

// While an instance lives, a call on this thread that picks kernel `kernel` on path `isa`, with
// poolconv's schedules, runs `function` instead. Calls that pick another kernel or path (another
// plan for these tensors' strides, a CPU without the path, set_isa, an autoscheduler's kernels) run
// the built-in kernels as usual. Instances nest; the innermost is the one in effect.
class ScopedKernelOverride {
public:
    explicit ScopedKernelOverride(const KernelOverride &kernel_override);
    ~ScopedKernelOverride();
    ScopedKernelOverride(const ScopedKernelOverride &) = delete;
    ScopedKernelOverride &operator=(const ScopedKernelOverride &) = delete;

    // The override in effect on this thread, or nullptr.
    static const KernelOverride *current();
    // The built-in kernel an override last replaced on this thread ("" before any): how
    // poolconv-tune learns which kernel a call picks.
    static const std::string &last_replaced();

    // For the runtime: records the kernel a call replaced.
    static void note_replaced(const std::string &kernel);

private:
    KernelOverride own_;
    const KernelOverride *previous_;
};

}  // namespace poolconv
