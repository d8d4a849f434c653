// Convolution schedule for GPUs (CUDA, OpenCL; target_params().gpu).
//
// Plan (NCDHW, x = W is unit-stride; `channels` and `rows` are the GPU table's ConvTile):
//   output:  one warp (32 lanes) per block of 32 x `rows` positions x `channels` output channels;
//            the blocks run over (x tile, y tile, channel tile), or (x tile, y tile, group) for
//            depthwise; z, n (and g) are kernel launches. Lane i owns column x0 + i: its
//            `rows` x `channels` results live in its registers.
//     sum:   bias, then per chunk of kStagedChannels input channels:
//              stage: the warp copies the chunk's input window (zero outside the input) into
//                     shared memory, lanes along x (coalesced loads), then synchronizes;
//              taps:  for ci, kz, ky, kx: each lane reads its input values from shared memory
//                     and issues `rows` x `channels` FMAs with weights that are the same for
//                     every lane (broadcast loads from runs of 4 packed channels).
//   The results are stored lanes along x (coalesced); tiles past an edge are guarded.
// The wide_window plan is the same without the staging: for windows whose staged input would
// exceed a block's shared memory (schedules/conv_plan.h), the taps read the input where it lies
// (global memory, through the caches).
//
// The accumulators belong to the block (they outlive each staging step), so they are a
// register allocation at block level: Halide's CUDA backend stripes it across the lanes (each
// lane keeps its own `rows` x `channels` values in registers). OpenCL has no such lowering: each
// work-item then holds the block's array in private memory, which is correct (that is how CI
// checks this plan, on PoCL) but not fast on an OpenCL GPU.
#include "schedules/convolution_schedule.h"

namespace poolconv::schedules {

using namespace Halide;

namespace {
// CUDA's warp: the lanes of one block; input channels per shared-memory staging step. The
// runtime's choice of the wide_window plan sizes the staged window by these (conv_plan.h).
constexpr int kWarpLanes = int(kGpuWarpLanes);
constexpr int kStagedChannels = int(kGpuStagedChannels);
}  // namespace

void schedule_convolution_gpu(ConvolutionStages &s, const TargetParams &target, ConvPlan plan, const ConvTile &tile) {
    const bool stage_input = plan != ConvPlan::wide_window;
    // A block's 32 threads: warp lanes where the backend has them (CUDA), else plain threads.
    auto lanes = [&](auto &stage, const auto &v) -> auto & {
        return target.gpu_warp_lanes ? stage.gpu_lanes(v) : stage.gpu_threads(v);
    };
    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &g = args[4], &n = args[5];
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), co("co"), ci("ci");

    // Blocks: (x tile, y tile, channel tile); the depthwise plan (one channel per tile) runs its
    // groups there instead. The remaining axes loop on the host, one kernel launch each: fusing
    // them into a block axis would leave Halide unable to bound the accumulators per block.
    const bool depthwise = tile.channels == 1;
    s.output.split(x, xo, xi, kWarpLanes, TailStrategy::GuardWithIf)
        .split(y, yo, yi, tile.rows, TailStrategy::GuardWithIf)
        .split(c, co, ci, tile.channels, TailStrategy::GuardWithIf);
    if (depthwise) {
        s.output.reorder(ci, yi, xi, xo, yo, g, co, z, n).gpu_blocks(xo, yo, g);
    } else {
        s.output.reorder(ci, yi, xi, xo, yo, co, z, g, n).gpu_blocks(xo, yo, co);
    }
    s.output.unroll(ci).unroll(yi);
    lanes(s.output, xi);
    if (target.gpu_warp_lanes && stage_input) {
        // Halide 14 synchronizes the lanes of a one-warp block only when it also has a loop over
        // threads: this one, of extent 1, makes it put a barrier (bar.sync) between staging
        // shared memory and reading it, which Volta and later need.
        Var warp("warp");
        s.output.split(xo, xo, warp, 1).gpu_threads(warp);
    }

    // The block's accumulators: 32 x rows x channels, striped across the lanes along x.
    s.sum.compute_at(s.output, xo)
        .store_in(MemoryType::Register)
        .bound_extent(x, kWarpLanes)
        .bound_extent(y, tile.rows)
        .bound_extent(c, tile.channels)
        .reorder(c, y, x)
        .unroll(c)
        .unroll(y);
    lanes(s.sum, x);
    for (const Var &v : {z, g, n}) s.sum.bound_extent(v, 1);

    const RVar &kx = s.taps[0], &ky = s.taps[1], &kz = s.taps[2], &tap_ci = s.taps[3];
    RVar chunk("chunk"), chunk_ci("chunk_ci");
    Stage update = s.sum.update();
    update.split(tap_ci, chunk, chunk_ci, kStagedChannels, TailStrategy::GuardWithIf)
        .reorder(c, y, kx, ky, kz, chunk_ci, x, chunk)
        .unroll(c)
        .unroll(y);
    lanes(update, x);
    if (!stage_input) return;  // the taps read the input (phased, inlined) where it lies

    // The staged input: one chunk's window, in shared memory (a block-level allocation), copied
    // by the lanes along x.
    Func staged = s.input_copy.in(s.sum);
    const std::vector<Var> sa = staged.args();
    Var sxo("sxo"), sxi("sxi");
    staged.compute_at(s.sum, chunk)
        .split(sa[0], sxo, sxi, kWarpLanes, TailStrategy::GuardWithIf)
        .reorder(sxi, sxo, sa[1], sa[2], sa[3], sa[4], sa[5], sa[6]);
    lanes(staged, sxi);
}

}  // namespace poolconv::schedules
