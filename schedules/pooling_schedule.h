// The schedule plan shared by every pooling generator (MaxPool, MaxPool with indices, AvgPool).
#pragma once

#include <array>
#include <vector>

#include "Halide.h"

#include "schedules/target_params.h"

namespace poolconv::schedules {

// The update of PoolingStages::padded_input that copies the input (after the six margin fills).
constexpr int kPaddedInputCopy = 6;

// The Funcs of one pooling pipeline, as the generator defined them: the window is reduced along
// x (within input rows), then along y, then along z; each stage has a 1-D RDom of taps. Or, where
// whole_window is set (MaxPool's unpadded value-comparing kernels), in one stage: along[0],
// along[1] and along[2] are then that one Func, and taps[0..2] its x, y and z taps.
struct PoolingStages {
    Halide::Func output;         // (x, y, z, c, n), pure, reads along[2]
    Halide::Func second_output;  // the indices output of MaxPool, if any; computed with `output`
    Halide::Func along[3];       // along[a] reduces along[a - 1] (or the input) along axis a
    Halide::RVar taps[3];        // along[a]'s taps
    bool whole_window = false;   // along[0..2] are one Func reducing the whole window (above)
    // What along[0] reads: the (encoded) input in a margin of padding, a copy whose updates 0-5
    // fill padding_margins (the first 4 slabs of whole rows, the last 2 of columns) and whose
    // update kPaddedInputCopy copies input_elements (x, y, z); or, in unpadded kernels (padded
    // false, every window inside the input), the input itself (encoded, or the values), read in
    // place.
    Halide::Func padded_input;
    std::array<Halide::RDom, 6> padding_margins;
    Halide::RDom input_elements;
    bool padded = true;
    Halide::Expr input_plane_elements;  // the input's x * y * z extents

    // Small per-axis tables (AvgPool's divisor factors), computed once per call.
    std::vector<Halide::Func> axis_tables;

    // Runtime window attributes per axis (0 = x, 1 = y, 2 = z): the plan specializes on them.
    Halide::Expr kernel[3], stride[3], dilation[3];
};

// The Funcs of the rows-first pipelines (MaxPool's and AvgPool's generate_rows_first in
// generators/pooling_generator.cpp): across_rows reduces the window's rows (y and z taps,
// row_taps) reading the input in place, at one input column; rows holds those per output row
// inside a margin of padding (updates 0 and 1: the margins, update 2: `columns`, the input's
// columns); along_x reduces along x over rows.
struct RowsFirstStages {
    Halide::Func output;  // (x, y, z, c, n), pure, reads along_x and the axis tables
    Halide::Func across_rows;
    Halide::RDom row_taps;  // (y taps, z taps); MaxPool's leave out the first (the pure definition's)
    Halide::Func rows;
    std::array<Halide::RDom, 2> margins;
    Halide::RDom columns;
    Halide::Func along_x;
    Halide::RVar taps_x;    // MaxPool's leave out the first tap (the pure definition's)
    // Taps counted per axis: MaxPool's test for windows of padding only, AvgPool's divisors.
    std::vector<Halide::Func> axis_tables;
    // Where this holds, no window is padding only: MaxPool's output needs no test for that
    // (AvgPool's tests its count either way).
    Halide::Expr windows_never_empty;
    Halide::Expr input_plane_elements;  // the input's x * y * z extents
    Halide::Expr kernel[3], stride[3], dilation[3];
};

// The Funcs of the flat-plane pipelines (MaxPool's and AvgPool's generate_flat_plane): each plane
// pooled as one flat row of positions (x + y * width). `plane` is the input plane, flat, inside
// margins of padding (updates 0 and 1: the margins, update 2: `positions`, the copy);
// across_rows reduces the window's rows (row_taps) at one position, `rows` holds those, along_x
// reduces along x over rows (taps_x) where a tap's column lies in the row, reading `columns`;
// `pooled` is the finished value (the generator's), which the output's update writes at each of
// the plane's positions (output_positions).
struct FlatPlaneStages {
    Halide::Var position{"position"};  // the pure argument of plane, across_rows, rows, along_x, pooled, columns
    Halide::Func output;               // (x, y, z, c, n): nothing, then an update from pooled
    Halide::Func plane;
    std::array<Halide::RDom, 2> margins;
    Halide::RDom positions;
    Halide::Func across_rows;
    Halide::RDom row_taps;  // MaxPool's leave out the first tap (the pure definition's), as taps_x
    Halide::Func rows;
    Halide::Func columns;  // (position): the column of each position, a table per call
    Halide::Func along_x;
    Halide::RVar taps_x;
    Halide::Func pooled;   // (position, z, c, n)
    Halide::RDom output_positions;  // the positions of a plane, which the output's update writes
    // Per-call tables over the plane's positions (columns, AvgPool's divisors).
    std::vector<Halide::Func> tables;
    Halide::Expr width;    // the plane's width (input and output)
    // Where the plan holds: stride and dilation 1 along x and y, one plane deep, pads within the
    // window, a nonzero width and fewer than 2^24 positions. The kernel fails elsewhere.
    Halide::Expr applies;
    Halide::Expr input_plane_elements;
    Halide::Expr kernel[3], stride[3], dilation[3], pad_begin[3];
};

// Schedules the stages for `target`. `work_type` is the type the window reduction accumulates in;
// `accumulator_bytes` the widest per-lane state it keeps (4 for an int32 argmax position).
void schedule_pooling(PoolingStages &stages, const TargetParams &target,
                      const Halide::Type &work_type, int accumulator_bytes);

// For the rows-first pipeline: CPU targets only.
void schedule_rows_first_pooling(RowsFirstStages &stages, const TargetParams &target, const Halide::Type &work_type);

// For the flat-plane pipeline: CPU targets only.
void schedule_flat_plane_pooling(FlatPlaneStages &stages, const TargetParams &target, const Halide::Type &work_type);

// For a window that covers whole rows (global pooling, output x extent 1): reduces along the taps
// in vector lanes instead of along output x. The reduction must be an associative update (a sum).
void schedule_global_pooling(PoolingStages &stages, const TargetParams &target, const Halide::Type &work_type);

// The GPU plans of the two above (schedules/pooling_schedule_gpu.cpp); they call these for
// targets whose TargetParams say gpu.
void schedule_pooling_gpu(PoolingStages &stages);
void schedule_global_pooling_gpu(PoolingStages &stages);

}  // namespace poolconv::schedules
