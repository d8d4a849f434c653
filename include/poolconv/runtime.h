// Process-wide settings: worker threads and the instruction set (x86 AVX-512 / AVX2 / baseline,
// AArch64 NEON).
#pragma once

#include <vector>

namespace poolconv {

// Worker threads used by every kernel, process-wide. A change restarts the thread pool once the
// kernels running in other threads return (calls may come from any thread at any time; kernels
// that start meanwhile wait). 0 restores the default: the POOLCONV_NUM_THREADS
// environment variable if set, else one per hardware thread. A POOLCONV_NUM_THREADS, POOLCONV_ISA
// or POOLCONV_SCHEDULE_AUTHOR value poolconv does not understand makes every call throw an Error
// naming it.
void set_num_threads(int threads);
int num_threads();

// The instruction set the kernels run with. `best` picks the most capable CPU path this CPU
// supports; the others force a path (tests and benchmarks use this to cover every dispatch target).
// Forcing a path the machine lacks (or this build did not compile) falls back to the best lower
// one, and a path of another architecture to `best`. The POOLCONV_ISA environment variable
// (avx512, avx2, baseline, neon, cuda, opencl) sets the initial choice.
//
// GPU paths (built when POOLCONV_GPU_TARGETS names them; never chosen by `best`): `cuda` runs the
// kernels on an NVIDIA GPU, `opencl` on an OpenCL device. With host tensors, each call copies its
// inputs to the device and its outputs back. They fall back to `best` where no such device (or
// driver) is found, and a call whose types have no GPU kernel (bf16, f64; f16 on OpenCL) runs on
// the `best` CPU path. Tensors already in GPU memory need no set_isa: see below.
enum class Isa { best, avx512, avx2, baseline, neon, cuda, opencl };

// Every Isa with its name (as POOLCONV_ISA, and POOLCONV_ISAS at build time, spell it) and the
// machines it is a path on; the CPU paths of an architecture in the order `best` tries them, most
// capable first. A new x86 path is a row here (and its enum value) and an entry in POOLCONV_ISAS.
enum class IsaKind { any, x86_64, aarch64, gpu };
struct IsaInfo {
    Isa isa;
    const char *name;
    IsaKind kind;
};
inline constexpr IsaInfo kIsaTable[] = {
    {Isa::best, "best", IsaKind::any},          {Isa::avx512, "avx512", IsaKind::x86_64},
    {Isa::avx2, "avx2", IsaKind::x86_64},       {Isa::baseline, "baseline", IsaKind::x86_64},
    {Isa::neon, "neon", IsaKind::aarch64},      {Isa::cuda, "cuda", IsaKind::gpu},
    {Isa::opencl, "opencl", IsaKind::gpu},
};
void set_isa(Isa isa);
// The path a kernel call would take now on this machine (never `best`).
Isa active_isa();
const char *isa_name(Isa isa);
// The CPU paths of the architecture this library was built for, most capable first, whether or
// not this CPU runs them: avx512, avx2, baseline on x86-64; neon on AArch64.
std::vector<Isa> architecture_isas();
// Every path this build has kernels for: those of architecture_isas() it was built for (all of
// them unless POOLCONV_ISAS named fewer), then the GPU paths built.
std::vector<Isa> built_isas();

// Whose schedules the kernels run with. `poolconv` (the default) is ours. The others are an
// autoscheduler's plans for our generators, checked in under schedules/autoscheduled/ and made for
// the avx2 path and the shapes each generator's estimates describe (bench layers C1, C3, C5, C11,
// P1, P8): for comparison, and as a starting point for tuning. x86 builds that compile the avx2
// path have them (CMake option POOLCONV_AUTOSCHEDULED_KERNELS) for f32 host tensors only, and run
// them on the avx2 path whatever set_isa says; they refuse shapes smaller than their tiles (an
// Error quoting Halide's bounds check; README "Autoschedulers"). A call they do not cover (another
// type, device tensors, a CPU without AVX2) throws Error naming what is missing. Process-wide, like
// set_isa; the POOLCONV_SCHEDULE_AUTHOR environment variable (poolconv, adams2019, mullapudi2016)
// sets the initial choice.
enum class ScheduleAuthor { poolconv, adams2019, mullapudi2016 };
void set_schedule_author(ScheduleAuthor author);
ScheduleAuthor schedule_author();
const char *schedule_author_name(ScheduleAuthor author);
// Whether calls can run `author`'s kernels here: always for poolconv; for an autoscheduler's, when
// this build has them and the avx2 path, and this CPU runs AVX2 (for f32 host tensors, as above).
// Where it is false, a call made with that author set throws Error saying which is missing.
bool schedule_author_available(ScheduleAuthor author);

// ---- GPU device memory ----
// A call whose tensors are all in one GPU's memory (TensorView::memory = cuda or opencl) runs that
// GPU's kernels, whatever set_isa says, reading and writing device memory directly: no copies, no
// host synchronization. The kernels are queued on the context's stream (queue), so the outputs are
// ready in that stream's order. It is an Error to mix host and device tensors in one call, and to
// pass device tensors of a type that GPU has no kernel for (it cannot fall back to the CPU).
// PreparedConvolution takes host weights, packs them once and keeps a device copy per GPU.

// A GPU context and its queue: CUDA's CUcontext and CUstream, or OpenCL's cl_context and
// cl_command_queue, as void pointers so this header needs no GPU headers.
struct GpuContext {
    void *context = nullptr;
    void *queue = nullptr;
};

// The context and queue the kernels of GPU path `isa` (cuda, opencl) use, set up on first use:
// device tensors must be allocated in this context. Throws Error if this build has no kernels for
// `isa` or no such device is found.
//   CUDA: by default a context of its own on device 0 and the default stream (set_cuda_context
//   replaces both). OpenCL: a context and in-order queue on the first device of the platform that
//   HL_OCL_PLATFORM_NAME / HL_OCL_DEVICE_TYPE select; an engine with its own context defines
//   Halide's hooks halide_acquire_cl_context / halide_release_cl_context, which replace the
//   defaults in libpoolconv.a.
GpuContext gpu_context(Isa isa);

// Makes the CUDA kernels run in the engine's context and stream, e.g. the device's primary context
// (the one the CUDA runtime API and frameworks allocate in) and the engine's current stream, so
// their device pointers can be passed directly. A default-constructed GpuContext restores the
// default. Process-wide: call it while no operator runs. Throws Error if this build has no CUDA
// kernels.
void set_cuda_context(GpuContext context);

}  // namespace poolconv
