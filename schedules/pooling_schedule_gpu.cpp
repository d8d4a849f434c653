// Pooling schedule for GPUs (CUDA, OpenCL; target_params().gpu).
//
// Plan (NCDHW, x = W is unit-stride):
//   input rows:  copied once, by their own kernel, into a buffer widened by the padding columns
//                (the algorithm reads taps from it; see pool_window.h): one thread per element
//   output:      blocks of 32 x 8 threads over (x, y), and one block row per (z, c, n); each
//                thread reduces its window along x, then y, then z in registers. Neighbouring
//                threads read neighbouring x: coalesced loads.
//   indices:     no GPU schedule yet (see schedule_pooling_gpu)
// Global pooling: one thread per plane sums its row (the planes are short: 7x7 in ResNet).
#include "schedules/pooling_schedule.h"

namespace poolconv::schedules {

using namespace Halide;

namespace {

constexpr int kBlockX = 32, kBlockY = 8;

// The input-rows copy, as a grid of its own: (x, y) tiles, (z, c, n) fused into the third block axis.
void schedule_input_rows_gpu(PoolingStages &s) {
    const std::vector<Var> a = s.input_rows.args();
    Var xo("rows_xo"), yo("rows_yo"), xi("rows_xi"), yi("rows_yi"), planes("rows_planes");
    s.input_rows.compute_root()
        .fuse(a[2], a[3], planes)
        .fuse(planes, a[4], planes)
        .gpu_tile(a[0], a[1], xo, yo, xi, yi, kBlockX, kBlockY, TailStrategy::GuardWithIf)
        .gpu_blocks(planes);
    RVar co("columns_o"), ci("columns_i");
    s.input_rows.update()
        .fuse(a[2], a[3], planes)
        .fuse(planes, a[4], planes)
        .gpu_tile(s.input_columns, a[1], co, yo, ci, yi, kBlockX, kBlockY, TailStrategy::GuardWithIf)
        .gpu_blocks(planes);
}

}  // namespace

void schedule_pooling_gpu(PoolingStages &s) {
    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &n = args[4];
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), planes("planes");

    auto output_grid = [&](Func f) {
        f.fuse(z, c, planes)
            .fuse(planes, n, planes)
            .gpu_tile(x, y, xo, yo, xi, yi, kBlockX, kBlockY, TailStrategy::GuardWithIf)
            .gpu_blocks(planes);
    };
    for (Func table : s.axis_tables) table.compute_root();
    schedule_input_rows_gpu(s);

    if (s.second_output.defined()) {
        // Two schedules were tried for the indices output and dropped: fusing the two outputs
        // (compute_with) took Halide 14 ~50 s to lower per kernel, and computing the window's
        // (value, position) stages at root gave wrong positions on PoCL's OpenCL. CMake builds no
        // GPU indices kernels; the runtime runs MaxPool with indices on the CPU.
        throw CompileError("poolconv has no GPU schedule for MaxPool with indices");
    }
    // Each stage one value per thread (a register), computed inside the tap loop of the stage that
    // consumes it.
    output_grid(s.output);
    s.along[2].compute_at(s.output, xi);
    s.along[1].compute_at(s.along[2], s.taps[2]);
    s.along[0].compute_at(s.along[1], s.taps[1]);
}

void schedule_global_pooling_gpu(PoolingStages &s) {
    const std::vector<Var> args = s.output.args();
    const Var &c = args[3], &n = args[4];
    Var plane("plane"), block("block"), thread("thread");
    for (int a = 0; a < 3; a++) s.output.bound(args[a], 0, 1);
    s.output.fuse(c, n, plane).gpu_tile(plane, block, thread, 64, TailStrategy::GuardWithIf);
    for (Func table : s.axis_tables) table.compute_root();
    s.along[2].compute_at(s.output, thread);
    s.along[1].compute_at(s.along[2], s.taps[2]);
    s.along[0].compute_at(s.along[1], s.taps[1]);
}

}  // namespace poolconv::schedules
