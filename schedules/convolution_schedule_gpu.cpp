// Convolution schedule for GPUs (CUDA, OpenCL; target_params().gpu).
//
// Plan (NCDHW, x = W is unit-stride; `channels` = ConvTile::channels of the GPU table):
//   output:  blocks of 16 x 8 threads over (x, y); the third block axis runs over (channel tile,
//            z, g, n). Each thread computes `channels` output channels at one (x, y):
//              sum: bias, then for ci, kz, ky, kx: `channels` FMAs on one input value (zero
//                   outside the input: the boundary condition is inlined, its loads clamped)
//            and stores them (the last channel tile is guarded).
//   Neighbouring threads read neighbouring x (coalesced); all threads of a block read the same
//   weights (broadcast). The packed weights keep output channels innermost, so a thread's
//   `channels` weights are contiguous.
#include "schedules/convolution_schedule.h"

namespace poolconv::schedules {

using namespace Halide;

void schedule_convolution_gpu(ConvolutionStages &s, const ConvTile &tile) {
    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &g = args[4], &n = args[5];
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), co("co"), ci("ci"), slab("slab");

    s.output.split(c, co, ci, tile.channels, TailStrategy::GuardWithIf)
        .reorder(ci, x, y, co, z, g, n)
        .fuse(co, z, slab)
        .fuse(slab, g, slab)
        .fuse(slab, n, slab)
        .gpu_tile(x, y, xo, yo, xi, yi, 16, 8, TailStrategy::GuardWithIf)
        .gpu_blocks(slab)
        .unroll(ci);

    // The thread's accumulators: `channels` values, unrolled, in registers.
    s.sum.compute_at(s.output, xi).bound_extent(c, tile.channels).unroll(c);
    for (const Var &v : {x, y, z, g, n}) s.sum.bound_extent(v, 1);
    const RVar &kx = s.taps[0], &ky = s.taps[1], &kz = s.taps[2], &tap_ci = s.taps[3];
    s.sum.update().reorder(c, kx, ky, kz, tap_ci).unroll(c);
}

}  // namespace poolconv::schedules
