// The thread count a kernel sizes its parallel tasks by, read when the kernel runs.
#pragma once

#include "Halide.h"

namespace poolconv::schedules {

// The worker threads of Halide's pool when the kernel runs (poolconv::set_num_threads sets them),
// so one kernel sizes its tasks for any thread count. A pure call: Halide evaluates it once per
// kernel call, before the parallel loops (as a plain extern call it ran in every task, and it
// takes the thread pool's lock).
inline Halide::Expr worker_threads() {
    using Halide::Internal::Call;
    return Halide::max(Call::make(Halide::Int(32), "halide_get_num_threads", {}, Call::PureExtern), 1);
}

}  // namespace poolconv::schedules
