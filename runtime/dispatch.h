// Process-wide runtime state shared by all operators. Internal to the runtime.
#pragma once

#include "poolconv/runtime.h"

namespace poolconv::detail {

// Idempotent; called at the start of every operator. Installs the Halide error handler and
// applies POOLCONV_NUM_THREADS / POOLCONV_ISA the first time.
void ensure_runtime_ready();

// Whether `isa` is a GPU backend (cuda, opencl) rather than a CPU instruction set.
bool is_gpu_isa(Isa isa);

// The path `best` picks (the CPU's most capable): where a GPU path has no kernel for a call.
Isa best_cpu_isa();

// Throws Error for a failed kernel call, with the message Halide reported on this thread.
[[noreturn]] void throw_kernel_failure(const char *op, int halide_status);

}  // namespace poolconv::detail
