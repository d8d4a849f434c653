// The few numbers a schedule needs to know about the machine it is compiled for.
//
// Schedules never test target features themselves: they read a TargetParams, computed once per
// Target by target_params(). Each supported target has its table in its own file
// (x86_avx512.cpp, x86_avx2.cpp, ...), so adding NEON or CUDA means adding a file, not editing plans.
#pragma once

#include "Halide.h"

namespace poolconv::schedules {

struct TargetParams {
    const char *name;         // for STMT headers and logs, e.g. "x86-avx512"
    int vector_bytes;         // width of one SIMD register in bytes
    int vector_registers;     // architectural SIMD registers available to accumulators and taps

    // Lanes of one SIMD register for elements of type t.
    int lanes(const Halide::Type &t) const { return vector_bytes / t.bytes(); }
};

// Tables, one per target family; each defined in its own file.
TargetParams x86_avx512_params();
TargetParams x86_avx2_params();
TargetParams x86_baseline_params();

// Picks the table for a Halide target (aborts with a clear message for targets we do not schedule).
TargetParams target_params(const Halide::Target &target);

}  // namespace poolconv::schedules
