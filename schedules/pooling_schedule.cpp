// Pooling schedule: one plan for every target, sized by TargetParams.
//
// Plan (NCDHW, x = W is unit-stride):
//   output:  for plane in N*C (parallel) / for z / for y / for x in vectors of L lanes
//            (L = one register of the widest per-lane state; the last vector of a row is guarded)
//   window:  computed per output vector, in registers:
//            for tap z / for tap y / for tap x (unrolled when specialized) / L lanes
//   The `likely` border tests in the algorithm let loop partitioning peel the border rows and
//   vectors, so the steady state loads input rows with no clamps and no selects.
//   Specialized: kernel_x in {2, 3} with stride_x in {1, 2} and dilation_x 1 (dense or
//   2-way-deinterleaved loads, unrolled taps); everything else takes the general path
//   (gathers for runtime strides). Measured figures are in the README's benchmark table.
#include "schedules/pooling_schedule.h"

#include <algorithm>
#include <utility>

namespace poolconv::schedules {

using namespace Halide;

void schedule_pooling(PoolingStages &s, const TargetParams &target, const Type &work_type,
                      int accumulator_bytes) {
    const int lanes = target.vector_bytes / std::max(work_type.bytes(), accumulator_bytes);

    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &n = args[4];
    Var xo("xo"), xi("xi"), plane("plane");

    // Output loop nest, shared by the indices output when there is one.
    auto output_loops = [&](Func f) {
        f.fuse(c, n, plane)
            .parallel(plane)
            .split(x, xo, xi, lanes, TailStrategy::GuardWithIf)
            .vectorize(xi)
            .reorder(xi, xo, y, z, plane);
    };
    output_loops(s.output);
    if (s.second_output.defined()) {
        output_loops(s.second_output);
        s.second_output.compute_with(s.output, xo);
    }

    for (Func table : s.axis_tables) table.compute_root();

    // The window reduction: one vector of accumulators per output vector.
    const Var wx = s.window.args()[0];
    Var wxo("wxo"), wxi("wxi");
    s.window.compute_at(s.output, xo).vectorize(wx, lanes);
    const RVar tx = s.taps.x, ty = s.taps.y, tz = s.taps.z;
    Stage update = s.window.update();
    update.split(wx, wxo, wxi, lanes, TailStrategy::RoundUp)
        .vectorize(wxi)
        .reorder(wxi, tx, ty, tz, wxo);

    // Hot cases: a constant kernel_x lets the taps along x unroll into shifted (stride 1) or
    // deinterleaved (stride 2) loads of one input row.
    const std::pair<int, int> kernel_stride_cases[] = {{3, 1}, {3, 2}, {2, 2}, {2, 1}};
    for (const auto &[k, st] : kernel_stride_cases) {
        update.specialize(s.kernel_x == k && s.stride_x == st && s.dilation_x == 1).unroll(tx);
    }
}

}  // namespace poolconv::schedules
