// The schedule plan of the convolution generator.
#pragma once

#include <vector>

#include "Halide.h"

#include "schedules/conv_plan.h"
#include "schedules/target_params.h"

namespace poolconv::schedules {

// The Funcs of the convolution pipeline, as the generator defined them.
struct ConvolutionStages {
    Halide::Func output;              // (x, y, z, c, g, n): the activation of `sum`, in the data type
    Halide::Func sum;                 // (x, y, z, c, g, n): bias, then += over `taps`, f32 (f64 data: f64)
    std::vector<Halide::Func> activation_bounds;  // (c, g): the fused activation's min and max
    // The input in the sum's type (zero outside it) as the taps read it: for pointwise plans in panels
    // (panel_x, ci, panel, g, n) with x = panel * tile width + panel_x, else by stride phase
    // (q, r, y, z, ci, g, n) with x = q * stride_x + r.
    Halide::Func input_copy;
    // Channel-vector plans: input_copy again, once per kx tap (x, kx, y, z, ci, g, n), so that no
    // two taps of a tile read the same address (undefined elsewhere).
    Halide::Func shifted_copy;
    std::vector<Halide::RVar> taps;   // kx, ky, kz, ci (innermost first)
    // Depthwise and channel-vector CPU plans: input_copy is undefined, then one update per margin
    // of zeros around the input (copy_margins), then an update over the input (copied_input).
    // Depthwise: margins over phased column q and row y (left, right, above, below), the copy over
    // the plane's x and y. Channel vectors: margins over q (left, right), the copy over a row's x
    // (y a pure variable). Both empty where input_copy is one pure definition.
    std::vector<Halide::RDom> copy_margins;
    std::vector<Halide::RVar> copied_input;

    // Runtime attributes the plan specializes on, the output plane size it sizes x chunks by, the
    // output's groups times its batch (the planes a channel tile's tasks span), and its output
    // channels per group.
    Halide::Expr kernel_x, kernel_y, kernel_z, stride_x, stride_y, dilation_x, dilation_y;
    Halide::Expr output_width, output_height, output_images, output_channels;
};

// The target's accumulator tile for `plan` (one of TargetParams' tiles).
ConvTile &conv_plan_tile(TargetParams &target, ConvPlan plan);

// A parallel task's share of the output, in accumulator tiles: x_tiles along a row (pointwise:
// along the plane's pixels), row_tiles rows of tiles. 0 keeps the plan's rule (up to 8 tiles along
// x, 2 pointwise; as many rows as still leave 16 tasks). Depthwise tasks are whole planes, and
// channel-vector tasks whole rows (their copy is of whole rows); a shape those plans, or pointwise
// plans (one row), cannot take (conv_task_shape_refusal, schedules/conv_plan.h) is a CompileError
// on CPU targets.
struct ConvTaskShape {
    int x_tiles = 0;
    int row_tiles = 0;
};

// Schedules the stages for `target` with the plan's accumulator tile (see ConvTile).
void schedule_convolution(ConvolutionStages &stages, const TargetParams &target, ConvPlan plan,
                          const ConvTaskShape &task = {});

// The GPU plan (schedules/convolution_schedule_gpu.cpp); schedule_convolution calls it for targets
// whose TargetParams say gpu.
void schedule_convolution_gpu(ConvolutionStages &stages, const TargetParams &target, ConvPlan plan, const ConvTile &tile);

}  // namespace poolconv::schedules
