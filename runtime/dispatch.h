// Process-wide runtime state shared by all operators. Internal to the runtime.
#pragma once

namespace poolconv::detail {

// Idempotent; called at the start of every operator. Installs the Halide error handler and
// applies POOLCONV_NUM_THREADS / POOLCONV_ISA the first time.
void ensure_runtime_ready();

// Throws Error for a failed kernel call, with the message Halide reported on this thread.
[[noreturn]] void throw_kernel_failure(const char *op, int halide_status);

}  // namespace poolconv::detail
