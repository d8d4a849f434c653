// Process-wide runtime state shared by all operators. Internal to the runtime.
#pragma once

#include <initializer_list>
#include <optional>
#include <shared_mutex>
#include <string>

#include "poolconv/runtime.h"
#include "poolconv/tensor.h"

namespace poolconv::detail {

// Idempotent; called at the start of every operator. Installs the Halide error handler and
// applies POOLCONV_NUM_THREADS / POOLCONV_ISA the first time.
void ensure_runtime_ready();

// Whether `isa` is a GPU backend (cuda, opencl) rather than a CPU instruction set.
bool is_gpu_isa(Isa isa);

// Whether this CPU runs a 512-bit FMA as two 256-bit halves, one a cycle (AMD Zen 4), where other
// AVX-512 cores run two a cycle: the convolution plans' rule reads it (schedules/conv_plan.h,
// ConvCallFacts::halved_512_bit_fmas). From CPUID, unless a test set it.
bool cpu_halves_512_bit_fmas();
// For tests: the answer cpu_halves_512_bit_fmas gives from now on; nullopt gives CPUID's again.
void override_halved_512_bit_fmas(std::optional<bool> halved);

// The path `best` picks (the CPU's most capable): where a GPU path has no kernel for a call.
Isa best_cpu_isa();

// A tensor of a call, named for messages ("input").
struct NamedTensor {
    const char *name;
    const TensorView *tensor;
};

// Why `author`'s kernels cannot run here (e.g. "need an AVX2 CPU"), to follow "<op>: <author>'s
// kernels" in a message; empty when they can.
std::string author_unavailable(ScheduleAuthor author);

// Where a call runs: host tensors on active_isa(); tensors all in one GPU's memory on that GPU.
struct CallPath {
    Isa isa;
    bool device_tensors;  // no CPU fallback: the data is in device memory
    // Whose kernels: an autoscheduler's (set_schedule_author) run on the avx2 path, whatever set_isa says.
    ScheduleAuthor author = ScheduleAuthor::poolconv;
};
// Throws Error when the tensors are in different places, or in the memory of a GPU this build has
// no kernels for or this machine lacks, or when an autoscheduler's kernels cannot run them.
CallPath call_path(const char *op, std::initializer_list<NamedTensor> tensors);

// Held shared by every kernel call while it runs, and exclusively by set_num_threads while it
// restarts Halide's thread pool, which must not happen under a running kernel.
std::shared_mutex &thread_pool_mutex();

// Forgets the message Halide reported on this thread (after an expected failure, e.g. a probe).
void clear_halide_error();

// Throws Error for a failed kernel call, with the message Halide reported on this thread.
[[noreturn]] void throw_kernel_failure(const char *op, int halide_status);

}  // namespace poolconv::detail
