// Process-wide settings: worker threads and the instruction set (x86 AVX-512 / AVX2 / baseline,
// AArch64 NEON).
#pragma once

#include <vector>

namespace poolconv {

// Worker threads used by every kernel. Call it while no operator runs: a change restarts the
// thread pool. 0 restores the default: the POOLCONV_NUM_THREADS
// environment variable if set, else one per hardware thread.
void set_num_threads(int threads);
int num_threads();

// The instruction set the kernels run with. `best` picks the most capable CPU path this CPU
// supports; the others force a path (tests and benchmarks use this to cover every dispatch target).
// Forcing a path the machine lacks (or this build did not compile) falls back to the best lower
// one, and a path of another architecture to `best`. The POOLCONV_ISA environment variable
// (avx512, avx2, baseline, neon, cuda, opencl) sets the initial choice.
//
// GPU paths (built when POOLCONV_GPU_TARGETS names them; never chosen by `best`): `cuda` runs the
// kernels on an NVIDIA GPU, `opencl` on an OpenCL device. Tensors stay in host memory: each call
// copies its inputs to the device and its outputs back. They fall back to `best` where no such
// device (or driver) is found, and a call whose types have no GPU kernel (bf16, f64; f16 on
// OpenCL) runs on the `best` CPU path.
enum class Isa { best, avx512, avx2, baseline, neon, cuda, opencl };
void set_isa(Isa isa);
// The path a kernel call would take now on this machine (never `best`).
Isa active_isa();
const char *isa_name(Isa isa);
// The CPU paths of the architecture this library was built for, most capable first, whether or
// not this CPU runs them: avx512, avx2, baseline on x86-64; neon on AArch64.
std::vector<Isa> architecture_isas();
// Every path this build has kernels for: architecture_isas(), then the GPU paths built.
std::vector<Isa> built_isas();

}  // namespace poolconv
