// Software prefetch of an input that a kernel streams through in place: every dense vector load of
// the buffer is preceded by prefetches of the lines it spans a fixed distance further on, one per
// 64-byte line of the loads that a loop iteration makes (loads whose starts differ by a constant
// share them; loads under different variable names do not, which costs a spare prefetch at most).
//
// Why a lowering pass: Halide's own `prefetch` directive steps its 64-byte prefetches 64 elements
// apart (Prefetch.cpp adds bytes to an element offset), so an f32 stream gets every fourth cache
// line, and prefetching only some lines cost more than none (a C model of P2 on Zen 3: every other
// line 1.3x, every fourth 1.5x the time without prefetch). This pass runs after Halide's lowering
// and emits Halide's own prefetch intrinsic (`prefetchnta` on x86) at the loads themselves.
#pragma once

#include <string>

#include "Halide.h"

namespace poolconv::schedules {

// Adds the pass to `pipeline`: loads of `buffer` (an input's name) get a prefetch `ahead_bytes`
// further on. CPU targets only (a GPU pipeline's host code does not stream its inputs).
void prefetch_ahead(Halide::Pipeline pipeline, const std::string &buffer, int ahead_bytes);

}  // namespace poolconv::schedules
