// Pooling schedule for GPUs (CUDA, OpenCL; target_params().gpu).
//
// Plan (NCDHW, x = W is unit-stride):
//   padded input: copied once, by kernels of its own, into a buffer with a margin of padding
//                (the algorithm reads taps from it; see pool_window.h): one thread per element
//   output:      blocks of 32 x 8 threads over (x, y), and one block row per (z, c, n); each
//                thread reduces its window along x, then y, then z in registers (MaxPool's
//                unpadded value-comparing kernels: the whole window in one stage, whole_window).
//                Neighbouring threads read neighbouring x: coalesced loads.
//   indices:     computed with the values, in the same threads (see schedule_pooling_gpu)
// Global pooling: one thread per plane sums its row (the planes are short: 7x7 in ResNet).
#include "schedules/pooling_schedule.h"

#include <string>

namespace poolconv::schedules {

using namespace Halide;

namespace {

constexpr int kBlockX = 32, kBlockY = 8;

// Blocks of kBlockX x kBlockY threads over (x, y), and the (z, c, n) planes fused into the third
// block axis, split into `v`: xo, yo (blocks), xi, yi (threads), planes.
struct GridVars {
    Var xo, yo, xi, yi, planes;
};
void plane_grid(Stage stage, const Var &x, const Var &y, const Var &z, const Var &c, const Var &n, const GridVars &v) {
    stage.fuse(z, c, v.planes)
        .fuse(v.planes, n, v.planes)
        .gpu_tile(x, y, v.xo, v.yo, v.xi, v.yi, kBlockX, kBlockY, TailStrategy::GuardWithIf)
        .gpu_blocks(v.planes);
}

// The padded-input copy, as kernels of their own: each slab of the padding margin, then the
// input's elements; each thread writes its (x, y) through all z (z is an RVar there, which
// plane_grid cannot fuse). The pure definition writes nothing, so needs no kernel.
void schedule_padded_input_gpu(PoolingStages &s) {
    const std::vector<Var> a = s.padded_input.args();
    s.padded_input.compute_root();
    auto grid = [&](int update, const RDom &r, const std::string &name) {
        const RVar xo(name + "_xo"), yo(name + "_yo"), xi(name + "_xi"), yi(name + "_yi");
        const Var planes(name + "_planes");
        s.padded_input.update(update)
            .fuse(a[3], a[4], planes)
            .gpu_tile(r.x, r.y, xo, yo, xi, yi, kBlockX, kBlockY, TailStrategy::GuardWithIf)
            .reorder(r.z, xi, yi, xo, yo, planes)
            .gpu_blocks(planes);
    };
    for (int slab = 0; slab < 6; slab++) grid(slab, s.padding_margins[slab], "fill" + std::to_string(slab));
    grid(kPaddedInputCopy, s.input_elements, "copy");
}

}  // namespace

void schedule_pooling_gpu(PoolingStages &s) {
    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &n = args[4];
    const GridVars v{Var("xo"), Var("yo"), Var("xi"), Var("yi"), Var("planes")};
    for (Func table : s.axis_tables) table.compute_root();
    if (s.padded) schedule_padded_input_gpu(s);  // unpadded kernels read the input in place

    if (s.second_output.defined()) {
        // Values and indices come out of one (value, position) reduction: the two outputs share
        // their thread loops (compute_with), so each thread reduces its window once and writes
        // both. Their blocks span (x, y, c) only, and z and n are loops on the host, one launch
        // each (usually just one): with z, c and n fused into one block axis as below, Halide 14
        // was slow to lower each kernel (its loop trimming of the fused index arithmetic).
        for (Func f : {s.output, s.second_output}) {
            f.gpu_tile(x, y, v.xo, v.yo, v.xi, v.yi, kBlockX, kBlockY, TailStrategy::GuardWithIf)
                .gpu_blocks(c)
                .reorder({v.xi, v.yi, v.xo, v.yo, c, z, n});
        }
        s.second_output.compute_with(s.output, v.xi);
    } else {
        plane_grid(s.output, x, y, z, c, n, v);
    }
    // Each stage one value per thread (a register), computed inside the tap loop of the stage that
    // consumes it (whole_window: the one stage, per output).
    s.along[2].compute_at(s.output, v.xi);
    if (s.whole_window) return;
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
