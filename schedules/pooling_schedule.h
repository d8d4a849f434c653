// The schedule plan shared by every pooling generator (MaxPool, MaxPool with indices, AvgPool).
#pragma once

#include <vector>

#include "Halide.h"

#include "schedules/target_params.h"

namespace poolconv::schedules {

// The Funcs of one pooling pipeline, as the generator defined them.
struct PoolingStages {
    Halide::Func output;         // (x, y, z, c, n), pure, reads `window`
    Halide::Func window;         // the reduction over the window (max / argmax / sum)
    Halide::RDom taps;           // the window's RDom: taps.x runs along x
    Halide::Func clamped_input;  // the input with clamped coordinates (inlined)
    Halide::Func second_output;  // the indices output of MaxPool, if any; computed with `output`

    // Small per-axis tables (AvgPool's divisor factors), computed once per call.
    std::vector<Halide::Func> axis_tables;

    // Runtime window attributes along x, the vectorized axis: the plan specializes on them.
    Halide::Expr kernel_x, stride_x, dilation_x;
};

// Schedules the stages for `target`. `work_type` is the type the window reduction accumulates in;
// `accumulator_bytes` the widest per-lane state it keeps (4 for an int32 argmax position).
void schedule_pooling(PoolingStages &stages, const TargetParams &target,
                      const Halide::Type &work_type, int accumulator_bytes);

}  // namespace poolconv::schedules
