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

// The instruction set the kernels run with. `best` picks the most capable one this CPU supports;
// the others force a path (tests and benchmarks use this to cover every dispatch target). Forcing
// a path the CPU lacks (or this build did not compile) falls back to the best lower one, and a
// path of another architecture to `best`. The POOLCONV_ISA environment variable (avx512, avx2,
// baseline, neon) sets the initial choice.
enum class Isa { best, avx512, avx2, baseline, neon };
void set_isa(Isa isa);
// The path a kernel call would take now on this CPU (never `best`).
Isa active_isa();
const char *isa_name(Isa isa);
// The paths of the architecture this library was built for, most capable first, whether or not
// this CPU runs them: avx512, avx2, baseline on x86-64; neon on AArch64.
std::vector<Isa> architecture_isas();

}  // namespace poolconv
